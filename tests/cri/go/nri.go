package main

// With -nri-log (tests/cri/run's CRI_ENFORCEMENT=nri): `podlimits nri` registered on containerd's
// NRI socket, no runtime wrapper, no runtime handler. The cases of cases.go hold as they are (the
// plugin decides as the wrapper does); these are what only an NRI plugin needs shown: that it
// registers again after containerd restarts (NRI skips a plugin that is not there, so a pod made
// meanwhile would run without its limits), that the next pod is adjusted, that a pod without
// annotations is left exactly as the runtime makes it, and that a refusal names the plugin.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// configuredCount is how many times containerd has configured the plugin (one
// "configured by containerd ..." line per registration).
func (r *run) configuredCount() (int, error) {
	b, err := os.ReadFile(r.nriLog)
	if err != nil {
		return 0, err
	}
	return strings.Count(string(b), "configured by "), nil
}

// waitReconfigured waits until the plugin has been configured more than `before` times.
func (r *run) waitReconfigured(before int) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		n, err := r.configuredCount()
		if err != nil {
			return err
		}
		if n > before {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("podlimits nri was not configured again 15 s after the restart (%d registrations)", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pluginLogMentions: the plugin's log lines that name pod `name` (each adjustment and each
// refusal is logged with "of pod default/NAME").
func (r *run) pluginLogMentions(name string) ([]string, error) {
	b, err := os.ReadFile(r.nriLog)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "pod default/"+name+":") || strings.Contains(l, "pod default/"+name+" ") {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// The next pod after containerd's restart gets its limits (the plugin registered again).
func (r *run) adjustedAfterRestart(ctx context.Context) {
	const name = "after-restart-pod"
	p := newPod("after-restart", map[string]string{"ulimits.noderesource.dev/container.app": appUlimits}, sleeper("app"))
	rp := r.startCase(ctx, name, p)
	if rp == nil {
		return
	}
	r.check(name+"/app-limits", r.expectNofile(ctx, rp.containers["app"], appNofile, true))
	r.check(name+"/exec-sync-limits", r.execSyncNofile(ctx, rp.containers["app"]))
	r.endPod(ctx, name, rp)
}

// A pod without podlimits' annotations: the plugin changes nothing (it has no defaultUlimits
// here), so its container has the limits it inherits through runc and the shim from containerd,
// and the plugin's log does not name it.
func (r *run) plainPod(ctx context.Context) {
	const name = "plain-pod"
	p := newPod("plain", nil, sleeper("app"))
	rp := r.startCase(ctx, name, p)
	if rp == nil {
		return
	}
	err := func() error {
		pid, err := r.containerPid(ctx, rp.containers["app"])
		if err != nil {
			return err
		}
		limits, err := processLimits(pid)
		if err != nil {
			return err
		}
		root, err := r.node.containerdRoot()
		if err != nil {
			return err
		}
		own, err := os.ReadFile(root + "/limits")
		if err != nil {
			return err
		}
		for _, row := range []string{"Max open files", "Max core file size", "Max locked memory", "Max processes"} {
			// Hard limits only: Go (containerd, the shim, runc init) raises its own soft
			// NOFILE at start-up and restores it for the processes it starts.
			got, want := strings.Fields(limitRow(limits, row)), strings.Fields(limitRow(string(own), row))
			if len(got) != 2 || len(want) != 2 || got[1] != want[1] {
				return fmt.Errorf("/proc/%d/limits %s %v, containerd's %v", pid, row, got, want)
			}
		}
		return nil
	}()
	r.check(name+"/limits-as-containerd's", err)
	lines, err := r.pluginLogMentions("plain")
	if err == nil && len(lines) > 0 {
		err = fmt.Errorf("the plugin's log names the pod:\n  %s", strings.Join(lines, "\n  "))
	}
	r.check(name+"/not-in-plugin-log", err)
	r.endPod(ctx, name, rp)
}
