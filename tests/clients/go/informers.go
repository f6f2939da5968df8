package main

// client-go's SharedInformerFactory with its default settings, as controllers use it: since
// client-go 1.35 an informer syncs through a watch-list (sendInitialEvents=true, then the
// BOOKMARK annotated k8s.io/initial-events-end) and falls back to a LIST only when the server
// refuses the watch. The cases check that the informers sync within a bound without that
// fallback, and then deliver every ADDED/MODIFIED/DELETED of the objects the case writes, in
// the order it wrote them.

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
)

// syncBound is how long an informer may take to sync an almost empty node (client-go against
// serve with JSON lists synced in 0.1 s; the issue saw watch-list informers never sync).
const syncBound = 10 * time.Second

// eventBound is how long the informers may take to deliver the changes after the last write.
const eventBound = 15 * time.Second

// eventRecorder keeps what an informer's handler saw for the case's objects, as
// "ADDED name step=S", "MODIFIED name step=S", "DELETED name".
type eventRecorder struct {
	mu        sync.Mutex
	seen      []string
	namespace string
	prefix    string
	// stepOf reads the step the case wrote into an object (a label, a data key, a message).
	stepOf func(obj any) string
	// onlyStepChanges drops a MODIFIED whose step did not change: a pod's status is written by
	// the node's scheduler as well as by the case.
	onlyStepChanges bool
	lastStep        map[string]string
}

func (r *eventRecorder) record(kind string, obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	m, err := metaOf(obj)
	if err != nil || m.GetNamespace() != r.namespace || !strings.HasPrefix(m.GetName(), r.prefix) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	name := m.GetName()
	step := r.stepOf(obj)
	if kind == "MODIFIED" && r.onlyStepChanges && r.lastStep[name] == step {
		return
	}
	r.lastStep[name] = step
	if kind == "DELETED" {
		r.seen = append(r.seen, "DELETED "+name)
		return
	}
	r.seen = append(r.seen, fmt.Sprintf("%s %s step=%s", kind, name, step))
}

func (r *eventRecorder) handler() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { r.record("ADDED", obj) },
		UpdateFunc: func(_, obj any) { r.record("MODIFIED", obj) },
		DeleteFunc: func(obj any) { r.record("DELETED", obj) },
	}
}

func (r *eventRecorder) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// waitFor waits until the recorder holds as many events as want (or the bound passes), then
// compares them, in order.
func (r *eventRecorder) waitFor(ctx context.Context, want []string) error {
	_ = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, eventBound, true,
		func(context.Context) (bool, error) { return len(r.snapshot()) >= len(want), nil })
	return compareSequences("informer events", want, r.snapshot())
}

func compareSequences(what string, want, got []string) error {
	for i := 0; i < len(want) || i < len(got); i++ {
		w, g := "(nothing)", "(nothing)"
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Errorf("%s differ at #%d: want %q, got %q\nwant: %s\ngot:  %s", what, i, w, g,
				strings.Join(want, ", "), strings.Join(got, ", "))
		}
	}
	return nil
}

// writeSequence is what each informer case does to its N objects, one after another: create all
// (step 0), update all (step 1), delete all; and the events an informer must deliver for it.
type writeSequence struct {
	prefix string
	create func(ctx context.Context, name string) error
	update func(ctx context.Context, name string) error
	delete func(ctx context.Context, name string) error
}

func (w writeSequence) run(ctx context.Context, n int) ([]string, error) {
	var want []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s%d", w.prefix, i)
		if err := w.create(ctx, name); err != nil {
			return nil, fmt.Errorf("create %s: %w", name, err)
		}
		want = append(want, "ADDED "+name+" step=0")
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s%d", w.prefix, i)
		if err := w.update(ctx, name); err != nil {
			return nil, fmt.Errorf("update %s: %w", name, err)
		}
		want = append(want, "MODIFIED "+name+" step=1")
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s%d", w.prefix, i)
		if err := w.delete(ctx, name); err != nil {
			return nil, fmt.Errorf("delete %s: %w", name, err)
		}
		want = append(want, "DELETED "+name)
	}
	return want, nil
}

func informerCases() []testCase {
	return []testCase{{
		name: "informers/default-settings-sync-and-see-every-event-in-order",
		run:  informersSeeEveryEvent,
	}}
}

// unschedulablePod is a pod the node's scheduler leaves Pending (its nodeSelector matches no
// node), so that the case's writes are the only ones besides the scheduler's status.
func unschedulablePod(namespace, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace,
			Labels: map[string]string{"step": "0"}},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"clients-go.podlimits.dev/no-such-node": "true"},
			Containers: []corev1.Container{{Name: "c", Image: "busybox:latest",
				Command: []string{"sleep", "3600"}}},
		},
	}
}

