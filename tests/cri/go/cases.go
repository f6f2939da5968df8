package main

// The pods and what is read back from each.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

const (
	appUlimits = `[{"type":"RLIMIT_NOFILE","soft":1024,"hard":2048}]`
	appNofile  = "1024 2048"
	// The same with the soft limit raised to the hard one (runc#4195).
	appNofileRaced = "2048 2048"
	podPidLimit    = 2048
)

var podCount int

func newPod(name string, annotations map[string]string, containers ...containerSpec) *podSpec {
	podCount++
	return &podSpec{name: name, uid: fmt.Sprintf("%d-%d", os.Getpid(), podCount), annotations: annotations, containers: containers}
}

// containerPid is the container's init process as containerd's verbose status reports it.
func (r *run) containerPid(ctx context.Context, id string) (int64, error) {
	status, err := r.rt.ContainerStatus(ctx, id, true)
	if err != nil {
		return 0, err
	}
	if state := status.GetStatus().GetState(); state != runtimeapi.ContainerState_CONTAINER_RUNNING {
		return 0, fmt.Errorf("container %s is %s", id, state)
	}
	var info struct {
		Pid int64 `json:"pid"`
	}
	if err := json.Unmarshal([]byte(status.GetInfo()["info"]), &info); err != nil || info.Pid == 0 {
		return 0, fmt.Errorf("no pid in the verbose status of %s (%v)", id, err)
	}
	return info.Pid, nil
}

func (r *run) expectNofile(ctx context.Context, id string, want string, same bool) error {
	pid, err := r.containerPid(ctx, id)
	if err != nil {
		return err
	}
	limits, err := processLimits(pid)
	if err != nil {
		return err
	}
	got := limitRow(limits, "Max open files")
	if (got == want) != same {
		return fmt.Errorf("/proc/%d/limits nofile %q, want %s%q", pid, got, map[bool]string{true: "", false: "not "}[same], want)
	}
	return nil
}

// execNofile checks an exec'd process's /proc/self/limits: the container's nofile. With a runc
// that has runc#4195 (Go >= 1.19's start-up raises runc init's soft NOFILE to its hard limit,
// racing the limits runc exec sets: Debian 12's runc 1.1.5, go1.19.8) the soft limit may be the
// hard one; that is told, and the hard limit is still checked.
func (r *run) execNofile(limits string) error {
	got := limitRow(limits, "Max open files")
	if got == appNofile {
		return nil
	}
	if r.runcExecNofileRace && got == appNofileRaced {
		fmt.Printf("   note: the exec'd process has nofile %q, the container %q: runc#4195 in this runc\n", got, appNofile)
		return nil
	}
	return fmt.Errorf("the exec'd process has nofile %q, the container %q", got, appNofile)
}

func (r *run) execSyncNofile(ctx context.Context, id string) error {
	stdout, stderr, err := r.rt.ExecSync(ctx, id, []string{"cat", "/proc/self/limits"}, 10*time.Second)
	if err != nil {
		return fmt.Errorf("ExecSync: %w (stderr %q)", err, stderr)
	}
	return r.execNofile(string(stdout))
}

func (r *run) expectPidsMax(p *podSpec, want int64) error {
	got, err := r.node.podCgroupFile(p, "pids.max")
	if err != nil {
		return err
	}
	if got != strconv.FormatInt(want, 10) {
		return fmt.Errorf("pod cgroup pids.max %s, want %d", got, want)
	}
	return nil
}

// startCase starts the pod of case NAME and records NAME/started: the running pod, or nil once
// the failure is recorded and what was made of the pod removed.
func (r *run) startCase(ctx context.Context, name string, p *podSpec) *runningPod {
	rp, failure := startPod(ctx, r.rt, r.node, r.handler, p)
	if failure != nil {
		r.fail(name+"/started", "%v", failure)
		r.endPod(ctx, name, rp)
		return nil
	}
	r.ok(name + "/started")
	return rp
}

