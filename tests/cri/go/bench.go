package main

// -bench N: what the runtime handler "podlimits" adds to a container's start as the kubelet
// sees it, CreateContainer + StartContainer measured on the CRI client, against the node's plain
// runc handler ("runc", the runtime the snippet's handler wraps). One pod per handler with the
// same annotations (ulimits for container "app": with "podlimits" the wrapper rewrites the spec,
// runs the runtime as a child and reads /proc/<init>/limits back; "runc" gets no annotation
// through, as the snippet lists pod_annotations for "podlimits" alone). N pairs, interleaved,
// the order inside a pair alternating; each container is stopped and removed untimed before the
// next pair. Prints the median, p90 and min of each, and the median of the per-pair differences.
// Then the same for ExecSync of `true` into one running container per pod (what an exec probe
// costs): with "podlimits" the exec goes through the full wrapper and the runtime's `state`
// (exec_limits.h).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"time"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

func quantile(sorted []time.Duration, q float64) time.Duration {
	return sorted[int(q*float64(len(sorted)-1)+0.5)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) }

func (r *run) bench(ctx context.Context, pairs int) error {
	handlers := []string{r.handler, "runc"}
	pods := map[string]*runningPod{}
	configs := map[string]*runtimeapi.PodSandboxConfig{}
	defer func() {
		for _, rp := range pods {
			stopPod(context.Background(), r.rt, r.node, rp)
		}
	}()
	for _, h := range handlers {
		p := newPod("bench-"+h, map[string]string{"ulimits.noderesource.dev/container.app": appUlimits})
		rp, failure := startPod(ctx, r.rt, r.node, h, p)
		pods[h] = rp
		if failure != nil {
			return fmt.Errorf("handler %s: %v", h, failure)
		}
		configs[h] = r.node.sandboxConfig(p)
	}
	times := map[string][]time.Duration{}
	var diffs []time.Duration
	for i := 0; i < pairs; i++ {
		order := handlers
		if i%2 == 1 {
			order = []string{handlers[1], handlers[0]}
		}
		took := map[string]time.Duration{}
		for _, h := range order {
			rp := pods[h]
			c := sleeper("app")
			config := r.node.containerConfig(rp.spec, c)
			config.Metadata.Attempt = uint32(i)
			t0 := time.Now()
			id, err := r.rt.CreateContainer(ctx, rp.sandboxID, config, configs[h])
			if err == nil {
				err = r.rt.StartContainer(ctx, id)
			}
			took[h] = time.Since(t0)
			if id != "" {
				r.rt.StopContainer(ctx, id, 0)
				r.rt.RemoveContainer(ctx, id)
			}
			if err != nil {
				return fmt.Errorf("handler %s, pair %d: %w", h, i, err)
			}
			times[h] = append(times[h], took[h])
		}
		diffs = append(diffs, took[handlers[0]]-took[handlers[1]])
	}
	report("CreateContainer+StartContainer", handlers, times, diffs)

	running := map[string]string{}
	for _, h := range handlers {
		rp := pods[h]
		id, err := r.rt.CreateContainer(ctx, rp.sandboxID, r.node.containerConfig(rp.spec, sleeper("app")), configs[h])
		if err == nil {
			err = r.rt.StartContainer(ctx, id)
		}
		if err != nil {
			return fmt.Errorf("handler %s: the exec container: %w", h, err)
		}
		rp.containers["app"] = id
		running[h] = id
	}
	times = map[string][]time.Duration{}
	diffs = nil
	for i := 0; i < pairs; i++ {
		order := handlers
		if i%2 == 1 {
			order = []string{handlers[1], handlers[0]}
		}
		took := map[string]time.Duration{}
		for _, h := range order {
			t0 := time.Now()
			_, stderr, err := r.rt.ExecSync(ctx, running[h], []string{"true"}, 10*time.Second)
			took[h] = time.Since(t0)
			if err != nil {
				return fmt.Errorf("handler %s, ExecSync %d: %w (%q)", h, i, err, stderr)
			}
			times[h] = append(times[h], took[h])
		}
		diffs = append(diffs, took[handlers[0]]-took[handlers[1]])
	}
	report("ExecSync true", handlers, times, diffs)
	return nil
}

