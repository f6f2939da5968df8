// Command informer-sync measures how long a client-go informer with client-go's default
// settings (watch-list: the initial state as a watch's ADDED events, then the initial-events-end
// bookmark) takes to sync against `podlimits serve` holding many pods, in JSON and in protobuf,
// side by side, round after round (issue 31: "an informer's initial sync of 1,000 pods with
// watch-list <= 50 ms"). Run by bench/informer_sync.sh, which starts serve.
//
//	informer-sync -kubeconfig FILE [-pods 1000] [-rounds 9] [-only json|protobuf] [-floor [-floor-keep DIR]]
//
// The pods are created once (a nodeSelector no node matches keeps them Pending and the node
// idle), each round starts a fresh informer factory per encoding and times Start ->
// HasSynced, and the medians are printed. The namespace is removed at the end. -floor adds,
// interleaved with serve, the same informer against a replay of serve's recorded answers and
// client-go's bare decoding of the recorded watch (floor.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "the kubeconfig `podlimits serve` wrote")
	pods := flag.Int("pods", 1000, "pods in the store")
	rounds := flag.Int("rounds", 9, "syncs per encoding")
	only := flag.String("only", "", "sync in this encoding only (json or protobuf), e.g. to profile one")
	floor := flag.Bool("floor", false, "also time each sync against a replay of serve's recorded "+
		"answers (a server that does no work) and the bare decoding of the recorded watch")
	keep := flag.String("floor-keep", "", "with -floor, a directory to write the recorded watch bodies and CPU profiles of syncs against the replay to")
	flag.Parse()
	if err := run(*kubeconfig, *pods, *rounds, *only, *floor, *keep); err != nil {
		fmt.Fprintf(os.Stderr, "informer-sync: %v\n", err)
		os.Exit(1)
	}
}

func clientset(base *rest.Config, contentType string) (*kubernetes.Clientset, error) {
	c := rest.CopyConfig(base)
	c.ContentType = contentType
	c.AcceptContentTypes = contentType
	if contentType == "application/vnd.kubernetes.protobuf" {
		c.AcceptContentTypes = contentType + ",application/json"
	}
	return kubernetes.NewForConfig(c)
}

// syncOnce is one informer's Start -> HasSynced over the namespace's pods: the wall time, and
// the process's CPU time over the same span.
func syncOnce(ctx context.Context, cs *kubernetes.Clientset, ns string, want int) (time.Duration, time.Duration, error) {
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := f.Core().V1().Pods().Informer()
	stop := make(chan struct{})
	cpu0, began := processCPU(), time.Now()
	f.Start(stop)
	// cache.WaitForCacheSync polls every 100 ms, coarser than what is measured: poll each 0.2 ms.
	ok := false
	for ctx.Err() == nil {
		if ok = inf.HasSynced(); ok {
			break
		}
		time.Sleep(200 * time.Microsecond)
	}
	took, cpu := time.Since(began), processCPU()-cpu0
	n := len(inf.GetStore().List())
	close(stop)
	f.Shutdown()
	if !ok {
		return 0, 0, fmt.Errorf("the informer did not sync")
	}
	if n != want {
		return 0, 0, fmt.Errorf("synced %d pods, want %d", n, want)
	}
	return took, cpu, nil
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func run(kubeconfig string, pods, rounds int, only string, floor bool, keep string) error {
	base, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	base.QPS, base.Burst = 1000, 2000
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	admin, err := clientset(base, "application/json")
	if err != nil {
		return err
	}
	ns, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "informer-sync-"}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	defer admin.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	began := time.Now()
	for i := 0; i < pods; i++ {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%04d", i),
				Labels: map[string]string{"app": "informer-sync", "i": fmt.Sprint(i)}},
			Spec: corev1.PodSpec{
				NodeSelector: map[string]string{"bench.podlimits.dev/no-such-node": "true"},
				Containers: []corev1.Container{{Name: "c", Image: "busybox:latest",
					Command: []string{"sleep", "3600"}}},
			},
		}
		if _, err := admin.CoreV1().Pods(ns.Name).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating pod %d: %w", i, err)
		}
	}
	fmt.Printf("created %d pods in %v\n", pods, time.Since(began).Round(time.Millisecond))
	time.Sleep(2 * time.Second) // the scheduler's FailedScheduling status writes settle
	encodings := []encoding{
		{"json", "application/json"}, {"protobuf", "application/vnd.kubernetes.protobuf"},
	}
	if only != "" {
		kept := encodings[:0]
		for _, enc := range encodings {
			if enc.name == only {
				kept = append(kept, enc)
			}
		}
		if len(kept) == 0 {
			return fmt.Errorf("-only %q: no such encoding (json, protobuf)", only)
		}
		encodings = kept
	}
	if floor {
		return runFloor(ctx, base, ns.Name, pods, rounds, encodings, keep)
	}
	times := map[string][]time.Duration{}
	for r := 0; r < rounds; r++ {
		for _, enc := range encodings {
			cs, err := clientset(base, enc.contentType)
			if err != nil {
				return err
			}
			took, _, err := syncOnce(ctx, cs, ns.Name, pods)
			if err != nil {
				return fmt.Errorf("%s round %d: %w", enc.name, r, err)
			}
			times[enc.name] = append(times[enc.name], took)
		}
	}
	for _, enc := range encodings {
		t := times[enc.name]
		lo, hi := span(t)
		fmt.Printf("informer sync of %d pods, %-8s median %7.1f ms  (min %.1f, max %.1f, %d rounds)\n",
			pods, enc.name, ms(median(t)), ms(lo), ms(hi), len(t))
	}
	return nil
}

func span(d []time.Duration) (lo, hi time.Duration) {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[0], s[len(s)-1]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
