package main

// client-go's typed clients, in JSON and in protobuf (what they send by default: create, update
// and delete bodies in the `k8s\0` envelope; patches are JSON whatever the content type):
// create, get, update, strategic merge patch, JSON merge patch, delete with a DeleteOptions
// body (a precondition that does not hold must be refused, which shows the body was read), and
// the object gone afterwards.

import (
	"context"
	"fmt"
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

func typedCases() []testCase {
	var cases []testCase
	for _, ct := range []struct{ name, contentType string }{
		{"json", jsonContent}, {"protobuf", protobufContent},
	} {
		ct := ct
		cases = append(cases,
			testCase{name: "typed/configmaps/" + ct.name, run: func(ctx context.Context, e *env) error {
				cs, err := e.clientset(ct.contentType)
				if err != nil {
					return err
				}
				return typedConfigMaps(ctx, cs, e.namespace, "typed-cm-"+ct.name)
			}},
			testCase{name: "typed/pods/" + ct.name, run: func(ctx context.Context, e *env) error {
				cs, err := e.clientset(ct.contentType)
				if err != nil {
					return err
				}
				return typedPods(ctx, cs, e.namespace, "typed-pod-"+ct.name)
			}})
	}
	cases = append(cases, testCase{name: "typed/pods/protobuf-embedded-structs",
		run: func(ctx context.Context, e *env) error {
			cs, err := e.clientset(protobufContent)
			if err != nil {
				return err
			}
			return embeddedStructs(ctx, cs, e.namespace)
		}})
	return cases
}

// embeddedStructs creates (dry run) in protobuf a pod whose fields client-go encodes as
// messages of their own while JSON flattens them: a hostPath volume as `kubectl debug node`
// sends it (Volume's VolumeSource), a probe's handler beside its numbers (Probe's ProbeHandler),
// and key selectors' names (their LocalObjectReference). What comes back must be what was sent.
func embeddedStructs(ctx context.Context, cs kubernetes.Interface, ns string) error {
	pod := embeddedStructsPod()
	got, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		return step("create (dry run)", err)
	}
	return checkEmbeddedStructs(got)
}

// embeddedStructsPod: every kind of inline-embedded struct a pod can hold; also the request path
// fuzzer's seed (fuzz_corpus.go).
func embeddedStructsPod() *corev1.Pod {
	optional := true
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "embedded-structs"},
		Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{
				{Name: "host-root", VolumeSource: corev1.VolumeSource{
					HostPath: &corev1.HostPathVolumeSource{Path: "/"}}},
				{Name: "scratch", VolumeSource: corev1.VolumeSource{
					EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
			Containers: []corev1.Container{{
				Name: "app", Image: "busybox:latest",
				Env: []corev1.EnvVar{{Name: "FROM_CM", ValueFrom: &corev1.EnvVarSource{
					ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"},
						Key:                  "k", Optional: &optional}}}},
				EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "sec"},
					Optional:             &optional}}},
				LivenessProbe: &corev1.Probe{
					ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
						Path: "/healthz", Port: intstr.FromInt32(8080)}},
					InitialDelaySeconds: 5, PeriodSeconds: 7},
			}},
		},
	}
}

func checkEmbeddedStructs(got *corev1.Pod) error {
	if len(got.Spec.Volumes) != 2 || got.Spec.Volumes[0].Name != "host-root" ||
		got.Spec.Volumes[0].HostPath == nil || got.Spec.Volumes[0].HostPath.Path != "/" ||
		got.Spec.Volumes[1].Name != "scratch" || got.Spec.Volumes[1].EmptyDir == nil {
		return fmt.Errorf("volumes came back as %+v", got.Spec.Volumes)
	}
	c := got.Spec.Containers[0]
	if len(c.Env) != 1 || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.ConfigMapKeyRef == nil ||
		c.Env[0].ValueFrom.ConfigMapKeyRef.Name != "cfg" || c.Env[0].ValueFrom.ConfigMapKeyRef.Key != "k" {
		return fmt.Errorf("env came back as %+v", c.Env)
	}
	if len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != "sec" {
		return fmt.Errorf("envFrom came back as %+v", c.EnvFrom)
	}
	p := c.LivenessProbe
	if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" || p.HTTPGet.Port.IntValue() != 8080 ||
		p.InitialDelaySeconds != 5 || p.PeriodSeconds != 7 {
		return fmt.Errorf("the liveness probe came back as %+v", p)
	}
	return nil
}

func step(name string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func wantData(what string, got, want map[string]string) error {
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%s: data is %v, want %v", what, got, want)
	}
	return nil
}

