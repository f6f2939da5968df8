// The runtime side of `podlimits nri`, played by NRI's own code: github.com/containerd/nri's
// pkg/adaptation (Debian's golang-github-containerd-nri-dev), which containerd and CRI-O embed.
// An adaptation listens on a socket in a temporary directory, `podlimits nri` registers with it,
// and the program sends RunPodSandbox and CreateContainer for pods with and without podlimits'
// annotations as containerd would, checking each adjustment and refusal against a table. Then:
// the runtime restarts (the plugin registers again), and a hostile runtime sends a wrong method,
// an oversized frame and a truncated one (the plugin answers or drops the connection, says so
// once, and comes back).
//
//   nri-adaptation -podlimits BINARY [-v]
//
// Exit 0 when every case passed; 1 with one line per failure.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	nri "github.com/containerd/nri/pkg/adaptation"
	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/proto"
)

var (
	binary_ = flag.String("podlimits", "", "the podlimits binary")
	verbose = flag.Bool("v", false, "print each case")
	// The runtime runs in a child process of this program, so that a restart is what it is for
	// the plugin: the process holding the socket's other end exits (Adaptation.Stop leaves
	// external plugins' connections open).
	runtimePhase = flag.String("runtime", "", "internal: run the runtime side (first|again|adjuster) on -socket")
	socketFlag   = flag.String("socket", "", "internal: the NRI socket")
	adjuster     = flag.String("ulimit-adjuster", "", "NRI's sample ulimit-adjuster, run on the same pods beside podlimits")
	benchCreates = flag.Int("bench", 0, "also time this many CreateContainer calls with the plugin and as many without (no plugin registered)")
)

var failures []string

func fail(format string, args ...any) {
	failures = append(failures, fmt.Sprintf(format, args...))
}

// syncedBuffer is the plugin's stderr: its log, read while it runs.
type syncedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startAdaptation(dir, socket string) *nri.Adaptation {
	syncFn := func(ctx context.Context, cb nri.SyncCB) error {
		_, err := cb(ctx, nil, nil)
		return err
	}
	updateFn := func(context.Context, []*nri.ContainerUpdate) ([]*nri.ContainerUpdate, error) {
		return nil, nil
	}
	a, err := nri.New("podlimits-test-runtime", "0.0.1", syncFn, updateFn,
		nri.WithSocketPath(socket),
		nri.WithPluginPath(filepath.Join(dir, "plugins")),
		nri.WithPluginConfigPath(filepath.Join(dir, "conf.d")))
	if err != nil {
		fmt.Fprintln(os.Stderr, "nri.New:", err)
		os.Exit(2)
	}
	if err := a.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "adaptation Start:", err)
		os.Exit(2)
	}
	return a
}

const (
	ulimitsKey  = "ulimits.noderesource.dev/container.app"
	pidLimitKey = "podlimits.dev/pod-pid-limit"
)

func pod(id string, annotations map[string]string) *nri.PodSandbox {
	return &nri.PodSandbox{
		Id: id, Name: "web-" + id, Uid: "uid-" + id, Namespace: "default",
		Annotations: annotations, RuntimeHandler: "runc",
		Linux: &nri.LinuxPodSandbox{CgroupParent: "/kubepods/burstable/poduid-" + id},
	}
}

func container(p *nri.PodSandbox) *nri.Container {
	return &nri.Container{
		Id: p.Id + "-app", PodSandboxId: p.Id, Name: "app",
		Linux: &nri.LinuxContainer{
			CgroupsPath: p.Linux.CgroupParent + "/" + p.Id + "-app",
			Namespaces: []*nri.LinuxNamespace{{Type: "pid"}, {Type: "mount"}, {Type: "cgroup"}},
		},
	}
}

type rlimit struct {
	Type       string
	Soft, Hard uint64
}

func rlimitsOf(rpl *nri.CreateContainerResponse) []rlimit {
	var out []rlimit
	if rpl == nil || rpl.Adjust == nil {
		return out
	}
	for _, l := range rpl.Adjust.Rlimits {
		out = append(out, rlimit{l.Type, l.Soft, l.Hard})
	}
	return out
}

// waitRegistered sends a probe pod until the plugin's adjustment shows it registered.
func waitRegistered(a *nri.Adaptation, what string) bool {
	return waitRegisteredWith(a, what, ulimitsKey)
}

