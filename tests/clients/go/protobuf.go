package main

// Responses in protobuf, as client-go asks for them (ContentType protobuf, AcceptContentTypes
// "protobuf,json"), decoded by client-go's own protobuf serializer and compared with what the
// same requests give in JSON: get, list, a watch's initial events and a watch-list informer's
// synced store, for ConfigMaps, Pods and Deployments. JSON decoded by client-go is the oracle:
// the two encodings must give identical Go objects. The responses' Content-Type shows protobuf
// was served (not JSON to a client that also accepts it).

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

func protobufCases() []testCase {
	return []testCase{{name: "protobuf/responses-decode-as-their-json", run: protobufResponses}}
}

// contentTypes records the Content-Type of every response.
type contentTypes struct {
	mu   sync.Mutex
	seen map[string]int
}

func (c *contentTypes) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(r)
		if err == nil {
			c.mu.Lock()
			c.seen[resp.Header.Get("Content-Type")]++
			c.mu.Unlock()
		}
		return resp, err
	})
}

// kindClient is what the case does with one resource, in either encoding.
type kindClient struct {
	name string
	list func(ctx context.Context, cs *kubernetes.Clientset, ns string) ([]runtime.Object, error)
	get  func(ctx context.Context, cs *kubernetes.Clientset, ns, name string) (runtime.Object, error)
	wat  func(ctx context.Context, cs *kubernetes.Clientset, ns string) (watch.Interface, error)
	// The informer's store after sync.
	informer func(f informers.SharedInformerFactory) cache.SharedIndexInformer
}

func protobufKinds() []kindClient {
	return []kindClient{{
		name: "configmaps",
		list: func(ctx context.Context, cs *kubernetes.Clientset, ns string) ([]runtime.Object, error) {
			return listItems(cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}))
		},
		get: func(ctx context.Context, cs *kubernetes.Clientset, ns, name string) (runtime.Object, error) {
			return cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		},
		wat: func(ctx context.Context, cs *kubernetes.Clientset, ns string) (watch.Interface, error) {
			return cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
		},
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Core().V1().ConfigMaps().Informer()
		},
	}, {
		name: "pods",
		list: func(ctx context.Context, cs *kubernetes.Clientset, ns string) ([]runtime.Object, error) {
			return listItems(cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}))
		},
		get: func(ctx context.Context, cs *kubernetes.Clientset, ns, name string) (runtime.Object, error) {
			return cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		},
		wat: func(ctx context.Context, cs *kubernetes.Clientset, ns string) (watch.Interface, error) {
			return cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
		},
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Core().V1().Pods().Informer()
		},
	}, {
		name: "deployments",
		list: func(ctx context.Context, cs *kubernetes.Clientset, ns string) ([]runtime.Object, error) {
			return listItems(cs.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{}))
		},
		get: func(ctx context.Context, cs *kubernetes.Clientset, ns, name string) (runtime.Object, error) {
			return cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		},
		wat: func(ctx context.Context, cs *kubernetes.Clientset, ns string) (watch.Interface, error) {
			return cs.AppsV1().Deployments(ns).Watch(ctx, metav1.ListOptions{})
		},
		informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Apps().V1().Deployments().Informer()
		},
	}}
}

// listItems is a typed List call's items as objects (apimachinery's meta.ExtractList).
func listItems(list runtime.Object, err error) ([]runtime.Object, error) {
	if err != nil {
		return nil, err
	}
	return meta.ExtractList(list)
}

func objectName(o runtime.Object) string { return o.(metav1.Object).GetName() }

func byName(objects []runtime.Object) []runtime.Object {
	sort.Slice(objects, func(i, j int) bool { return objectName(objects[i]) < objectName(objects[j]) })
	return objects
}

// sameObjects compares two sets of objects by name: nil when identical.
func sameObjects(what string, want, got []runtime.Object) error {
	want, got = byName(want), byName(got)
	if len(want) != len(got) {
		return fmt.Errorf("%s: %d objects in JSON, %d in protobuf", what, len(want), len(got))
	}
	for i := range want {
		if !reflect.DeepEqual(want[i], got[i]) {
			return fmt.Errorf("%s %s differs (-json +protobuf):\n%s", what, objectName(want[i]),
				cmp.Diff(want[i], got[i]))
		}
	}
	return nil
}

