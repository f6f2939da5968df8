package main

// Server-side apply against structured-merge-diff as the oracle: each scenario is a sequence of
// writes (applies by a manager, with or without force, and updates by a manager) done twice, once
// through serve and once through apimachinery's own field manager (managedfields.
// NewDefaultFieldManager, the chain kube-apiserver runs, over structured-merge-diff typed with
// client-go's schema of the kind). After every write the two must agree: the same conflict
// message, or the same data and labels and the same managedFields (manager, operation,
// subresource and field set; times aside). And client-go's typed Apply() with an apply
// configuration, in JSON, as Helm 4, Flux and Argo CD send it.

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// applyWrite is one write of a scenario: an apply of `config` (a ConfigMap's data and labels) by
// `manager`, or, with update set, a PUT of the whole object with that data and labels.
type applyWrite struct {
	manager string
	update  bool
	force   bool
	data    map[string]string
	labels  map[string]string
}

type applyScenario struct {
	name   string
	writes []applyWrite
}

func applyScenarios() []applyScenario {
	d := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	return []applyScenario{
		{"create-share-conflict-force", []applyWrite{
			{manager: "alice", data: d("a", "1", "b", "1"), labels: d("app", "x")},
			{manager: "bob", data: d("a", "1")},
			{manager: "bob", data: d("a", "2")},
			{manager: "bob", force: true, data: d("a", "2")},
		}},
		{"prune-unless-owned", []applyWrite{
			{manager: "alice", data: d("a", "1", "b", "1", "c", "1")},
			{manager: "bob", data: d("b", "1")},
			{manager: "alice", data: d("c", "1")},
		}},
		{"update-managers", []applyWrite{
			{manager: "creator", update: true, data: d("a", "1"), labels: d("app", "x")},
			{manager: "alice", data: d("a", "2")},
			{manager: "editor", update: true, data: d("a", "1", "z", "9"), labels: d("app", "y")},
			{manager: "alice", data: d("a", "3")},
			{manager: "alice", force: true, data: d("a", "3"), labels: d("app", "z")},
		}},
		{"labels-move-between-appliers", []applyWrite{
			{manager: "alice", labels: d("l1", "a", "l2", "a")},
			{manager: "bob", labels: d("l2", "a", "l3", "b")},
			{manager: "alice", labels: d("l1", "a")},
			{manager: "bob", labels: d("l3", "c")},
		}},
	}
}

// oracle is apimachinery's field manager for ConfigMaps, over client-go's schema.
type oracle struct {
	fm   *managedfields.FieldManager
	live runtime.Object
}

func newOracle() (*oracle, error) {
	gvk := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	fm, err := managedfields.NewDefaultFieldManager(applyconfigurations.NewTypeConverter(scheme.Scheme),
		scheme.Scheme, scheme.Scheme, scheme.Scheme, gvk, corev1.SchemeGroupVersion, "", nil)
	if err != nil {
		return nil, err
	}
	return &oracle{fm: fm}, nil
}

func (o *oracle) write(name, ns string, w applyWrite) error {
	if o.live == nil {
		o.live = &corev1.ConfigMap{}
	}
	if w.update {
		next := &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: w.labels},
			Data:       w.data,
		}
		out, err := o.fm.Update(o.live, next, w.manager)
		if err != nil {
			return err
		}
		o.live = out
		return nil
	}
	patch := &unstructured.Unstructured{Object: map[string]interface{}{}}
	if err := json.Unmarshal(applyBody(name, ns, w), &patch.Object); err != nil {
		return err
	}
	out, err := o.fm.Apply(o.live, patch, w.manager, w.force)
	if err != nil {
		return err
	}
	cm := &corev1.ConfigMap{}
	if u, ok := out.(*unstructured.Unstructured); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, cm); err != nil {
			return err
		}
		out = cm
	}
	o.live = out
	return nil
}

func applyBody(name, ns string, w applyWrite) []byte {
	meta := map[string]interface{}{"name": name, "namespace": ns}
	if w.labels != nil {
		meta["labels"] = w.labels
	}
	body := map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
	if w.data != nil {
		body["data"] = w.data
	}
	b, _ := json.Marshal(body)
	return b
}

// serveWrite does the same write through serve, in JSON.
func serveWrite(ctx context.Context, cs kubernetes.Interface, name, ns string, w applyWrite) (*corev1.ConfigMap, error) {
	if w.update {
		cms := cs.CoreV1().ConfigMaps(ns)
		next := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: w.labels}, Data: w.data}
		opts := metav1.UpdateOptions{FieldManager: w.manager}
		if _, err := cms.Get(ctx, name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return cms.Create(ctx, next, metav1.CreateOptions{FieldManager: w.manager})
		}
		return cms.Update(ctx, next, opts)
	}
	force := w.force
	out := &corev1.ConfigMap{}
	err := cs.CoreV1().RESTClient().Patch(types.ApplyPatchType).Namespace(ns).Resource("configmaps").
		Name(name).VersionedParams(&metav1.PatchOptions{FieldManager: w.manager, Force: &force},
		scheme.ParameterCodec).Body(applyBody(name, ns, w)).Do(ctx).Into(out)
	return out, err
}