func waitRegisteredWith(a *nri.Adaptation, what, key string) bool {
	probe := pod("probe", map[string]string{key: "[{type: core, soft: 0, hard: 0}]"})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		rpl, err := a.CreateContainer(context.Background(),
			&nri.CreateContainerRequest{Pod: probe, Container: container(probe)})
		if err == nil && len(rlimitsOf(rpl)) > 0 {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	fail("%s: the plugin did not register within 10s", what)
	return false
}

// The node this runs on decides the answer to a pod PID limit: cgroup v2 needs a real pod
// cgroup (tests/e2e), v1 and hybrid are refused with seed 001's words.
func cgroupV2Only() bool {
	mounts, _ := os.ReadFile("/proc/mounts")
	for _, l := range strings.Split(string(mounts), "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && f[1] == "/sys/fs/cgroup" {
			return f[2] == "cgroup2"
		}
	}
	return false
}

func adaptationCases(a *nri.Adaptation) {
	ctx := context.Background()
	type createCase struct {
		name        string
		annotations map[string]string
		rlimits     []rlimit // expected adjustment
		refusal     string   // a substring of the error; "" when allowed
	}
	creates := []createCase{
		{"no podlimits annotation: only the node's defaults", nil,
			[]rlimit{{"RLIMIT_NOFILE", 4096, 8192}}, ""},
		{"ulimits from the webhook's annotation (nofile its own: no default)",
			map[string]string{ulimitsKey: "[{type: nofile, soft: 1024, hard: 2048}, {type: core, soft: 0, hard: 1024}]"},
			[]rlimit{{"RLIMIT_NOFILE", 1024, 2048}, {"RLIMIT_CORE", 0, 1024}}, ""},
		{"the default nofile beside the pod's own core",
			map[string]string{ulimitsKey: "[{type: core, soft: 0, hard: 0}]"},
			[]rlimit{{"RLIMIT_CORE", 0, 0}, {"RLIMIT_NOFILE", 4096, 8192}}, ""},
		{"soft above hard, as the webhook would refuse it",
			map[string]string{ulimitsKey: "[{type: nofile, soft: 10, hard: 5}]"}, nil,
			`container "app" of pod default/web-3: metadata.annotations[ulimits.noderesource.dev/container.app]: securityContext.ulimits[0].soft: Invalid value: 10: must be less than or equal to hard limit 5`},
		{"a ulimit outside the KEP's list",
			map[string]string{ulimitsKey: "[{type: nproc, soft: 1, hard: 1}]"}, nil,
			`securityContext.ulimits[0].name: Unsupported value: "nproc"`},
		{"a pod PID limit below the KEP's range",
			map[string]string{pidLimitKey: "100"}, nil,
			`metadata.annotations[podlimits.dev/pod-pid-limit]: `},
	}
	for i, c := range creates {
		p := pod(fmt.Sprint(i), c.annotations)
		rpl, err := a.CreateContainer(ctx, &nri.CreateContainerRequest{Pod: p, Container: container(p)})
		if *verbose {
			fmt.Printf("CreateContainer %-60q -> %v, %v\n", c.name, rlimitsOf(rpl), err)
		}
		switch {
		case c.refusal != "" && err == nil:
			fail("CreateContainer %q: allowed (%v), want refused with %q", c.name, rlimitsOf(rpl), c.refusal)
		case c.refusal != "" && !strings.Contains(err.Error(), c.refusal):
			fail("CreateContainer %q: refused with %q, want %q in it", c.name, err.Error(), c.refusal)
		case c.refusal == "" && err != nil:
			fail("CreateContainer %q: refused: %v", c.name, err)
		case c.refusal == "" && !reflect.DeepEqual(rlimitsOf(rpl), c.rlimits):
			fail("CreateContainer %q: rlimits %v, want %v", c.name, rlimitsOf(rpl), c.rlimits)
		}
	}

	// RunPodSandbox: a pod without a limit passes untouched; one with a PID limit on a v1 or
	// hybrid node passes too (containerd 2.x leaks a sandbox an NRI plugin fails: nri_plugin.cc)
	// and its container is refused with seed 001's message (on cgroup v2 it needs a real pod
	// cgroup).
	plain := pod("plain", nil)
	if err := a.RunPodSandbox(ctx, &nri.StateChangeEvent{Event: nri.Event_RUN_POD_SANDBOX, Pod: plain}); err != nil {
		fail("RunPodSandbox without annotations: %v", err)
	}
	limited := pod("limited", map[string]string{pidLimitKey: "2048"})
	err := a.RunPodSandbox(ctx, &nri.StateChangeEvent{Event: nri.Event_RUN_POD_SANDBOX, Pod: limited})
	if cgroupV2Only() {
		fmt.Println("RunPodSandbox with a PID limit: skipped on a cgroup v2 node (tests/e2e has the pod cgroup)")
	} else {
		want := "per-pod PID limit requires cgroupsv2, but this node is running cgroupsv1; pod web-limited specifies spec.resources.limits.pid"
		if err != nil {
			fail("RunPodSandbox with a PID limit on a cgroup v1/hybrid node: %v, want it left to the containers", err)
		}
		_, cerr := a.CreateContainer(ctx, &nri.CreateContainerRequest{Pod: limited, Container: container(limited)})
		if cerr == nil || !strings.Contains(cerr.Error(), want) {
			fail("CreateContainer with a PID limit on a cgroup v1/hybrid node: %v, want %q", cerr, want)
		}
		err = cerr
	}
	if *verbose {
		fmt.Printf("RunPodSandbox with a PID limit -> %v\n", err)
	}
}