// protobufObjects creates what the case compares, in JSON: objects the node leaves alone once
// settled (unschedulable pods, a Deployment of 0 replicas).
func protobufObjects(ctx context.Context, cs *kubernetes.Clientset, ns string) error {
	for i := 0; i < 3; i++ {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pb-cm-%d", i),
				Labels: map[string]string{"app": "pb"}, Annotations: map[string]string{"a": ""}},
			Data:       map[string]string{"k": "v", "empty": ""},
			BinaryData: map[string][]byte{"bin": {0, 1, 2}},
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
	}
	for i := 0; i < 2; i++ {
		pod := unschedulablePod(ns, fmt.Sprintf("pb-pod-%d", i))
		pod.Spec.Containers[0].Resources.Limits = corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi")}
		grace := int64(0)
		pod.Spec.TerminationGracePeriodSeconds = &grace
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	zero := int32(0)
	_, err := cs.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "pb-deploy"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &zero,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pb-deploy"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "pb-deploy"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox:latest"}}},
			},
		},
	}, metav1.CreateOptions{})
	return err
}

// settled retries compare until it holds (the node's status writes settle within seconds), and
// returns its last error.
func settled(ctx context.Context, compare func() error) error {
	var err error
	for i := 0; i < 30; i++ {
		if err = compare(); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
	return err
}

func protobufResponses(ctx context.Context, e *env) error {
	ns := e.namespace
	jsonCS, err := e.clientset(jsonContent)
	if err != nil {
		return err
	}
	seen := &contentTypes{seen: map[string]int{}}
	pbConfig := e.config(protobufContent)
	pbConfig.Wrap(seen.wrap)
	pbCS, err := kubernetes.NewForConfig(pbConfig)
	if err != nil {
		return err
	}
	if err := protobufObjects(ctx, jsonCS, ns); err != nil {
		return fmt.Errorf("creating the objects: %w", err)
	}
	for _, k := range protobufKinds() {
		k := k
		// list and get
		err := settled(ctx, func() error {
			want, err := k.list(ctx, jsonCS, ns)
			if err != nil {
				return err
			}
			got, err := k.list(ctx, pbCS, ns)
			if err != nil {
				return fmt.Errorf("protobuf list: %w", err)
			}
			if err := sameObjects(k.name+" list", want, got); err != nil {
				return err
			}
			for _, o := range want {
				one, err := k.get(ctx, pbCS, ns, objectName(o))
				if err != nil {
					return fmt.Errorf("protobuf get: %w", err)
				}
				if err := sameObjects(k.name+" get", []runtime.Object{o}, []runtime.Object{one}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		// a watch's initial events
		err = settled(ctx, func() error {
			want, err := k.list(ctx, jsonCS, ns)
			if err != nil {
				return err
			}
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			w, err := k.wat(wctx, pbCS, ns)
			if err != nil {
				return fmt.Errorf("protobuf watch: %w", err)
			}
			defer w.Stop()
			var got []runtime.Object
			for len(got) < len(want) {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						return fmt.Errorf("%s watch ended after %d events", k.name, len(got))
					}
					if ev.Type != watch.Added {
						return fmt.Errorf("%s watch: %s event %v", k.name, ev.Type, ev.Object)
					}
					got = append(got, ev.Object)
				case <-wctx.Done():
					return fmt.Errorf("%s watch: %d of %d events", k.name, len(got), len(want))
				}
			}
			return sameObjects(k.name+" watch", want, got)
		})
		if err != nil {
			return err
		}
		// an informer with client-go's defaults (watch-list) in protobuf
		err = settled(ctx, func() error {
			want, err := k.list(ctx, jsonCS, ns)
			if err != nil {
				return err
			}
			f := informers.NewSharedInformerFactoryWithOptions(pbCS, 0, informers.WithNamespace(ns))
			inf := k.informer(f)
			stop := make(chan struct{})
			defer func() {
				close(stop) // before Shutdown, which waits for the informers to stop
				f.Shutdown()
			}()
			f.Start(stop)
			sctx, cancel := context.WithTimeout(ctx, syncBound)
			defer cancel()
			if !cache.WaitForCacheSync(sctx.Done(), inf.HasSynced) {
				return fmt.Errorf("%s informer in protobuf did not sync in %v", k.name, syncBound)
			}
			var got []runtime.Object
			for _, o := range inf.GetStore().List() {
				got = append(got, o.(runtime.Object))
			}
			return sameObjects(k.name+" informer", want, got)
		})
		if err != nil {
			return err
		}
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if seen.seen[protobufContent] == 0 || seen.seen[protobufContent+";stream=watch"] == 0 {
		var types []string
		for t, n := range seen.seen {
			types = append(types, fmt.Sprintf("%s (%d)", t, n))
		}
		sort.Strings(types)
		return fmt.Errorf("responses were not protobuf: %s", strings.Join(types, ", "))
	}
	return nil
}