func (r *run) endPod(ctx context.Context, name string, rp *runningPod) {
	err := stopPod(ctx, r.rt, r.node, rp)
	if err == nil {
		if left := r.node.leftovers(rp.spec, rp.ids); len(left) > 0 {
			err = fmt.Errorf("left after removal:\n  %s", strings.Join(left, "\n  "))
		}
	}
	if err == nil {
		sandboxes, lerr := r.rt.ListPodSandbox(ctx, &runtimeapi.PodSandboxFilter{LabelSelector: map[string]string{"io.kubernetes.pod.uid": rp.spec.uid}})
		if lerr != nil || len(sandboxes) > 0 {
			err = fmt.Errorf("ListPodSandbox after removal: %d sandboxes (%v)", len(sandboxes), lerr)
		}
	}
	r.check(name+"/removed", err)
}

// The main pod: ulimits for one container, none for the other, a pod PID limit on cgroup v2.
func (r *run) limitsPod(ctx context.Context) {
	const name = "limits-pod"
	annotations := map[string]string{"ulimits.noderesource.dev/container.app": appUlimits}
	wantPids := r.node.podPidsLimit
	if r.node.cgroupMode == "v2" {
		annotations["podlimits.dev/pod-pid-limit"] = strconv.Itoa(podPidLimit)
		wantPids = min(wantPids, podPidLimit)
	}
	p := newPod("web", annotations, sleeper("app"), sleeper("sidecar"))
	rp := r.startCase(ctx, name, p)
	if rp == nil {
		return
	}
	app, sidecar := rp.containers["app"], rp.containers["sidecar"]
	readBack := func(suffix string) {
		r.check(name+"/pids.max"+suffix, r.expectPidsMax(p, wantPids))
		r.check(name+"/app-limits"+suffix, r.expectNofile(ctx, app, appNofile, true))
		r.check(name+"/sidecar-limits"+suffix, r.expectNofile(ctx, sidecar, appNofile, false))
		r.check(name+"/exec-sync-limits"+suffix, r.execSyncNofile(ctx, app))
	}
	readBack("")
	out, err := streamExec(ctx, r.rt, app, []string{"cat", "/proc/self/limits"})
	if err == nil {
		err = r.execNofile(out)
	}
	r.check(name+"/exec-stream-limits", err)

	// The kubelet's in-place resize and its CPU manager call this; the container's limits and
	// the pod's pids.max stay as they were.
	err = r.rt.UpdateContainerResources(ctx, app, &runtimeapi.ContainerResources{
		Linux: &runtimeapi.LinuxContainerResources{CpuShares: 4, OomScoreAdj: 1000}})
	if r.check(name+"/update-resources", err) {
		readBack(" after update")
	}

	if r.restart != "" {
		r.check(name+"/containerd-restart", r.restartContainerd(ctx))
		status, err := r.rt.PodSandboxStatus(ctx, rp.sandboxID, false)
		if err == nil && status.GetStatus().GetState() != runtimeapi.PodSandboxState_SANDBOX_READY {
			err = fmt.Errorf("sandbox is %s", status.GetStatus().GetState())
		}
		r.check(name+"/sandbox-ready after restart", err)
		readBack(" after restart")
	}
	r.endPod(ctx, name, rp)
}

func (r *run) restartContainerd(ctx context.Context) error {
	registrations := 0
	if r.nriLog != "" {
		var err error
		if registrations, err = r.configuredCount(); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", r.restart)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%q: %w", r.restart, err)
	}
	// The kubelet's client reconnects by itself; the CRI plugin answers once it has
	// recovered its sandboxes and containers.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := r.rt.Status(ctx, false)
		if err == nil && r.nriLog != "" {
			// The plugin redials by itself; the kubelet would not wait for it, but a pod
			// created before it is back runs without its limits (docs/nri.md).
			return r.waitReconfigured(registrations)
		}
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no CRI answer 30 s after the restart: %w", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

const writableKey = "podlimits.dev/writable-cgroups.container.delegate"

