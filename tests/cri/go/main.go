// cri-pods: podlimits-runc, or `podlimits nri` (-nri-log: nri.go, compare.go), driven as a cluster
// drives it, through containerd's CRI plugin with the kubelet's own CRI client (k8s.io/cri-client's
// remote runtime and image services), in the kubelet's order of calls. Run by tests/cri/run, which starts the containerd and imports the
// images; this program is the kubelet: it makes the pod cgroups, calls the CRI and reads back
// what the node holds. Prints "ok CASE" per check and "cri: N passed, M failed".
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	internalapi "k8s.io/cri-api/pkg/apis"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	remote "k8s.io/cri-client/pkg"
)

type run struct {
	rt      internalapi.RuntimeService
	images  internalapi.ImageManagerService
	node    *node
	handler string
	restart string // a command that stops containerd and starts it again ("" skips the case)
	// The runtime is a runc with runc#4195: an exec'd process's soft NOFILE may be its hard one.
	runcExecNofileRace bool
	// With `podlimits nri` (nri.go): its log, and the command that stops or starts it (bench).
	nriLog string
	nriCtl string
	// Switches the registered plugin between podlimits and ulimit-adjuster (compare.go).
	compareCtl string
	passed     int
	failed     int
}

func (r *run) ok(name string) { r.passed++; fmt.Println("ok " + name) }
func (r *run) fail(name, format string, args ...any) {
	r.failed++
	fmt.Printf("FAIL %s: %s\n", name, fmt.Sprintf(format, args...))
}

// check records one named check: ok when err is nil.
func (r *run) check(name string, err error) bool {
	if err != nil {
		r.fail(name, "%v", err)
		return false
	}
	r.ok(name)
	return true
}

func main() {
	n := &node{}
	endpoint := flag.String("endpoint", "", "containerd's CRI socket (unix:///...)")
	r := &run{node: n}
	flag.StringVar(&r.handler, "handler", "podlimits", "the runtime handler (RuntimeClass handler)")
	flag.StringVar(&r.restart, "restart", "", "shell command that restarts containerd")
	flag.StringVar(&r.nriLog, "nri-log", "", "podlimits nri's log: the node enforces through the NRI plugin, not a runtime handler")
	flag.StringVar(&r.nriCtl, "nri-plugin-ctl", "", "command that takes stop or start for podlimits nri (-bench with -nri-log)")
	flag.StringVar(&r.compareCtl, "compare-ctl", "", "command that takes podlimits or ulimit-adjuster and leaves that plugin alone registered (-nri-log)")
	flag.BoolVar(&r.runcExecNofileRace, "runc-exec-nofile-race", false, "the runtime is a runc with runc#4195")
	flag.StringVar(&n.cgroupMode, "cgroup-mode", "v2", "v1 (the pids hierarchy of a v1/hybrid node) or v2")
	flag.BoolVar(&n.nsdelegate, "nsdelegate", false, "cgroup2 is mounted with nsdelegate")
	flag.StringVar(&n.hierarchy, "hierarchy", "/sys/fs/cgroup", "where the pod cgroups' hierarchy is mounted")
	others := flag.String("other-hierarchies", "", "comma-separated v1 hierarchies the pod cgroup is made in too")
	flag.StringVar(&n.base, "cgroup-base", "/kubepods", "the pod cgroups' parent in that hierarchy")
	flag.Int64Var(&n.podPidsLimit, "pod-pids-limit", 4096, "the kubelet's podPidsLimit")
	flag.StringVar(&n.image, "image", "docker.io/library/busybox:latest", "the containers' image")
	flag.StringVar(&n.logDir, "log-dir", "/tmp/cri-pods-logs", "the pods' log directories' parent")
	flag.StringVar(&n.stateDir, "state", "", "containerd's state directory")
	flag.StringVar(&n.containerdPid, "containerd-pid-file", "", "file with containerd's pid")
	flag.Int64Var(&n.nofileCeiling, "nofile-ceiling", 1048576, "the hard nofile this node's runtime may grant")
	timeout := flag.Duration("timeout", 90*time.Second, "for the whole run")
	benchPairs := flag.Int("bench", 0, "measure N pairs of CreateContainer+StartContainer (bench.go) instead of the checks")
	serveURL := flag.String("serve", "", "with -bench: podlimits serve's URL; N rounds of its create->Running against the CRI calls for the same pod (serve.go)")
	servePKI := flag.String("serve-pki", "", "podlimits serve's data directory's pki/ (ca.crt, admin.crt, admin.key)")
	flag.Parse()
	if *others != "" {
		n.otherHierarchies = strings.Split(*others, ",")
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var err error
	// The kubelet's connection: 2 minutes of connection timeout, no tracing, no list streaming.
	r.rt, err = remote.NewRemoteRuntimeService(ctx, *endpoint, 2*time.Minute, nil, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cri-pods:", err)
		os.Exit(2)
	}
	r.images, err = remote.NewRemoteImageService(ctx, *endpoint, 2*time.Minute, nil, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cri-pods:", err)
		os.Exit(2)
	}
	version, err := r.rt.Version(ctx, "v1")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cri-pods: Version:", err)
		os.Exit(2)
	}
	fmt.Printf("cri-pods: %s %s (CRI %s), handler %q, cgroup %s, nsdelegate %v\n",
		version.RuntimeName, version.RuntimeVersion, version.RuntimeApiVersion, r.handler, n.cgroupMode, n.nsdelegate)

	r.imagePresent(ctx)
	if *benchPairs > 0 {
		bench := r.bench
		if r.nriLog != "" {
			bench = r.benchNRI
		}
		if *serveURL != "" {
			bench = func(ctx context.Context, rounds int) error { return r.benchServe(ctx, rounds, *serveURL, *servePKI) }
		}
		if err := bench(ctx, *benchPairs); err != nil {
			fmt.Fprintln(os.Stderr, "cri-pods: bench:", err)
			os.Exit(1)
		}
		return
	}
	r.limitsPod(ctx)
	if r.nriLog != "" {
		if r.restart != "" {
			r.adjustedAfterRestart(ctx)
		}
		r.plainPod(ctx)
	}
	r.writablePod(ctx)
	r.refusedPods(ctx)
	if r.nriLog != "" && r.compareCtl != "" {
		r.compareWithAdjuster(ctx)
	}
	fmt.Printf("cri: %d passed, %d failed\n", r.passed, r.failed)
	if r.failed > 0 {
		os.Exit(1)
	}
}

// The kubelet asks ImageStatus before it pulls (imagePullPolicy IfNotPresent): the image was
// imported beforehand, no registry is reachable.
func (r *run) imagePresent(ctx context.Context) {
	status, err := r.images.ImageStatus(ctx, &runtimeapi.ImageSpec{Image: r.node.image}, false)
	if err == nil && status.GetImage() == nil {
		_, err = r.images.PullImage(ctx, &runtimeapi.ImageSpec{Image: r.node.image}, nil, nil)
	}
	r.check("image-present", err)
}