func informersSeeEveryEvent(ctx context.Context, e *env) error {
	cs, err := e.clientset("") // client-go's defaults: protobuf bodies, watch-list informers
	if err != nil {
		return err
	}
	mark := e.requests.mark()
	factory := informers.NewSharedInformerFactory(cs, 0)
	ns := e.namespace
	pods := &eventRecorder{namespace: ns, prefix: "pod-", onlyStepChanges: true,
		lastStep: map[string]string{},
		stepOf:   func(obj any) string { return obj.(*corev1.Pod).Labels["step"] }}
	configMaps := &eventRecorder{namespace: ns, prefix: "cm-", lastStep: map[string]string{},
		stepOf: func(obj any) string { return obj.(*corev1.ConfigMap).Data["step"] }}
	events := &eventRecorder{namespace: ns, prefix: "ev-", lastStep: map[string]string{},
		stepOf: func(obj any) string { return strings.TrimPrefix(obj.(*corev1.Event).Message, "step ") }}
	for _, hook := range []struct {
		informer cache.SharedIndexInformer
		recorder *eventRecorder
	}{
		{factory.Core().V1().Pods().Informer(), pods},
		{factory.Core().V1().ConfigMaps().Informer(), configMaps},
		{factory.Core().V1().Events().Informer(), events},
	} {
		if _, err := hook.informer.AddEventHandler(hook.recorder.handler()); err != nil {
			return err
		}
	}
	stop := make(chan struct{})
	defer close(stop)
	began := time.Now()
	factory.Start(stop)
	syncCtx, cancel := context.WithTimeout(ctx, syncBound)
	synced := factory.WaitForCacheSync(syncCtx.Done())
	cancel()
	for kind, ok := range synced {
		if !ok {
			return fmt.Errorf("the %v informer did not sync within %v; requests made:\n%s", kind,
				syncBound, strings.Join(e.requests.since(mark), "\n"))
		}
	}
	fmt.Printf("    informers for pods, configmaps and events synced in %v\n",
		time.Since(began).Round(time.Millisecond))
	if err := syncedByWatchList(e.requests.since(mark),
		[]string{"/api/v1/pods", "/api/v1/configmaps", "/api/v1/events"}); err != nil {
		return err
	}

	sequences := []struct {
		recorder *eventRecorder
		writes   writeSequence
	}{
		{configMaps, configMapWrites(cs, ns)},
		{events, eventWrites(cs, ns)},
		{pods, podWrites(cs, ns)},
	}
	for _, s := range sequences {
		began := time.Now()
		want, err := s.writes.run(ctx, e.objects)
		if err != nil {
			return err
		}
		wrote := time.Since(began)
		if err := s.recorder.waitFor(ctx, want); err != nil {
			return fmt.Errorf("%s*: %w", s.writes.prefix, err)
		}
		fmt.Printf("    %s*: %d writes in %v, every event %v later\n", s.writes.prefix, len(want),
			wrote.Round(time.Millisecond), (time.Since(began) - wrote).Round(time.Millisecond))
	}
	return nil
}

// syncedByWatchList checks that each informer's first request for its path was a watch with
// sendInitialEvents=true, and that none listed (client-go's fallback when the watch-list fails).
func syncedByWatchList(requests []string, paths []string) error {
	for _, path := range paths {
		first := ""
		for _, r := range requests {
			method, target, _ := strings.Cut(r, " ")
			u, err := url.Parse(target)
			if err != nil || method != "GET" || u.Path != path {
				continue
			}
			q := u.Query()
			if q.Get("watch") != "true" {
				return fmt.Errorf("the %s informer fell back to a LIST (%s): its watch-list failed",
					path, target)
			}
			if first == "" {
				first = target
			}
		}
		if first == "" {
			return fmt.Errorf("no request for %s was made", path)
		}
		u, _ := url.Parse(first)
		if u.Query().Get("sendInitialEvents") != "true" {
			return fmt.Errorf("the %s informer's first watch is not a watch-list: %s", path, first)
		}
	}
	return nil
}

func configMapWrites(cs kubernetes.Interface, ns string) writeSequence {
	c := cs.CoreV1().ConfigMaps(ns)
	return writeSequence{
		prefix: "cm-",
		create: func(ctx context.Context, name string) error {
			_, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name},
				Data: map[string]string{"step": "0"}}, metav1.CreateOptions{})
			return err
		},
		update: func(ctx context.Context, name string) error {
			got, err := c.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			got.Data["step"] = "1"
			_, err = c.Update(ctx, got, metav1.UpdateOptions{})
			return err
		},
		delete: func(ctx context.Context, name string) error {
			return c.Delete(ctx, name, metav1.DeleteOptions{})
		},
	}
}

func eventWrites(cs kubernetes.Interface, ns string) writeSequence {
	c := cs.CoreV1().Events(ns)
	return writeSequence{
		prefix: "ev-",
		create: func(ctx context.Context, name string) error {
			now := metav1.Now()
			_, err := c.Create(ctx, &corev1.Event{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: ns,
					Name: "cm-0", APIVersion: "v1"},
				Reason: "ClientsGo", Message: "step 0", Type: corev1.EventTypeNormal,
				Source:         corev1.EventSource{Component: "clients-go"},
				FirstTimestamp: now, LastTimestamp: now, Count: 1,
			}, metav1.CreateOptions{})
			return err
		},
		update: func(ctx context.Context, name string) error {
			got, err := c.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			got.Message = "step 1"
			got.Count++
			_, err = c.Update(ctx, got, metav1.UpdateOptions{})
			return err
		},
		delete: func(ctx context.Context, name string) error {
			return c.Delete(ctx, name, metav1.DeleteOptions{})
		},
	}
}

func podWrites(cs kubernetes.Interface, ns string) writeSequence {
	c := cs.CoreV1().Pods(ns)
	return writeSequence{
		prefix: "pod-",
		create: func(ctx context.Context, name string) error {
			_, err := c.Create(ctx, unschedulablePod(ns, name), metav1.CreateOptions{})
			return err
		},
		update: func(ctx context.Context, name string) error {
			// The scheduler writes the pod's status too: a conflict is retried as controllers do.
			return retry.RetryOnConflict(retry.DefaultRetry, func() error {
				got, err := c.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				got.Labels["step"] = "1"
				_, err = c.Update(ctx, got, metav1.UpdateOptions{})
				return err
			})
		},
		delete: func(ctx context.Context, name string) error {
			return c.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
		},
	}
}

func metaOf(obj any) (metav1.Object, error) { return meta.Accessor(obj) }