// hostile plays a runtime that breaks the rules, on a listener at `socket`, once per case; the
// plugin must survive each and dial again.
func hostile(socket string, log *syncedBuffer) {
	os.Remove(socket)
	l, err := net.Listen("unix", socket)
	if err != nil {
		fail("listen %s: %v", socket, err)
		return
	}
	defer l.Close()
	frame := func(conn uint32, payload []byte) []byte {
		h := make([]byte, 8)
		binary.BigEndian.PutUint32(h[0:], conn)
		binary.BigEndian.PutUint32(h[4:], uint32(len(payload)))
		return append(h, payload...)
	}
	ttrpcMsg := func(stream uint32, typ byte, payload []byte) []byte {
		h := make([]byte, 10)
		binary.BigEndian.PutUint32(h[0:], uint32(len(payload)))
		binary.BigEndian.PutUint32(h[4:], stream)
		h[8] = typ
		return append(h, payload...)
	}
	accept := func(what string) net.Conn {
		l.(*net.UnixListener).SetDeadline(time.Now().Add(10 * time.Second))
		c, err := l.Accept()
		if err != nil {
			fail("%s: the plugin did not dial again: %v", what, err)
			return nil
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		return c
	}

	// 1. A method the plugin does not have: answered Unimplemented on its stream, ttrpc's words.
	if c := accept("wrong method"); c != nil {
		req, _ := proto.Marshal(&ttrpc.Request{Service: "nri.pkg.api.v1alpha1.Plugin", Method: "Frobnicate"})
		c.Write(frame(1, ttrpcMsg(1, 1, req)))
		var resp ttrpc.Response
		got := false
		for !got {
			hdr := make([]byte, 8)
			if _, err := io.ReadFull(c, hdr); err != nil {
				fail("wrong method: no answer: %v", err)
				break
			}
			body := make([]byte, binary.BigEndian.Uint32(hdr[4:]))
			io.ReadFull(c, body)
			if binary.BigEndian.Uint32(hdr[0:]) != 1 || len(body) < 10 {
				continue // the RegisterPlugin call on connection 2
			}
			if err := proto.Unmarshal(body[10:], &resp); err != nil {
				fail("wrong method: answer not a ttrpc Response: %v", err)
			}
			got = true
		}
		if got && (resp.Status.GetCode() != 12 || resp.Status.GetMessage() != "method Frobnicate") {
			fail("wrong method: answered %d %q, want 12 \"method Frobnicate\"", resp.Status.GetCode(), resp.Status.GetMessage())
		}
		c.Close()
	}
	// 2. An oversized frame: the plugin drops the connection and comes back.
	if c := accept("after the wrong method"); c != nil {
		h := make([]byte, 8)
		binary.BigEndian.PutUint32(h[0:], 1)
		binary.BigEndian.PutUint32(h[4:], 0xffffffff)
		c.Write(h)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.Copy(io.Discard, c); err != nil {
			fail("oversized frame: the plugin kept the connection: %v", err)
		}
		c.Close()
	}
	// The plugin's RegisterPlugin call, read before the runtime answers or goes away.
	readRegister := func(c net.Conn) {
		hdr := make([]byte, 8)
		if _, err := io.ReadFull(c, hdr); err == nil {
			io.ReadFull(c, make([]byte, binary.BigEndian.Uint32(hdr[4:])))
		}
	}
	// 3. A truncated frame, then the runtime goes away.
	if c := accept("after the oversized frame"); c != nil {
		readRegister(c)
		c.Write(frame(1, []byte{0, 0, 0, 100, 0, 0, 0, 1, 1, 0, 1, 2, 3})[:12])
		c.Close()
	}
	if c := accept("after the truncated frame"); c != nil {
		readRegister(c)
		c.Close()
	}
	time.Sleep(200 * time.Millisecond)
	text := log.String()
	for _, want := range []string{
		"NRI mux frame of 4294967295 bytes for connection 1: more than the 4194314 a frame may carry",
		"the runtime closed the NRI socket in the middle of a message (12 bytes of a truncated frame)",
	} {
		if n := strings.Count(text, want); n != 1 {
			fail("the plugin's log says %q %d times, want once:\n%s", want, n, text)
		}
	}
}

// The same pods for podlimits and NRI's ulimit-adjuster (0.8 reads the key podlimits keeps as
// deprecated, ulimits.nri.containerd.io/container.NAME): each outcome is written out for both,
// and where they differ the table says why.
const deprecatedKey = "ulimits.nri.containerd.io/container.app"

type outcome struct {
	Rlimits []rlimit
	Err     string
}

type compareCase struct {
	name      string
	ulimits   string // the annotation's value; "" for none
	podlimits outcome
	adjuster  outcome
	why       string // where they differ
}

// ceiling marks an expected nofile granted at this node's ceiling (node-dependent: fs.nr_open
// with CAP_SYS_RESOURCE, else the plugin's own hard limit): soft == hard > 0.
const ceiling = ^uint64(0) - 1

var compareCases = []compareCase{
	{"within every bound", "[{type: nofile, soft: 1024, hard: 2048}]",
		outcome{Rlimits: []rlimit{{"RLIMIT_NOFILE", 1024, 2048}}},
		outcome{Rlimits: []rlimit{{"RLIMIT_NOFILE", 1024, 2048}}}, ""},
	{"a pod that sets core only", "[{type: core, soft: 0, hard: 1024}]",
		outcome{Rlimits: []rlimit{{"RLIMIT_CORE", 0, 1024}, {"RLIMIT_NOFILE", 4096, 8192}}},
		outcome{Rlimits: []rlimit{{"RLIMIT_CORE", 0, 1024}}},
		"podlimits adds the node's defaultUlimits for what the pod leaves out"},
	{"no annotation", "",
		outcome{Rlimits: []rlimit{{"RLIMIT_NOFILE", 4096, 8192}}}, outcome{},
		"podlimits adds the node's defaultUlimits; ulimit-adjuster has none"},
	{"soft above hard", "[{type: nofile, soft: 10, hard: 5}]",
		outcome{Err: "must be less than or equal to hard limit 5"},
		outcome{Err: `ulimit "RLIMIT_NOFILE" must have hard limit >= soft limit`}, ""},
	{"-1, unlimited", "[{type: nofile, soft: -1, hard: -1}]",
		outcome{Rlimits: []rlimit{{"RLIMIT_NOFILE", ceiling, ceiling}}},
		outcome{Err: "cannot unmarshal number -1"},
		"the KEP's -1 is the node's ceiling for podlimits; ulimit-adjuster reads unsigned values only"},
	{"nofile above the KEP's 1048576", "[{type: nofile, soft: 1024, hard: 2000000}]",
		outcome{Err: "must be less than or equal to 1048576 (or -1 for unlimited)"},
		outcome{Rlimits: []rlimit{{"RLIMIT_NOFILE", 1024, 2000000}}},
		"ulimit-adjuster has no upper bound (the runtime then fails on the kernel's fs.nr_open)"},
	{"a ulimit outside the KEP's six", "[{type: nproc, soft: 1, hard: 1}]",
		outcome{Err: `Unsupported value: "nproc"`},
		outcome{Rlimits: []rlimit{{"RLIMIT_NPROC", 1, 1}}},
		"ulimit-adjuster takes every RLIMIT_*; the KEP allows core, memlock, nice, nofile, rtprio, stack"},
}

func compareOutcomes(a *nri.Adaptation) []outcome {
	var out []outcome
	for i, c := range compareCases {
		annotations := map[string]string{}
		if c.ulimits != "" {
			annotations[deprecatedKey] = c.ulimits
		}
		p := pod(fmt.Sprint("cmp", i), annotations)
		rpl, err := a.CreateContainer(context.Background(), &nri.CreateContainerRequest{Pod: p, Container: container(p)})
		o := outcome{Rlimits: rlimitsOf(rpl)}
		if err != nil {
			o = outcome{Err: err.Error()}
		}
		out = append(out, o)
	}
	return out
}

func matches(got, want outcome) bool {
	if want.Err != "" || got.Err != "" {
		return want.Err != "" && strings.Contains(got.Err, want.Err)
	}
	if len(got.Rlimits) != len(want.Rlimits) {
		return false
	}
	for i, w := range want.Rlimits {
		g := got.Rlimits[i]
		if w.Soft == ceiling {
			if g.Type != w.Type || g.Soft != g.Hard || g.Soft == 0 {
				return false
			}
		} else if g != w {
			return false
		}
	}
	return true
}

func (o outcome) String() string {
	if o.Err != "" {
		return "refused"
	}
	if len(o.Rlimits) == 0 {
		return "nothing"
	}
	var parts []string
	for _, l := range o.Rlimits {
		parts = append(parts, fmt.Sprintf("%s=%d:%d", strings.TrimPrefix(l.Type, "RLIMIT_"), l.Soft, l.Hard))
	}
	return strings.Join(parts, " ")
}

func writeOutcomes(file string, outcomes []outcome) {
	b, _ := json.Marshal(outcomes)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		fail("write %s: %v", file, err)
	}
}