func typedConfigMaps(ctx context.Context, cs kubernetes.Interface, ns, name string) error {
	c := cs.CoreV1().ConfigMaps(ns)
	created, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name},
		Data: map[string]string{"a": "1"}}, metav1.CreateOptions{})
	if err != nil {
		return step("create", err)
	}
	defer func() { _ = c.Delete(context.Background(), name, metav1.DeleteOptions{}) }()
	if err := wantData("create", created.Data, map[string]string{"a": "1"}); err != nil {
		return err
	}
	got, err := c.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return step("get", err)
	}
	got.Data["a"] = "2"
	got.Labels = map[string]string{"updated": "yes"}
	updated, err := c.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		return step("update", err)
	}
	if err := wantData("update", updated.Data, map[string]string{"a": "2"}); err != nil {
		return err
	}
	if updated.Labels["updated"] != "yes" || updated.ResourceVersion == got.ResourceVersion {
		return fmt.Errorf("update: labels %v, resourceVersion %s (was %s)", updated.Labels,
			updated.ResourceVersion, got.ResourceVersion)
	}
	// An update from a stale resourceVersion is a conflict.
	if _, err := c.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		return fmt.Errorf("update from a stale resourceVersion: want 409 Conflict, got %v", err)
	}
	patched, err := c.Patch(ctx, name, types.StrategicMergePatchType,
		[]byte(`{"data":{"b":"3"}}`), metav1.PatchOptions{})
	if err != nil {
		return step("strategic merge patch", err)
	}
	if err := wantData("strategic merge patch", patched.Data,
		map[string]string{"a": "2", "b": "3"}); err != nil {
		return err
	}
	patched, err = c.Patch(ctx, name, types.MergePatchType, []byte(`{"data":{"a":null}}`),
		metav1.PatchOptions{})
	if err != nil {
		return step("JSON merge patch", err)
	}
	if err := wantData("JSON merge patch", patched.Data, map[string]string{"b": "3"}); err != nil {
		return err
	}
	return deleteWithOptions(ctx, name, patched.UID,
		func(opts metav1.DeleteOptions) error { return c.Delete(ctx, name, opts) },
		func() error { _, err := c.Get(ctx, name, metav1.GetOptions{}); return err })
}

// deleteWithOptions deletes with a DeleteOptions body: first with a UID precondition that does
// not hold (409, so the body was read), then with the right one; the object must then be gone.
func deleteWithOptions(ctx context.Context, name string, uid types.UID,
	del func(metav1.DeleteOptions) error, get func() error) error {
	wrong := types.UID("00000000-0000-0000-0000-000000000000")
	err := del(metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrong}})
	if !apierrors.IsConflict(err) {
		return fmt.Errorf("delete with a UID precondition that does not hold: want 409 Conflict, "+
			"got %v", err)
	}
	background := metav1.DeletePropagationBackground
	if err := del(metav1.DeleteOptions{GracePeriodSeconds: new(int64),
		Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &background}); err != nil {
		return step("delete", err)
	}
	var last error
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true,
		func(context.Context) (bool, error) {
			last = get()
			return apierrors.IsNotFound(last), nil
		}); err != nil {
		return fmt.Errorf("after delete: %s still there (%v)", name, last)
	}
	return nil
}

func typedPods(ctx context.Context, cs kubernetes.Interface, ns, name string) error {
	c := cs.CoreV1().Pods(ns)
	created, err := c.Create(ctx, unschedulablePod(ns, name), metav1.CreateOptions{})
	if err != nil {
		return step("create", err)
	}
	defer func() {
		_ = c.Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
	}()
	if created.Spec.Containers[0].Image != "busybox:latest" || created.UID == "" {
		return fmt.Errorf("create: got image %q, uid %q", created.Spec.Containers[0].Image, created.UID)
	}
	// The node's scheduler writes the pod's status meanwhile: retried on conflict.
	var updated *corev1.Pod
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got, err := c.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		got.Labels["step"] = "1"
		got.Annotations = map[string]string{"clients-go": "updated"}
		updated, err = c.Update(ctx, got, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return step("update", err)
	}
	if updated.Labels["step"] != "1" || updated.Annotations["clients-go"] != "updated" {
		return fmt.Errorf("update: labels %v, annotations %v", updated.Labels, updated.Annotations)
	}
	patched, err := c.Patch(ctx, name, types.StrategicMergePatchType,
		[]byte(`{"metadata":{"labels":{"patched":"strategic"}}}`), metav1.PatchOptions{})
	if err != nil {
		return step("strategic merge patch", err)
	}
	if patched.Labels["patched"] != "strategic" || patched.Labels["step"] != "1" {
		return fmt.Errorf("strategic merge patch: labels %v", patched.Labels)
	}
	patched, err = c.Patch(ctx, name, types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"patched":null},"annotations":{"merge":"json"}}}`),
		metav1.PatchOptions{})
	if err != nil {
		return step("JSON merge patch", err)
	}
	if _, still := patched.Labels["patched"]; still || patched.Annotations["merge"] != "json" {
		return fmt.Errorf("JSON merge patch: labels %v, annotations %v", patched.Labels,
			patched.Annotations)
	}
	return deleteWithOptions(ctx, name, created.UID,
		func(opts metav1.DeleteOptions) error { return c.Delete(ctx, name, opts) },
		func() error { _, err := c.Get(ctx, name, metav1.GetOptions{}); return err })
}
