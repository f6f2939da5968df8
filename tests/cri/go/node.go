package main

// The node's side of a pod as this program plays the kubelet: the pod cgroup it makes before
// RunPodSandbox (cgroupfs driver: <base>/pod<uid>, with the node's podPidsLimit), and what it
// reads back from the node afterwards: pids.max and the bounds of the pod cgroup, a process's
// /proc/<pid>/limits, and whatever a removed pod could have left (cgroups, processes, bundles,
// mounts, runtime state).

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

type node struct {
	cgroupMode string // v1 (the pids hierarchy of a v1/hybrid host) or v2
	nsdelegate bool
	hierarchy  string // where the pod cgroups' hierarchy is mounted here
	// Other v1 hierarchies the runtime puts containers in (devices: the CRI plugin always
	// writes device rules); the kubelet makes the pod cgroup in each.
	otherHierarchies []string
	base             string // the pod cgroups' parent, relative to the hierarchy
	podPidsLimit     int64  // the kubelet's podPidsLimit, written to each pod cgroup
	image            string
	logDir           string
	stateDir         string // containerd's state directory (the shims' bundles)
	containerdPid    string // file holding containerd's pid (its mount namespace holds /run)
	nofileCeiling    int64  // the hard nofile this node's runtime may grant
}

func (n *node) podCgroup(p *podSpec) string { return n.base + "/pod" + p.uid }
func (n *node) podCgroupDir(p *podSpec) string {
	return filepath.Join(n.hierarchy, n.podCgroup(p))
}
func (n *node) podCgroupDirs(p *podSpec) []string {
	dirs := []string{n.podCgroupDir(p)}
	for _, h := range n.otherHierarchies {
		dirs = append(dirs, filepath.Join(h, n.podCgroup(p)))
	}
	return dirs
}

// makePodCgroup is the kubelet's pod container manager before a sandbox: the cgroup and its
// pids.max.
func (n *node) makePodCgroup(p *podSpec) error {
	for _, dir := range n.podCgroupDirs(p) {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(n.podCgroupDir(p), "pids.max"), []byte(strconv.FormatInt(n.podPidsLimit, 10)), 0o644)
}

// removePodCgroup is the kubelet's cleanup after the pod's removal; a child cgroup the runtime
// left behind is reported (the kernel would refuse the removal with EBUSY).
func (n *node) removePodCgroup(p *podSpec) error {
	for _, dir := range n.podCgroupDirs(p) {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			continue
		}
		if left := childCgroups(dir); len(left) > 0 {
			for i, l := range left {
				procs, _ := os.ReadFile(filepath.Join(l, "cgroup.procs"))
				left[i] = fmt.Sprintf("%s (processes: %q)", l, strings.Fields(string(procs)))
			}
			return fmt.Errorf("cgroups left below the pod cgroup: %v", left)
		}
		if err := os.Remove(dir); err != nil {
			return err
		}
	}
	return nil
}

func childCgroups(dir string) []string {
	var left []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && path != dir {
			left = append(left, path)
		}
		return nil
	})
	return left
}

func (n *node) podCgroupFile(p *podSpec, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(n.podCgroupDir(p), name))
	return strings.TrimSpace(string(b)), err
}

// limitRow reads "soft hard" of one row ("Max open files") of a /proc/<pid>/limits text.
func limitRow(limits, row string) string {
	for _, line := range strings.Split(limits, "\n") {
		if strings.HasPrefix(line, row) {
			f := strings.Fields(line[len(row):])
			if len(f) >= 2 {
				return f[0] + " " + f[1]
			}
		}
	}
	return ""
}

func processLimits(pid int64) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	return string(b), err
}

func (n *node) containerdRoot() (string, error) {
	b, err := os.ReadFile(n.containerdPid)
	if err != nil {
		return "", err
	}
	return "/proc/" + strings.TrimSpace(string(b)), nil
}

// leftovers lists what a removed pod left on the node: cgroups below its pod cgroup, processes
// in it, a shim or bundle named by one of its ids, a mount naming one, runc state for one.
func (n *node) leftovers(p *podSpec, ids []string) []string {
	var left []string
	dir := n.podCgroupDir(p)
	for _, d := range n.podCgroupDirs(p) {
		left = append(left, childCgroups(d)...)
	}
	if procs, err := os.ReadFile(filepath.Join(dir, "cgroup.procs")); err == nil && len(strings.TrimSpace(string(procs))) > 0 {
		left = append(left, "processes in the pod cgroup: "+strings.Join(strings.Fields(string(procs)), " "))
	}
	named := func(s string) string {
		for _, id := range ids {
			if strings.Contains(s, id) {
				return id
			}
		}
		return ""
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range procs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		if id := named(cmd); id != "" {
			left = append(left, fmt.Sprintf("process %s: %s", filepath.Base(filepath.Dir(f)), cmd))
		}
	}
	bundles, _ := filepath.Glob(filepath.Join(n.stateDir, "io.containerd.runtime.v2.task", "*", "*"))
	for _, b := range bundles {
		if named(b) != "" {
			left = append(left, "bundle "+b)
		}
	}
	if root, err := n.containerdRoot(); err == nil {
		if mi, err := os.ReadFile(root + "/mountinfo"); err == nil {
			for _, line := range strings.Split(string(mi), "\n") {
				if named(line) != "" {
					left = append(left, "mount "+line)
				}
			}
		}
		states, _ := filepath.Glob(root + "/root/run/containerd/runc/*/*")
		for _, s := range states {
			if named(s) != "" {
				left = append(left, "runc state "+s)
			}
		}
	}
	return left
}
