package main

// -bench N with -serve URL: `podlimits serve`'s whole create -> Running of a pod against the
// runtime half a kubelet asks of containerd for the same pod, side by side on one node, from one
// client process (tests/e2e/tests/serve-vs-cri.sh runs it in the cgroup v2 guest).
//
//   - serve: from just before the POST of a one-container busybox pod (host network, as the CRI
//     side's) to the watch event that shows it Running with its container ready (one watch over
//     the namespace, opened first). That is the API round trip, admission, storage, the node's
//     pod worker, the pod cgroup, the runtime's create and start, the read-back and the status
//     write. Then DELETE and wait until GET says 404, untimed.
//   - cri: RunPodSandbox + CreateContainer + StartContainer on the kubelet's own CRI client, the
//     same pod and command, containerd's default handler. The kubelet's own work around them
//     (the pod cgroup, made here untimed; the API server; status) is not in it. Then
//     StopContainer, StopPodSandbox, RemoveContainer, RemovePodSandbox, untimed.
//
// One untimed warm-up pod on each side, then N rounds, the order inside a round alternating.

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

type serveClient struct {
	base   string
	client *http.Client // requests: one keep-alive connection, as a controller's client holds

	mu    sync.Mutex
	ready map[string]chan time.Time // pod name -> when the watch first saw it Running and ready
}

// newServeClient connects as the admin user with the certificates `podlimits serve` wrote to
// its data directory's pki/.
func newServeClient(base, pki string) (*serveClient, error) {
	ca, err := os.ReadFile(filepath.Join(pki, "ca.crt"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("%s: no certificate", filepath.Join(pki, "ca.crt"))
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(pki, "admin.crt"), filepath.Join(pki, "admin.key"))
	if err != nil {
		return nil, err
	}
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}
	return &serveClient{base: base, client: &http.Client{Transport: transport}, ready: map[string]chan time.Time{}}, nil
}

func (s *serveClient) call(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var reader io.Reader
	if body != nil {
		encoded, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		reader = bytes.NewReader(encoded)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, reader)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// expect registers a pod name before its POST, so that the watch's event cannot come first.
func (s *serveClient) expect(name string) chan time.Time {
	ch := make(chan time.Time, 1)
	s.mu.Lock()
	s.ready[name] = ch
	s.mu.Unlock()
	return ch
}

type podEvent struct {
	Object struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Status struct {
			Phase             string `json:"phase"`
			ContainerStatuses []struct {
				Ready bool `json:"ready"`
			} `json:"containerStatuses"`
		} `json:"status"`
	} `json:"object"`
}

// watch reads the namespace's pod events until ctx ends, and stamps each expected pod's first
// Running-and-ready event. started is closed once the server answered the watch.
func (s *serveClient) watch(ctx context.Context, started chan<- error) {
	req, err := http.NewRequestWithContext(ctx, "GET", s.base+"/api/v1/namespaces/default/pods?watch=1", nil)
	if err != nil {
		started <- err
		return
	}
	req.Header.Set("Accept", "application/json")
	// Its own connection: the request connection stays free for POST and DELETE.
	resp, err := (&http.Client{Transport: s.client.Transport.(*http.Transport).Clone()}).Do(req)
	if err != nil {
		started <- err
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		started <- fmt.Errorf("watch: HTTP %d", resp.StatusCode)
		return
	}
	close(started)
	decoder := json.NewDecoder(resp.Body)
	for {
		var ev podEvent
		if err := decoder.Decode(&ev); err != nil {
			return // the run is over (ctx cancelled) or the server ended the watch
		}
		at := time.Now()
		st := ev.Object.Status
		if st.Phase != "Running" || len(st.ContainerStatuses) == 0 || !st.ContainerStatuses[0].Ready {
			continue
		}
		s.mu.Lock()
		if ch, ok := s.ready[ev.Object.Metadata.Name]; ok {
			ch <- at
			delete(s.ready, ev.Object.Metadata.Name)
		}
		s.mu.Unlock()
	}
}

// servePod is bench/serve_api.py's pod, on the host network as the CRI side's sandbox is.
func servePod(name string) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"terminationGracePeriodSeconds": 5, "dnsPolicy": "Default", "hostNetwork": true,
			"containers": []any{map[string]any{
				"name": "app", "image": "busybox:latest", "command": sleeper("app").command,
			}},
		},
	}
}