// managedSummary: "manager operation subresource fieldset" per entry, sorted, the field set
// re-encoded through structured-merge-diff so that both sides are written alike.
func managedSummary(entries []metav1.ManagedFieldsEntry) ([]string, error) {
	var out []string
	for _, e := range entries {
		set := &fieldpath.Set{}
		if e.FieldsV1 != nil {
			if err := set.FromJSON(strings.NewReader(string(e.FieldsV1.Raw))); err != nil {
				return nil, fmt.Errorf("entry of %s: %v", e.Manager, err)
			}
		}
		b, err := set.ToJSON()
		if err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%s %s %s %s", e.Manager, e.Operation, e.Subresource, b))
	}
	sort.Strings(out)
	return out, nil
}

func compareWithOracle(step string, served *corev1.ConfigMap, servedErr error, o *oracle, oracleErr error) error {
	if (servedErr != nil) != (oracleErr != nil) {
		return fmt.Errorf("%s: serve answered %v, structured-merge-diff %v", step, servedErr, oracleErr)
	}
	if servedErr != nil {
		if servedErr.Error() != oracleErr.Error() {
			return fmt.Errorf("%s: serve refused with\n  %q\nstructured-merge-diff with\n  %q", step, servedErr.Error(), oracleErr.Error())
		}
		return nil
	}
	want := o.live.(*corev1.ConfigMap)
	if !reflect.DeepEqual(served.Data, want.Data) && !(len(served.Data) == 0 && len(want.Data) == 0) {
		return fmt.Errorf("%s: data %v, structured-merge-diff %v", step, served.Data, want.Data)
	}
	if !reflect.DeepEqual(served.Labels, want.Labels) && !(len(served.Labels) == 0 && len(want.Labels) == 0) {
		return fmt.Errorf("%s: labels %v, structured-merge-diff %v", step, served.Labels, want.Labels)
	}
	got, err := managedSummary(served.ManagedFields)
	if err != nil {
		return fmt.Errorf("%s: serve's managedFields: %v", step, err)
	}
	exp, err := managedSummary(want.ManagedFields)
	if err != nil {
		return fmt.Errorf("%s: structured-merge-diff's managedFields: %v", step, err)
	}
	if !reflect.DeepEqual(got, exp) {
		return fmt.Errorf("%s: managedFields\n  %s\nstructured-merge-diff\n  %s", step,
			strings.Join(got, "\n  "), strings.Join(exp, "\n  "))
	}
	return nil
}

func applyCases() []testCase {
	var cases []testCase
	for _, sc := range applyScenarios() {
		sc := sc
		cases = append(cases, testCase{name: "apply/oracle/" + sc.name, run: func(ctx context.Context, e *env) error {
			cs, err := e.clientset(jsonContent)
			if err != nil {
				return err
			}
			o, err := newOracle()
			if err != nil {
				return err
			}
			name := "ssa-" + sc.name
			for i, w := range sc.writes {
				served, servedErr := serveWrite(ctx, cs, name, e.namespace, w)
				oracleErr := o.write(name, e.namespace, w)
				what := fmt.Sprintf("write %d (%s, update=%v, force=%v)", i+1, w.manager, w.update, w.force)
				if err := compareWithOracle(what, served, servedErr, o, oracleErr); err != nil {
					return err
				}
			}
			return nil
		}})
	}
	cases = append(cases, testCase{name: "apply/oracle/pod-lists-by-key", run: func(ctx context.Context, e *env) error {
		cs, err := e.clientset(jsonContent)
		if err != nil {
			return err
		}
		return podApplyScenario(ctx, cs, e.namespace)
	}})
	cases = append(cases, testCase{name: "apply/typed-apply-configuration", run: func(ctx context.Context, e *env) error {
		cs, err := e.clientset(jsonContent)
		if err != nil {
			return err
		}
		cms := cs.CoreV1().ConfigMaps(e.namespace)
		cfg := applycorev1.ConfigMap("typed-apply", e.namespace).WithLabels(map[string]string{"app": "x"}).
			WithData(map[string]string{"a": "1"})
		got, err := cms.Apply(ctx, cfg, metav1.ApplyOptions{FieldManager: "helm"})
		if err != nil {
			return step("apply", err)
		}
		if got.Data["a"] != "1" || got.Labels["app"] != "x" {
			return fmt.Errorf("apply: got data %v labels %v", got.Data, got.Labels)
		}
		// What the manager owns, read back as an apply configuration (client-go's Extract).
		extracted, err := applycorev1.ExtractConfigMap(got, "helm")
		if err != nil {
			return step("extract", err)
		}
		if !reflect.DeepEqual(extracted.Data, map[string]string{"a": "1"}) ||
			!reflect.DeepEqual(extracted.Labels, map[string]string{"app": "x"}) {
			return fmt.Errorf("extract: data %v labels %v", extracted.Data, extracted.Labels)
		}
		// Another manager's different value conflicts; forced, it moves.
		other := applycorev1.ConfigMap("typed-apply", e.namespace).WithData(map[string]string{"a": "2"})
		_, err = cms.Apply(ctx, other, metav1.ApplyOptions{FieldManager: "flux"})
		if !apierrors.IsConflict(err) || err.Error() != `Apply failed with 1 conflict: conflict with "helm": .data.a` {
			return fmt.Errorf("a conflicting apply: want the conflict, got %v", err)
		}
		got, err = cms.Apply(ctx, other, metav1.ApplyOptions{FieldManager: "flux", Force: true})
		if err != nil {
			return step("forced apply", err)
		}
		if got.Data["a"] != "2" {
			return fmt.Errorf("forced apply: data %v", got.Data)
		}
		return nil
	}})
	return cases
}

