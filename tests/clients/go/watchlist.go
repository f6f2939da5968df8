package main

// The watch-list stream itself, read with a typed Watch rather than through an informer, so a
// failure says which part of the protocol is wrong: the objects as ADDED, then one BOOKMARK
// annotated k8s.io/initial-events-end whose resourceVersion is that state's, then the changes
// after it; and sendInitialEvents=false, which starts from now.

import (
	"context"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

func watchListCases() []testCase {
	return []testCase{
		{name: "watch-list/initial-objects-then-initial-events-end-bookmark-then-changes",
			run: watchListStream},
		{name: "watch-list/send-initial-events-false-starts-from-now", run: watchWithoutInitialEvents},
	}
}

// nextEvent is the watch's next event within the bound.
func nextEvent(ctx context.Context, w watch.Interface, bound time.Duration) (watch.Event, error) {
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			return watch.Event{}, fmt.Errorf("the watch ended")
		}
		return ev, nil
	case <-time.After(bound):
		return watch.Event{}, fmt.Errorf("no event within %v", bound)
	case <-ctx.Done():
		return watch.Event{}, ctx.Err()
	}
}

func rvOf(obj any) (int64, error) {
	m, err := metaOf(obj)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(m.GetResourceVersion(), 10, 64)
}

func watchListStream(ctx context.Context, e *env) error {
	cs, err := e.clientset("")
	if err != nil {
		return err
	}
	c := cs.CoreV1().ConfigMaps(e.namespace)
	const prefix = "wl-"
	var newest int64
	for i := 0; i < e.objects; i++ {
		cm, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s%d", prefix, i), Labels: map[string]string{"case": "watch-list"}}},
			metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("create: %w", err)
		}
		if newest, err = rvOf(cm); err != nil {
			return err
		}
	}
	defer func() {
		for i := 0; i < e.objects; i++ {
			_ = c.Delete(context.Background(), fmt.Sprintf("%s%d", prefix, i), metav1.DeleteOptions{})
		}
		_ = c.Delete(context.Background(), prefix+"later", metav1.DeleteOptions{})
	}()
	w, err := c.Watch(ctx, metav1.ListOptions{
		LabelSelector:        "case=watch-list",
		SendInitialEvents:    ptr.To(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
	})
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer w.Stop()
	seen := map[string]bool{}
	for i := 0; i < e.objects; i++ {
		ev, err := nextEvent(ctx, w, 5*time.Second)
		if err != nil {
			return fmt.Errorf("initial event #%d: %w", i, err)
		}
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if ev.Type != watch.Added || !ok {
			return fmt.Errorf("initial event #%d: want ADDED ConfigMap, got %s %T", i, ev.Type, ev.Object)
		}
		seen[cm.Name] = true
	}
	if len(seen) != e.objects {
		return fmt.Errorf("the initial events named %d distinct objects, want %d", len(seen), e.objects)
	}
	ev, err := nextEvent(ctx, w, 5*time.Second)
	if err != nil {
		return fmt.Errorf("after the initial events: %w", err)
	}
	if ev.Type != watch.Bookmark {
		return fmt.Errorf("after the initial events: want BOOKMARK, got %s", ev.Type)
	}
	m, err := metaOf(ev.Object)
	if err != nil {
		return err
	}
	if got := m.GetAnnotations()[metav1.InitialEventsAnnotationKey]; got != "true" {
		return fmt.Errorf("the bookmark's annotation %s is %q, want \"true\" (annotations %v)",
			metav1.InitialEventsAnnotationKey, got, m.GetAnnotations())
	}
	bookmarkRV, err := rvOf(ev.Object)
	if err != nil {
		return fmt.Errorf("the bookmark's resourceVersion: %w", err)
	}
	if bookmarkRV < newest {
		return fmt.Errorf("the bookmark's resourceVersion %d is older than the newest object's %d",
			bookmarkRV, newest)
	}
	later, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: prefix + "later", Labels: map[string]string{"case": "watch-list"}}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create after the bookmark: %w", err)
	}
	for {
		ev, err = nextEvent(ctx, w, 5*time.Second)
		if err != nil {
			return fmt.Errorf("the change after the bookmark: %w", err)
		}
		if ev.Type != watch.Bookmark { // a periodic bookmark may come first
			break
		}
	}
	cm, ok := ev.Object.(*corev1.ConfigMap)
	if ev.Type != watch.Added || !ok || cm.Name != later.Name {
		return fmt.Errorf("the change after the bookmark: want ADDED %s, got %s %T", later.Name,
			ev.Type, ev.Object)
	}
	if rv, _ := rvOf(cm); rv <= bookmarkRV {
		return fmt.Errorf("the change after the bookmark has resourceVersion %d, not after the "+
			"bookmark's %d", rv, bookmarkRV)
	}
	return nil
}

func watchWithoutInitialEvents(ctx context.Context, e *env) error {
	cs, err := e.clientset("")
	if err != nil {
		return err
	}
	c := cs.CoreV1().ConfigMaps(e.namespace)
	labels := map[string]string{"case": "no-initial-events"}
	before, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "nie-before", Labels: labels}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	defer func() {
		_ = c.Delete(context.Background(), before.Name, metav1.DeleteOptions{})
		_ = c.Delete(context.Background(), "nie-after", metav1.DeleteOptions{})
	}()
	w, err := c.Watch(ctx, metav1.ListOptions{
		LabelSelector:        "case=no-initial-events",
		SendInitialEvents:    ptr.To(false),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
	})
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer w.Stop()
	// The watch is open once the server answered; what is created now is after its start.
	if _, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "nie-after", Labels: labels}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	for {
		ev, err := nextEvent(ctx, w, 5*time.Second)
		if err != nil {
			return err
		}
		if ev.Type == watch.Bookmark {
			continue
		}
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if ev.Type != watch.Added || !ok || cm.Name != "nie-after" {
			return fmt.Errorf("first event: want ADDED nie-after (nothing from before the watch), "+
				"got %s %T %v", ev.Type, ev.Object, nameOf(ev.Object))
		}
		return nil
	}
}

func nameOf(obj any) string {
	if m, err := metaOf(obj); err == nil {
		return m.GetName()
	}
	return ""
}
