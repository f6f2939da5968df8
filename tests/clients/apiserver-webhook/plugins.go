package main

// kube-apiserver's MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins, set up as the
// apiserver sets them up, with the webhook configurations of deploy/webhook/40-webhooks.yaml as
// the cluster would store them, and a service resolver that sends the podlimits-webhook Service
// to one `podlimits webhook` on loopback.

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/url"
	"os"
	"reflect"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
)

// The Service 40-webhooks.yaml names; the certificate is made for its DNS name, which the
// apiserver's webhook client verifies (ServerName NAME.NAMESPACE.svc).
const (
	serviceNamespace = "podlimits-system"
	serviceName      = "podlimits-webhook"
)

// readWebhookConfigurations decodes the manifest's documents with client-go's scheme, with
// CA_BUNDLE replaced by the CA's base64 as deploy/webhook/README.md's sed replaces it.
func readWebhookConfigurations(path string, caPEM []byte) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	text = bytes.ReplaceAll(text, []byte("CA_BUNDLE"), []byte(base64.StdEncoding.EncodeToString(caPEM)))
	var mutatingConfig *admissionregistrationv1.MutatingWebhookConfiguration
	var validatingConfig *admissionregistrationv1.ValidatingWebhookConfiguration
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(text)))
	for {
		doc, err := reader.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		object, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		switch o := object.(type) {
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			mutatingConfig = o
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			validatingConfig = o
		default:
			return nil, nil, fmt.Errorf("%s: unexpected %T", path, object)
		}
	}
	if mutatingConfig == nil || validatingConfig == nil {
		return nil, nil, fmt.Errorf("%s: want one MutatingWebhookConfiguration and one ValidatingWebhookConfiguration", path)
	}
	for i := range mutatingConfig.Webhooks {
		w := &mutatingConfig.Webhooks[i]
		if w.ReinvocationPolicy == nil {
			w.ReinvocationPolicy = ptrTo(admissionregistrationv1.NeverReinvocationPolicy)
		}
		setWebhookDefaults(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector,
			&w.TimeoutSeconds, &w.ClientConfig, w.Rules)
	}
	for i := range validatingConfig.Webhooks {
		w := &validatingConfig.Webhooks[i]
		setWebhookDefaults(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector,
			&w.TimeoutSeconds, &w.ClientConfig, w.Rules)
	}
	return mutatingConfig, validatingConfig, nil
}

// setWebhookDefaults: what kube-apiserver's defaulting (k8s.io/kubernetes
// pkg/apis/admissionregistration/v1/defaults.go, not a library) fills in when the configuration
// is stored, and so what its admission plugins read back. Without it an unset objectSelector
// would select nothing.
func setWebhookDefaults(failure **admissionregistrationv1.FailurePolicyType, match **admissionregistrationv1.MatchPolicyType,
	namespaces, objects **metav1.LabelSelector, timeout **int32, client *admissionregistrationv1.WebhookClientConfig,
	rules []admissionregistrationv1.RuleWithOperations) {
	if *failure == nil {
		*failure = ptrTo(admissionregistrationv1.Fail)
	}
	if *match == nil {
		*match = ptrTo(admissionregistrationv1.Equivalent)
	}
	if *namespaces == nil {
		*namespaces = &metav1.LabelSelector{}
	}
	if *objects == nil {
		*objects = &metav1.LabelSelector{}
	}
	if *timeout == nil {
		*timeout = ptrTo(int32(10))
	}
	if client.Service != nil && client.Service.Port == nil {
		client.Service.Port = ptrTo(int32(443))
	}
	for i := range rules {
		if rules[i].Scope == nil {
			rules[i].Scope = ptrTo(admissionregistrationv1.AllScopes)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// loopbackService resolves the webhook's Service to one `podlimits webhook`: what the
// apiserver's endpoint resolver does with the Service's one ready endpoint.
type loopbackService struct{ hostPort string }

func (s loopbackService) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	if namespace != serviceNamespace || name != serviceName {
		return nil, fmt.Errorf("service %s/%s: not the webhook's", namespace, name)
	}
	return &url.URL{Scheme: "https", Host: s.hostPort}, nil
}

// clusterNamespaces: the namespaces the cases' pods live in, as the apiserver stores them (with
// the kubernetes.io/metadata.name label it sets, which 40-webhooks.yaml's namespaceSelector reads).
func clusterNamespaces(names ...string) []runtime.Object {
	var out []runtime.Object
	for _, n := range names {
		out = append(out, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: n, Labels: map[string]string{"kubernetes.io/metadata.name": n}}})
	}
	return out
}

// admissionPlugins is the apiserver's pair of webhook plugins for one webhook.
type admissionPlugins struct {
	mutating   *mutating.Plugin
	validating *validating.Plugin
}

// newAdmissionPlugins: both plugins wired as kube-apiserver's plugin initializers wire them
// (the external client and informers, a service resolver), their configurations and the
// namespaces in a fake API whose informers have synced.
func newAdmissionPlugins(m *admissionregistrationv1.MutatingWebhookConfiguration,
	v *admissionregistrationv1.ValidatingWebhookConfiguration, hostPort string, stop <-chan struct{}) (*admissionPlugins, error) {
	objects := append(clusterNamespaces(namespacesOfCases...), m.DeepCopy(), v.DeepCopy())
	client := fake.NewSimpleClientset(objects...)
	factory := informers.NewSharedInformerFactory(client, 0)
	mutatingPlugin, err := mutating.NewMutatingWebhook(nil)
	if err != nil {
		return nil, err
	}
	validatingPlugin, err := validating.NewValidatingAdmissionWebhook(nil)
	if err != nil {
		return nil, err
	}
	resolver := loopbackService{hostPort}
	mutatingPlugin.SetServiceResolver(resolver)
	mutatingPlugin.SetExternalKubeClientSet(client)
	mutatingPlugin.SetExternalKubeInformerFactory(factory)
	validatingPlugin.SetServiceResolver(resolver)
	validatingPlugin.SetExternalKubeClientSet(client)
	validatingPlugin.SetExternalKubeInformerFactory(factory)
	factory.Start(stop)
	factory.WaitForCacheSync(stop)
	if err := mutatingPlugin.ValidateInitialization(); err != nil {
		return nil, err
	}
	if err := validatingPlugin.ValidateInitialization(); err != nil {
		return nil, err
	}
	// Each waits up to 10 s for its informers, as the apiserver's first admission does.
	if !mutatingPlugin.WaitForReady() || !validatingPlugin.WaitForReady() {
		return nil, fmt.Errorf("the webhook plugins did not become ready")
	}
	return &admissionPlugins{mutatingPlugin, validatingPlugin}, nil
}

// objectInterfaces: client-go's scheme, whose v1 Pod is what the admission attributes hold here.
// kube-apiserver's hold the internal Pod (k8s.io/kubernetes/pkg/apis/core, not a library) and
// convert it to v1 and back; converting v1 to v1 is a copy.
type objectInterfaces struct{ admission.ObjectInterfaces }

func (o objectInterfaces) GetObjectConvertor() runtime.ObjectConvertor {
	return sameTypeConvertor{o.ObjectInterfaces.GetObjectConvertor()}
}

type sameTypeConvertor struct{ runtime.ObjectConvertor }

func (c sameTypeConvertor) Convert(in, out, context interface{}) error {
	if reflect.TypeOf(in) == reflect.TypeOf(out) {
		reflect.ValueOf(out).Elem().Set(reflect.ValueOf(in.(runtime.Object).DeepCopyObject()).Elem())
		return nil
	}
	return c.ObjectConvertor.Convert(in, out, context)
}