// podWrite is an apply of a whole pod configuration (JSON) by a manager.
type podWrite struct {
	manager string
	force   bool
	config  string
}

// podApplyScenario: a pod applied by two managers, compared with structured-merge-diff as the
// ConfigMaps are. A pod's spec cannot change once created, so the scenario shares and re-applies
// its containers (a map list by name), their ports (by containerPort and protocol, the protocol
// defaulted by the schema), env (by name) and an atomic command, and moves labels; the comparison
// is of the managedFields and labels (the defaults serve's admission fills in are nobody's).
func podApplyScenario(ctx context.Context, cs kubernetes.Interface, ns string) error {
	const spec = `"spec":{"containers":[{"name":"web","image":"busybox:latest","command":["sleep","3600"],` +
		`"ports":[{"containerPort":80},{"containerPort":53,"protocol":"UDP"}],"env":[{"name":"A","value":"1"}]},` +
		`{"name":"side","image":"busybox:latest"}]}`
	pod := func(labels string, withSpec bool) string {
		s := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"ssa-pod","namespace":"` + ns + `"` + labels + `}`
		if withSpec {
			s += "," + spec
		}
		return s + "}"
	}
	writes := []podWrite{
		{manager: "alice", config: pod(`,"labels":{"app":"web","tier":"a"}`, true)},
		{manager: "bob", config: pod(`,"labels":{"tier":"a"}`, true)},
		{manager: "bob", config: pod(`,"labels":{"tier":"b"}`, false)},
		{manager: "bob", force: true, config: pod(`,"labels":{"tier":"b"}`, false)},
		{manager: "alice", config: pod(`,"labels":{"app":"web"}`, true)},
	}
	gvk := corev1.SchemeGroupVersion.WithKind("Pod")
	fm, err := managedfields.NewDefaultFieldManager(applyconfigurations.NewTypeConverter(scheme.Scheme),
		scheme.Scheme, scheme.Scheme, scheme.Scheme, gvk, corev1.SchemeGroupVersion, "", nil)
	if err != nil {
		return err
	}
	var live runtime.Object = &corev1.Pod{}
	for i, w := range writes {
		what := fmt.Sprintf("write %d (%s, force=%v)", i+1, w.manager, w.force)
		force := w.force
		served := &corev1.Pod{}
		servedErr := cs.CoreV1().RESTClient().Patch(types.ApplyPatchType).Namespace(ns).Resource("pods").
			Name("ssa-pod").VersionedParams(&metav1.PatchOptions{FieldManager: w.manager, Force: &force},
			scheme.ParameterCodec).Body([]byte(w.config)).Do(ctx).Into(served)
		patch := &unstructured.Unstructured{Object: map[string]interface{}{}}
		if err := json.Unmarshal([]byte(w.config), &patch.Object); err != nil {
			return err
		}
		out, oracleErr := fm.Apply(live, patch, w.manager, w.force)
		if (servedErr != nil) != (oracleErr != nil) {
			return fmt.Errorf("%s: serve answered %v, structured-merge-diff %v", what, servedErr, oracleErr)
		}
		if servedErr != nil {
			if servedErr.Error() != oracleErr.Error() {
				return fmt.Errorf("%s: serve refused with\n  %q\nstructured-merge-diff with\n  %q", what, servedErr.Error(), oracleErr.Error())
			}
			continue
		}
		want := &corev1.Pod{}
		if u, ok := out.(*unstructured.Unstructured); ok {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, want); err != nil {
				return err
			}
		} else if p, ok := out.(*corev1.Pod); ok {
			want = p
		}
		live = want
		if !reflect.DeepEqual(served.Labels, want.Labels) {
			return fmt.Errorf("%s: labels %v, structured-merge-diff %v", what, served.Labels, want.Labels)
		}
		got, err := managedSummary(served.ManagedFields)
		if err != nil {
			return err
		}
		exp, err := managedSummary(want.ManagedFields)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got, exp) {
			return fmt.Errorf("%s: managedFields\n  %s\nstructured-merge-diff\n  %s", what,
				strings.Join(got, "\n  "), strings.Join(exp, "\n  "))
		}
	}
	return nil
}