// A writable cgroup mount: on cgroup v2 with nsdelegate the container's /sys/fs/cgroup is rw,
// it can make a child cgroup, and the pod cgroup carries the descendant/depth bounds; anywhere
// else the pod is refused (seed 003).
func (r *run) writablePod(ctx context.Context) {
	const name = "writable-pod"
	p := newPod("delegating", map[string]string{writableKey: "true"}, sleeper("delegate"))
	if r.node.cgroupMode != "v2" || !r.node.nsdelegate {
		want := "CgroupOptions.MountMode=Writable requires cgroup v2"
		if r.node.cgroupMode == "v2" {
			want = "requires the cgroup2 filesystem to be mounted with nsdelegate"
		}
		r.refused(ctx, name, p, want)
		return
	}
	rp := r.startCase(ctx, name, p)
	if rp == nil {
		return
	}
	id := rp.containers["delegate"]
	stdout, stderr, err := r.rt.ExecSync(ctx, id, []string{"sh", "-c",
		`grep " /sys/fs/cgroup " /proc/self/mountinfo && mkdir /sys/fs/cgroup/child && rmdir /sys/fs/cgroup/child && echo made-child`}, 10*time.Second)
	if err == nil && (!strings.Contains(string(stdout), " rw,") || !strings.Contains(string(stdout), "made-child")) {
		err = fmt.Errorf("not a writable cgroup mount: %q %q", stdout, stderr)
	}
	r.check(name+"/mount-rw", err)
	for file, want := range map[string]string{"cgroup.max.descendants": "250", "cgroup.max.depth": "50"} {
		got, err := r.node.podCgroupFile(p, file)
		if err == nil && got != want {
			err = fmt.Errorf("pod cgroup %s %s, want %s", file, got, want)
		}
		r.check(name+"/"+file, err)
	}
	r.endPod(ctx, name, rp)
}

// refused: the pod cannot start, its error carries want, and once the kubelet has ended it
// nothing of it is left.
func (r *run) refused(ctx context.Context, name string, p *podSpec, want string) {
	rp, failure := startPod(ctx, r.rt, r.node, r.handler, p)
	var err error
	switch {
	case failure == nil:
		err = fmt.Errorf("the pod started")
	case !strings.Contains(failure.err.Error(), want):
		err = fmt.Errorf("%v; want the message %q", failure, want)
	case r.nriLog != "" && strings.Contains(failure.err.Error(), "podlimits-runc"):
		err = fmt.Errorf("%v; the NRI plugin refused, the message names podlimits-runc", failure)
	default:
		fmt.Printf("   %s: %v\n", name, failure)
	}
	r.check(name+"/refused", err)
	r.endPod(ctx, name, rp)
}

// Pods this node cannot honour, or whose annotations break the KEPs' rules (a node does not
// trust that every pod went through the webhook).
func (r *run) refusedPods(ctx context.Context) {
	r.refused(ctx, "ulimit-invalid", newPod("invalid", map[string]string{
		"ulimits.noderesource.dev/container.app": `[{"type":"RLIMIT_NOFILE","soft":4096,"hard":1024}]`}, sleeper("app")),
		`container "app" of pod default/invalid: metadata.annotations[ulimits.noderesource.dev/container.app]: securityContext.ulimits[0].soft: Invalid value: 4096: must be less than or equal to hard limit 1024`)
	if above := r.node.nofileCeiling + 1; above <= 1048576 {
		want := fmt.Sprintf("asks nofile %d, above this node's ceiling", above)
		if r.nriLog != "" {
			// A ceiling below fs.nr_open (1048576 here) is the node's own hard limit, which
			// only CAP_SYS_RESOURCE lifts; the plugin judges by its own and says so.
			want = fmt.Sprintf("asks nofile %d, above this node's ceiling %d: this node cannot raise a hard "+
				"rlimit above its own: the NRI plugin (podlimits nri) lacks CAP_SYS_RESOURCE", above, r.node.nofileCeiling)
		}
		r.refused(ctx, "ulimit-above-ceiling", newPod("ceiling", map[string]string{
			"ulimits.noderesource.dev/container.app": fmt.Sprintf(`[{"type":"RLIMIT_NOFILE","soft":1,"hard":%d}]`, above)}, sleeper("app")),
			want)
	}
	if r.node.cgroupMode == "v1" {
		r.refused(ctx, "pod-pid-limit-v1", newPod("pidlimit", map[string]string{"podlimits.dev/pod-pid-limit": "2048"}, sleeper("app")),
			"per-pod PID limit requires cgroupsv2, but this node is running cgroupsv1; pod pidlimit specifies spec.resources.limits.pid")
	}
}