// createUntilRunning is the serve side's timed part.
func (s *serveClient) createUntilRunning(ctx context.Context, name string) (time.Duration, error) {
	ready := s.expect(name)
	t0 := time.Now()
	status, body, err := s.call(ctx, "POST", "/api/v1/namespaces/default/pods", servePod(name))
	if err != nil {
		return 0, fmt.Errorf("POST %s: %w", name, err)
	}
	if status != http.StatusCreated {
		return 0, fmt.Errorf("POST %s: HTTP %d: %.300s", name, status, body)
	}
	select {
	case at := <-ready:
		return at.Sub(t0), nil
	case <-time.After(120 * time.Second):
		return 0, fmt.Errorf("%s not Running and ready within 120 s", name)
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// deleteAndWait deletes the pod and waits until the API no longer has it (the node stopped it).
func (s *serveClient) deleteAndWait(ctx context.Context, name string) error {
	path := "/api/v1/namespaces/default/pods/" + name
	if status, body, err := s.call(ctx, "DELETE", path, nil); err != nil || status != http.StatusOK {
		return fmt.Errorf("DELETE %s: HTTP %d %v: %.300s", name, status, err, body)
	}
	deadline := time.Now().Add(120 * time.Second)
	for time.Now().Before(deadline) {
		status, _, err := s.call(ctx, "GET", path, nil)
		if err != nil {
			return err
		}
		if status == http.StatusNotFound {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s still there 120 s after its DELETE", name)
}

// criRunPod is the CRI side's timed part; the pod cgroup is made before the clock starts, and
// the pod is stopped and removed after it stopped.
func (r *run) criRunPod(ctx context.Context, name string) (time.Duration, error) {
	p := newPod(name, nil, sleeper("app"))
	if err := r.node.makePodCgroup(p); err != nil {
		return 0, err
	}
	rp := &runningPod{spec: p, containers: map[string]string{}}
	defer stopPod(context.Background(), r.rt, r.node, rp)
	sandboxConfig := r.node.sandboxConfig(p)
	t0 := time.Now()
	id, err := r.rt.RunPodSandbox(ctx, sandboxConfig, r.handler)
	if err != nil {
		return 0, fmt.Errorf("RunPodSandbox: %w", err)
	}
	rp.sandboxID = id
	cid, err := r.rt.CreateContainer(ctx, id, r.node.containerConfig(p, p.containers[0]), sandboxConfig)
	if err != nil {
		return 0, fmt.Errorf("CreateContainer: %w", err)
	}
	rp.containers["app"] = cid
	if err := r.rt.StartContainer(ctx, cid); err != nil {
		return 0, fmt.Errorf("StartContainer: %w", err)
	}
	return time.Since(t0), nil
}

func (r *run) benchServe(ctx context.Context, rounds int, serveURL, pki string) error {
	s, err := newServeClient(serveURL, pki)
	if err != nil {
		return err
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	started := make(chan error, 1)
	go s.watch(watchCtx, started)
	if err := <-started; err != nil {
		return err
	}

	const serve, cri = "serve", "cri"
	side := func(which string, i int) (time.Duration, error) {
		if which == serve {
			name := fmt.Sprintf("serve-bench-%d", i)
			took, err := s.createUntilRunning(ctx, name)
			if derr := s.deleteAndWait(ctx, name); err == nil {
				err = derr
			}
			return took, err
		}
		return r.criRunPod(ctx, fmt.Sprintf("cri-bench-%d", i))
	}
	// The first pod on each side pays for what is cached afterwards (the snapshot's unpacking,
	// the image's config, the runtime's first exec from disk).
	for _, which := range []string{serve, cri} {
		took, err := side(which, -1)
		if err != nil {
			return fmt.Errorf("%s warm-up: %w", which, err)
		}
		fmt.Printf("bench: warm-up %s %s ms (not counted)\n", which, ms(took))
	}
	sides := []string{serve, cri}
	times := map[string][]time.Duration{}
	var diffs []time.Duration
	for i := 0; i < rounds; i++ {
		order := sides
		if i%2 == 1 {
			order = []string{cri, serve}
		}
		took := map[string]time.Duration{}
		for _, which := range order {
			if took[which], err = side(which, i); err != nil {
				return fmt.Errorf("%s, round %d: %w", which, i, err)
			}
			times[which] = append(times[which], took[which])
		}
		fmt.Printf("bench: round %d serve %s ms, cri %s ms\n", i, ms(took[serve]), ms(took[cri]))
		diffs = append(diffs, took[serve]-took[cri])
	}
	report("create->Running vs RunPodSandbox+CreateContainer+StartContainer", sides, times, diffs)
	sorted := func(t []time.Duration) []time.Duration {
		sort.Slice(t, func(a, b int) bool { return t[a] < t[b] })
		return t
	}
	fmt.Printf("bench: serve / cri: median %.3f, p90 %.3f\n",
		float64(quantile(sorted(times[serve]), 0.5))/float64(quantile(sorted(times[cri]), 0.5)),
		float64(quantile(sorted(times[serve]), 0.9))/float64(quantile(sorted(times[cri]), 0.9)))
	return nil
}
