package main

// The cases: pods as a user creates or updates them, through the apiserver's mutating then
// validating webhook plugins. Every expectation is written out: what the webhook was sent (from
// its /metrics), the apiserver's error text and code, the pod as admitted, the warnings.

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
)

// The --config of both webhooks: namespace "ci" admits ulimits (privileged), "tenants" is
// baseline with a pod PID default and bound (in the spelling a cluster holds).
const webhookConfig = `apiVersion: v1
kind: Namespace
metadata:
  name: ci
  labels: {pod-security.kubernetes.io/enforce: privileged}
---
apiVersion: v1
kind: Namespace
metadata:
  name: tenants
  labels: {pod-security.kubernetes.io/enforce: baseline}
---
apiVersion: v1
kind: LimitRange
metadata: {name: pod-pids, namespace: tenants}
spec:
  limits:
  - type: podlimits.dev/Pod
    default: {podlimits.dev/pid: "2048"}
    max: {podlimits.dev/pid: "4096"}
`

// The NRI cluster's: the same, and no RuntimeClass (docs/nri.md).
const nriWebhookConfig = webhookConfig + `---
apiVersion: podlimits.dev/v1alpha1
kind: WebhookConfiguration
nodeEnforcement: NRI
`

var namespacesOfCases = []string{"ci", "tenants", "kube-system"}

const (
	nofileKey    = "ulimits.noderesource.dev/container.app"
	nofile       = "- type: RLIMIT_NOFILE\n  soft: 1024\n  hard: 4096\n"
	pidLimitKey  = "podlimits.dev/pod-pid-limit"
	writableKey  = "podlimits.dev/writable-cgroups.container.app"
	deprecated   = "ulimits.nri.containerd.io/container.app"
	mutateName   = "mutate.podlimits.dev"
	validateName = "validate.podlimits.dev"
)

// outcome is what one admission comes to.
type outcome struct {
	sent         [2]int            // reviews the webhook answered: /mutate, /validate
	err          string            // the apiserver's error message ("" when admitted)
	code         int32             // its HTTP status
	runtimeClass string            // the admitted pod's spec.runtimeClassName
	annotations  map[string]string // the admitted pod's annotations
	warnings     []string
}

type reviewCase struct {
	name      string
	namespace string
	operation admission.Operation
	pod       *corev1.Pod
	oldPod    *corev1.Pod // UPDATE only
	want      outcome     // with RuntimeClasses (deploy/webhook's config)
	nri       *outcome    // with nodeEnforcement NRI, where it differs
}

func pod(annotations map[string]string, runtimeClass string) *corev1.Pod {
	p := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: annotations},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox"}}},
	}
	if runtimeClass != "" {
		p.Spec.RuntimeClassName = &runtimeClass
	}
	return p
}

func denied(webhook string, sent [2]int, code int32, message string) outcome {
	return outcome{sent: sent, code: code,
		err: `admission webhook "` + webhook + `" denied the request: ` + message}
}

