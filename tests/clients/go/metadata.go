package main

// Metadata-only clients: client-go's metadata client (k8s.io/client-go/metadata, which asks for
// as=PartialObjectMetadata(List) in protobuf, then JSON) and a metadata informer
// (metadatainformer, what controller-runtime's OnlyMetadata builds on), against the full
// objects the typed client reads: get, list, watch and an informer's sync must give each
// object's metadata exactly, as the apiserver's conversion does. The responses must be the
// metadata kinds in protobuf (not the whole object, not JSON), and the apiserver's 406 answers
// the wrong conversion for a verb.

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

func metadataCases() []testCase {
	return []testCase{
		{name: "metadata/get-list-watch-and-informer-give-the-objects-metadata", run: metadataClient},
		{name: "metadata/the-wrong-conversion-is-406", run: metadataNotAcceptable},
	}
}

var configMapsResource = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func metadataClient(ctx context.Context, e *env) error {
	ns := e.namespace
	cs, err := e.clientset(jsonContent)
	if err != nil {
		return err
	}
	seen := &contentTypes{seen: map[string]int{}}
	config := e.config("")
	config.Wrap(seen.wrap)
	mc, err := metadata.NewForConfig(config)
	if err != nil {
		return err
	}
	selector := "case=metadata"
	for i := 0; i < 3; i++ {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("meta-%d", i),
				Labels:      map[string]string{"case": "metadata", "i": fmt.Sprint(i)},
				Annotations: map[string]string{"note": "only metadata"}},
			Data: map[string]string{"k": strings.Repeat("v", 100)},
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
	}
	full, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return err
	}
	want := map[string]metav1.ObjectMeta{}
	for _, cm := range full.Items {
		want[cm.Name] = cm.ObjectMeta
	}
	// get
	for name, meta := range want {
		got, err := mc.Resource(configMapsResource).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("metadata get %s: %w", name, err)
		}
		// (client-go's decoder clears TypeMeta; that it decoded into a PartialObjectMetadata at
		// all says the response was one.)
		if !reflect.DeepEqual(got.ObjectMeta, meta) {
			return fmt.Errorf("metadata get %s (-typed +metadata):\n%s", name, cmp.Diff(meta, got.ObjectMeta))
		}
	}
	// list
	list, err := mc.Resource(configMapsResource).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return fmt.Errorf("metadata list: %w", err)
	}
	if list.ResourceVersion == "" || len(list.Items) != len(want) {
		return fmt.Errorf("metadata list: resourceVersion %q, %d items, want %d", list.ResourceVersion,
			len(list.Items), len(want))
	}
	for _, item := range list.Items {
		if !reflect.DeepEqual(item.ObjectMeta, want[item.Name]) {
			return fmt.Errorf("metadata list item %s (-typed +metadata):\n%s", item.Name,
				cmp.Diff(want[item.Name], item.ObjectMeta))
		}
	}
	// watch: a change after the list arrives as PartialObjectMetadata
	w, err := mc.Resource(configMapsResource).Namespace(ns).Watch(ctx, metav1.ListOptions{
		LabelSelector: selector, ResourceVersion: list.ResourceVersion})
	if err != nil {
		return fmt.Errorf("metadata watch: %w", err)
	}
	defer w.Stop()
	updated, err := cs.CoreV1().ConfigMaps(ns).Patch(ctx, "meta-1", "application/merge-patch+json",
		[]byte(`{"metadata":{"labels":{"changed":"yes"}},"data":{"k":"w"}}`), metav1.PatchOptions{})
	if err != nil {
		return err
	}
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			return fmt.Errorf("metadata watch ended before its event")
		}
		got, isMeta := ev.Object.(*metav1.PartialObjectMetadata)
		if ev.Type != watch.Modified || !isMeta {
			return fmt.Errorf("metadata watch: %s %T, want MODIFIED *v1.PartialObjectMetadata", ev.Type, ev.Object)
		}
		if !reflect.DeepEqual(got.ObjectMeta, updated.ObjectMeta) {
			return fmt.Errorf("metadata watch event (-typed +metadata):\n%s", cmp.Diff(updated.ObjectMeta, got.ObjectMeta))
		}
	case <-time.After(10 * time.Second):
		return fmt.Errorf("metadata watch: no event in 10 s")
	}
	want[updated.Name] = updated.ObjectMeta
	// a metadata informer (client-go's defaults: watch-list) syncs to the same metadata
	mark := e.requests.mark()
	f := metadatainformer.NewFilteredSharedInformerFactory(mc, 0, ns, func(o *metav1.ListOptions) {
		o.LabelSelector = selector
	})
	inf := f.ForResource(configMapsResource).Informer()
	stop := make(chan struct{})
	defer func() { close(stop); f.Shutdown() }()
	f.Start(stop)
	syncCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		return fmt.Errorf("the metadata informer did not sync; requests: %v", e.requests.since(mark))
	}
	stored := inf.GetStore().List()
	if len(stored) != len(want) {
		return fmt.Errorf("the metadata informer has %d objects, want %d", len(stored), len(want))
	}
	for _, o := range stored {
		got := o.(*metav1.PartialObjectMetadata)
		if !reflect.DeepEqual(got.ObjectMeta, want[got.Name]) {
			return fmt.Errorf("metadata informer's %s (-typed +metadata):\n%s", got.Name,
				cmp.Diff(want[got.Name], got.ObjectMeta))
		}
	}
	for _, r := range e.requests.since(mark) {
		if strings.HasPrefix(r, "GET ") && !strings.Contains(r, "watch=true") {
			return fmt.Errorf("the metadata informer listed (it fell back from watch-list): %s", r)
		}
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	for ct, n := range seen.seen {
		if !strings.HasPrefix(ct, "application/vnd.kubernetes.protobuf") {
			return fmt.Errorf("%d metadata responses in %q, want protobuf: %v", n, ct, seen.seen)
		}
	}
	return nil
}

// The conversions the verb cannot take: PartialObjectMetadata of a list, the list kind of one
// object, each the apiserver's 406 with its message.
func metadataNotAcceptable(ctx context.Context, e *env) error {
	cs, err := e.clientset(jsonContent)
	if err != nil {
		return err
	}
	ns := e.namespace
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "meta-406"}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	cases := []struct{ name, path, accept, message string }{
		{"a list as PartialObjectMetadata", "/api/v1/namespaces/" + ns + "/configmaps",
			"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
			"you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)"},
		{"an object as PartialObjectMetadataList", "/api/v1/namespaces/" + ns + "/configmaps/meta-406",
			"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
			"you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)"},
	}
	for _, c := range cases {
		err := cs.CoreV1().RESTClient().Get().AbsPath(c.path).SetHeader("Accept", c.accept).Do(ctx).Error()
		status, ok := err.(interface{ Status() metav1.Status })
		if !ok {
			return fmt.Errorf("%s: %v, want a 406 Status", c.name, err)
		}
		s := status.Status()
		if s.Code != 406 || s.Reason != "NotAcceptable" || s.Message != c.message {
			return fmt.Errorf("%s: %d %s %q, want 406 NotAcceptable %q", c.name, s.Code, s.Reason, s.Message, c.message)
		}
	}
	return nil
}
