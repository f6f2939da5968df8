package main

// A pod's life through the CRI in the kubelet's order (kuberuntime_manager.go SyncPod and
// KillPod, then the garbage collector): the pod cgroup, RunPodSandbox with the runtime handler,
// for each container CreateContainer then StartContainer; to end it StopContainer for each
// (with the grace period), StopPodSandbox, RemoveContainer for each, RemovePodSandbox, and the
// pod cgroup removed.

import (
	"context"
	"fmt"

	internalapi "k8s.io/cri-api/pkg/apis"
)

type runningPod struct {
	spec       *podSpec
	sandboxID  string
	containers map[string]string // name -> id
	ids        []string          // every id the runtime gave, sandbox first
}

type podFailure struct {
	stage string // RunPodSandbox, CreateContainer app, StartContainer app
	err   error
}

func (f *podFailure) Error() string { return f.stage + ": " + f.err.Error() }

// startPod runs the pod as far as the runtime lets it; on a failure the pod is returned as far
// as it got, for stopPod to end, as the kubelet would on the pod's deletion.
func startPod(ctx context.Context, rt internalapi.RuntimeService, n *node, handler string, p *podSpec) (*runningPod, *podFailure) {
	rp := &runningPod{spec: p, containers: map[string]string{}}
	if err := n.makePodCgroup(p); err != nil {
		return rp, &podFailure{"pod cgroup", err}
	}
	sandboxConfig := n.sandboxConfig(p)
	id, err := rt.RunPodSandbox(ctx, sandboxConfig, handler)
	if err != nil {
		return rp, &podFailure{"RunPodSandbox", err}
	}
	rp.sandboxID = id
	rp.ids = append(rp.ids, id)
	for _, c := range p.containers {
		cid, err := rt.CreateContainer(ctx, id, n.containerConfig(p, c), sandboxConfig)
		if err != nil {
			return rp, &podFailure{"CreateContainer " + c.name, err}
		}
		rp.containers[c.name] = cid
		rp.ids = append(rp.ids, cid)
		if err := rt.StartContainer(ctx, cid); err != nil {
			return rp, &podFailure{"StartContainer " + c.name, err}
		}
	}
	return rp, nil
}

// stopPod ends and removes what startPod made; the first error is returned, every step tried.
func stopPod(ctx context.Context, rt internalapi.RuntimeService, n *node, rp *runningPod) error {
	var first error
	note := func(what string, err error) {
		if err != nil && first == nil {
			first = fmt.Errorf("%s: %w", what, err)
		}
	}
	for name, cid := range rp.containers {
		note("StopContainer "+name, rt.StopContainer(ctx, cid, 10))
	}
	if rp.sandboxID != "" {
		note("StopPodSandbox", rt.StopPodSandbox(ctx, rp.sandboxID))
	}
	for name, cid := range rp.containers {
		note("RemoveContainer "+name, rt.RemoveContainer(ctx, cid))
	}
	if rp.sandboxID != "" {
		note("RemovePodSandbox", rt.RemovePodSandbox(ctx, rp.sandboxID))
	}
	note("removing the pod cgroup", n.removePodCgroup(rp.spec))
	return first
}