var cases = []reviewCase{
	{
		name: "no annotations: never sent", namespace: "ci", operation: admission.Create,
		pod:  pod(nil, ""),
		want: outcome{sent: [2]int{0, 0}},
	},
	{
		name: "another annotation: never sent", namespace: "ci", operation: admission.Create,
		pod:  pod(map[string]string{"example.com/owner": "ci"}, ""),
		want: outcome{sent: [2]int{0, 0}, annotations: map[string]string{"example.com/owner": "ci"}},
	},
	{
		name: "kube-system is left out", namespace: "kube-system", operation: admission.Create,
		pod:  pod(map[string]string{nofileKey: nofile}, ""),
		want: outcome{sent: [2]int{0, 0}, annotations: map[string]string{nofileKey: nofile}},
	},
	{
		name: "ulimits where privileged: the runtime class", namespace: "ci", operation: admission.Create,
		pod: pod(map[string]string{nofileKey: nofile}, ""),
		want: outcome{sent: [2]int{1, 1}, runtimeClass: "podlimits",
			annotations: map[string]string{nofileKey: nofile}},
		nri: &outcome{sent: [2]int{1, 1}, annotations: map[string]string{nofileKey: nofile}},
	},
	{
		name: "a pod PID limit within the LimitRange: the class of PID-limit nodes", namespace: "tenants",
		operation: admission.Create,
		pod:       pod(map[string]string{pidLimitKey: "4096"}, ""),
		want: outcome{sent: [2]int{1, 1}, runtimeClass: "podlimits-pid",
			annotations: map[string]string{pidLimitKey: "4096"}},
		nri: &outcome{sent: [2]int{1, 1}, annotations: map[string]string{pidLimitKey: "4096"}},
	},
	{
		name: "the LimitRange's default patched in as the annotation", namespace: "tenants",
		operation: admission.Create,
		pod:       pod(map[string]string{writableKey: "true"}, ""),
		want: outcome{sent: [2]int{1, 1}, runtimeClass: "podlimits-cgroups",
			annotations: map[string]string{writableKey: "true", pidLimitKey: "2048"}},
		nri: &outcome{sent: [2]int{1, 1},
			annotations: map[string]string{writableKey: "true", pidLimitKey: "2048"}},
	},
	{
		name: "a class above the need is kept", namespace: "ci", operation: admission.Create,
		pod: pod(map[string]string{nofileKey: nofile}, "podlimits-cgroups"),
		want: outcome{sent: [2]int{1, 1}, runtimeClass: "podlimits-cgroups",
			annotations: map[string]string{nofileKey: nofile}},
	},
	{
		name: "another runtime class", namespace: "ci", operation: admission.Create,
		pod: pod(map[string]string{nofileKey: nofile}, "gvisor"),
		want: denied(mutateName, [2]int{1, 0}, 403, `pods "web" is forbidden: spec.runtimeClassName: `+
			`Invalid value: "gvisor": a pod that uses podlimits' fields runs with runtime class "podlimits"`),
		nri: &outcome{sent: [2]int{1, 1}, runtimeClass: "gvisor",
			annotations: map[string]string{nofileKey: nofile}},
	},
	{
		name: "ulimits at baseline: Pod Security", namespace: "tenants", operation: admission.Create,
		pod: pod(map[string]string{nofileKey: nofile}, ""),
		want: denied(mutateName, [2]int{1, 0}, 403, `pods "web" is forbidden: violates PodSecurity `+
			`"baseline:latest": ulimits (container "app" must not set securityContext.ulimits)`),
	},
	{
		name: "a pod PID limit above the LimitRange's max", namespace: "tenants", operation: admission.Create,
		pod: pod(map[string]string{pidLimitKey: "8192"}, ""),
		want: denied(mutateName, [2]int{1, 0}, 403,
			`pods "web" is forbidden: maximum pid usage per Pod is 4096, but limit is 8192`),
	},
	{
		name: "soft above hard", namespace: "ci", operation: admission.Create,
		pod: pod(map[string]string{nofileKey: "- {type: nofile, soft: 10, hard: 5}"}, ""),
		want: denied(mutateName, [2]int{1, 0}, 422, `Pod "web" is invalid: `+
			`spec.containers[0].securityContext.ulimits[0].soft: Invalid value: 10: `+
			`must be less than or equal to hard limit 5`),
	},
	{
		name: "the deprecated key: a warning", namespace: "ci", operation: admission.Create,
		pod: pod(map[string]string{deprecated: nofile}, ""),
		want: outcome{sent: [2]int{1, 1}, runtimeClass: "podlimits",
			annotations: map[string]string{deprecated: nofile},
			warnings:    []string{"metadata.annotations[" + deprecated + "]: deprecated, use " + nofileKey}},
		nri: &outcome{sent: [2]int{1, 1}, annotations: map[string]string{deprecated: nofile},
			warnings: []string{"metadata.annotations[" + deprecated + "]: deprecated, use " + nofileKey}},
	},
	{
		name: "update keeping the annotations", namespace: "ci", operation: admission.Update,
		pod:    pod(map[string]string{nofileKey: nofile, "example.com/owner": "ci"}, "podlimits"),
		oldPod: pod(map[string]string{nofileKey: nofile}, "podlimits"),
		want: outcome{sent: [2]int{0, 1}, runtimeClass: "podlimits",
			annotations: map[string]string{nofileKey: nofile, "example.com/owner": "ci"}},
	},
	{
		name: "update changing them", namespace: "ci", operation: admission.Update,
		pod:    pod(map[string]string{nofileKey: "- {type: nofile, soft: 1, hard: 1}"}, "podlimits"),
		oldPod: pod(map[string]string{nofileKey: nofile}, "podlimits"),
		want: denied(validateName, [2]int{0, 1}, 422,
			`Pod "web" is invalid: metadata.annotations: Forbidden: podlimits' limit annotations are immutable`),
	},
	{
		// The validating webhook's match condition reads oldObject too.
		name: "update removing them", namespace: "ci", operation: admission.Update,
		pod:    pod(nil, "podlimits"),
		oldPod: pod(map[string]string{nofileKey: nofile}, "podlimits"),
		want: denied(validateName, [2]int{0, 1}, 422,
			`Pod "web" is invalid: metadata.annotations: Forbidden: podlimits' limit annotations are immutable`),
	},
	{
		name: "update without them: never sent", namespace: "ci", operation: admission.Update,
		pod:    pod(map[string]string{"example.com/owner": "ci"}, ""),
		oldPod: pod(nil, ""),
		want:   outcome{sent: [2]int{0, 0}, annotations: map[string]string{"example.com/owner": "ci"}},
	},
}