func readOutcomes(file string) []outcome {
	var out []outcome
	b, err := os.ReadFile(file)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil || len(out) != len(compareCases) {
		fail("the outcomes in %s: %v", file, err)
		return nil
	}
	return out
}

func compare(dir string) {
	mine, theirs := readOutcomes(filepath.Join(dir, "podlimits.json")), readOutcomes(filepath.Join(dir, "adjuster.json"))
	if mine == nil || theirs == nil {
		return
	}
	fmt.Printf("%-32s %-36s %-28s %s\n", "the same pod", "podlimits nri", "ulimit-adjuster", "why they differ")
	for i, c := range compareCases {
		if !matches(mine[i], c.podlimits) {
			fail("beside ulimit-adjuster, %q: podlimits gave %+v, want %+v", c.name, mine[i], c.podlimits)
		}
		if !matches(theirs[i], c.adjuster) {
			fail("beside podlimits, %q: ulimit-adjuster gave %+v, want %+v", c.name, theirs[i], c.adjuster)
		}
		fmt.Printf("%-32s %-36s %-28s %s\n", c.name, mine[i], theirs[i], c.why)
	}
}

// bench times CreateContainer through the adaptation for a pod with ulimits: NRI's own cost
// (ttrpc, protobuf, merging the adjustment) plus the plugin's decision. Without a plugin it is
// the adaptation's cost alone.
func bench(a *nri.Adaptation, what string) {
	p := pod("bench", map[string]string{ulimitsKey: "[{type: nofile, soft: 1024, hard: 2048}]"})
	var times []time.Duration
	for i := 0; i < *benchCreates; i++ {
		c := container(p)
		c.Id = fmt.Sprint("bench-", i)
		began := time.Now()
		if _, err := a.CreateContainer(context.Background(), &nri.CreateContainerRequest{Pod: p, Container: c}); err != nil {
			fail("bench: %v", err)
			return
		}
		times = append(times, time.Since(began))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	fmt.Printf("CreateContainer %s: %d calls, median %v, p90 %v, p99 %v\n", what, len(times),
		times[len(times)/2], times[len(times)*9/10], times[len(times)*99/100])
}

// runtime is one life of the runtime: a child process that serves the socket, runs its
// phase's cases and exits.
func runtime(phase, socket string) {
	dir := filepath.Dir(socket)
	a := startAdaptation(dir, socket)
	switch phase {
	case "first":
		if waitRegistered(a, "first start") {
			adaptationCases(a)
			writeOutcomes(filepath.Join(dir, "podlimits.json"), compareOutcomes(a))
			if *benchCreates > 0 {
				bench(a, "with podlimits nri")
			}
		}
	case "bare":
		bench(a, "without a plugin")
	case "adjuster":
		// ulimit-adjuster is launched by the adaptation itself from its plugin directory.
		if waitRegisteredWith(a, "ulimit-adjuster", deprecatedKey) {
			writeOutcomes(filepath.Join(dir, "adjuster.json"), compareOutcomes(a))
		}
	case "again":
		if waitRegistered(a, "after the runtime restarted") {
			p := pod("again", map[string]string{ulimitsKey: "[{type: nofile, soft: 2048, hard: 2048}]"})
			rpl, err := a.CreateContainer(context.Background(), &nri.CreateContainerRequest{Pod: p, Container: container(p)})
			if want := []rlimit{{"RLIMIT_NOFILE", 2048, 2048}}; err != nil || !reflect.DeepEqual(rlimitsOf(rpl), want) {
				fail("after the restart: %v, %v; want %v", rlimitsOf(rpl), err, want)
			}
		}
	}
	for _, f := range failures {
		fmt.Println("FAIL:", f)
	}
	if len(failures) > 0 {
		os.Exit(1)
	}
	os.Exit(0)
}

func copyFile(from, to string) {
	if b, err := os.ReadFile(from); err == nil {
		os.WriteFile(to, b, 0o644)
	}
}

func main() {
	flag.Parse()
	if *runtimePhase != "" {
		runtime(*runtimePhase, *socketFlag)
	}
	if *binary_ == "" {
		fmt.Fprintln(os.Stderr, "usage: nri-adaptation -podlimits BINARY [-v]")
		os.Exit(2)
	}
	began := time.Now()
	dir, err := os.MkdirTemp("", "podlimits-nri-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer os.RemoveAll(dir)
	socket := filepath.Join(dir, "nri.sock")
	config := filepath.Join(dir, "nri.yaml")
	os.WriteFile(config, []byte("pluginIndex: \"10\"\ndefaultUlimits:\n  - {name: nofile, soft: 4096, hard: 8192}\n"), 0o644)

	log := &syncedBuffer{}
	plugin := exec.Command(*binary_, "nri", "--socket", socket, "--config", config)
	plugin.Stderr = log
	if err := plugin.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "start podlimits nri:", err)
		os.Exit(2)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		plugin.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- plugin.Wait() }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			plugin.Process.Kill()
			fail("podlimits nri did not stop within 5s of SIGINT")
		}
	}
	defer stop()

	// The plugin starts before the runtime (it waits for the socket), the runtime restarts once.
	for _, phase := range []string{"first", "again"} {
		child := exec.Command(os.Args[0], "-runtime", phase, "-socket", socket, fmt.Sprintf("-v=%v", *verbose),
			fmt.Sprintf("-bench=%d", *benchCreates))
		out, err := child.Output()
		if *verbose || err != nil || *benchCreates > 0 {
			fmt.Print(string(out))
		}
		if err != nil {
			fail("the runtime's %q life: %v", phase, err)
		}
	}
	hostile(socket, log)
	stop()
	if *benchCreates > 0 {
		// The same calls on a runtime with no plugin at all.
		bare := filepath.Join(dir, "bare")
		os.MkdirAll(bare, 0o755)
		out, err := exec.Command(os.Args[0], "-runtime", "bare", "-socket", filepath.Join(bare, "nri.sock"),
			fmt.Sprintf("-bench=%d", *benchCreates)).Output()
		fmt.Print(string(out))
		if err != nil {
			fail("the bare runtime: %v", err)
		}
	}

	if *adjuster != "" {
		// The other runtime: its own directory and socket, ulimit-adjuster in its plugin
		// directory (NRI's index-name form), launched and registered by the adaptation.
		other := filepath.Join(dir, "adjuster")
		os.MkdirAll(filepath.Join(other, "plugins"), 0o755)
		if err := os.Symlink(*adjuster, filepath.Join(other, "plugins", "10-ulimit-adjuster")); err != nil {
			fail("install ulimit-adjuster: %v", err)
		}
		child := exec.Command(os.Args[0], "-runtime", "adjuster", "-socket", filepath.Join(other, "nri.sock"))
		out, err := child.Output()
		if err != nil {
			fmt.Print(string(out))
			fail("the ulimit-adjuster runtime: %v", err)
		}
		copyFile(filepath.Join(other, "adjuster.json"), filepath.Join(dir, "adjuster.json"))
		compare(dir)
	}

	if *verbose {
		fmt.Print("--- podlimits nri's log ---\n", log.String())
	}
	for _, f := range failures {
		fmt.Println("FAIL:", f)
	}
	fmt.Printf("nri-adaptation: %d failure(s), %.1fs\n", len(failures), time.Since(began).Seconds())
	if len(failures) > 0 {
		os.Exit(1)
	}
}