// report prints each column's median, p90 and min and the per-pair differences; a column is a
// runtime handler, or with the NRI plugin ("nri") or without it ("none").
func report(what string, handlers []string, times map[string][]time.Duration, diffs []time.Duration) {
	for _, h := range handlers {
		t := times[h]
		sort.Slice(t, func(a, b int) bool { return t[a] < t[b] })
		fmt.Printf("bench: %-17s %s median %s ms, p90 %s ms, min %s ms (n=%d)\n",
			h, what, ms(quantile(t, 0.5)), ms(quantile(t, 0.9)), ms(t[0]), len(t))
	}
	sort.Slice(diffs, func(a, b int) bool { return diffs[a] < diffs[b] })
	a, b := quantile(times[handlers[0]], 0.5), quantile(times[handlers[1]], 0.5)
	fmt.Printf("bench: %s, %s - %s per pair: median %s ms (p10 %s, p90 %s); ratio of medians %.3f\n",
		what, handlers[0], handlers[1], ms(quantile(diffs, 0.5)), ms(quantile(diffs, 0.1)), ms(quantile(diffs, 0.9)),
		float64(a)/float64(b))
}

// benchNRI (-bench with -nri-log): what `podlimits nri` adds to a container's start, on one
// containerd and one pod (ulimits for container "app"), with the plugin registered against
// without it (NRI on, no plugin: containerd 2's default, and 1.7 with deploy/nri's snippet).
// The plugin is stopped or started (untimed) between the two halves of each pair, the order
// inside a pair alternating, so each pair needs one toggle. Every container's nofile is read back
// (untimed), so a "with" that the plugin missed, or a "without" it saw, fails the run.
func (r *run) benchNRI(ctx context.Context, pairs int) error {
	toggle := func(to string) error {
		cmd := exec.CommandContext(ctx, r.nriCtl, to)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s %s: %w", r.nriCtl, to, err)
		}
		return nil
	}
	p := newPod("bench-nri", map[string]string{"ulimits.noderesource.dev/container.app": appUlimits})
	rp, failure := startPod(ctx, r.rt, r.node, r.handler, p)
	defer stopPod(context.Background(), r.rt, r.node, rp)
	if failure != nil {
		return failure
	}
	sandboxConfig := r.node.sandboxConfig(p)
	const with, without = "nri", "none"
	states := []string{with, without}
	registered := true // tests/cri/run started it
	times := map[string][]time.Duration{}
	var diffs []time.Duration
	for i := 0; i < pairs; i++ {
		order := states
		if i%2 == 1 {
			order = []string{without, with}
		}
		took := map[string]time.Duration{}
		for _, state := range order {
			if want := state == with; want != registered {
				if err := toggle(map[bool]string{true: "start", false: "stop"}[want]); err != nil {
					return err
				}
				registered = want
			}
			config := r.node.containerConfig(p, sleeper("app"))
			config.Metadata.Attempt = uint32(i)
			t0 := time.Now()
			id, err := r.rt.CreateContainer(ctx, rp.sandboxID, config, sandboxConfig)
			if err == nil {
				err = r.rt.StartContainer(ctx, id)
			}
			took[state] = time.Since(t0)
			if err == nil {
				err = r.expectNofile(ctx, id, appNofile, state == with)
			}
			if id != "" {
				r.rt.StopContainer(ctx, id, 0)
				r.rt.RemoveContainer(ctx, id)
			}
			if err != nil {
				return fmt.Errorf("%s, pair %d: %w", state, i, err)
			}
			times[state] = append(times[state], took[state])
		}
		diffs = append(diffs, took[with]-took[without])
	}
	if !registered {
		if err := toggle("start"); err != nil {
			return err
		}
	}
	report("CreateContainer+StartContainer", states, times, diffs)
	return nil
}
