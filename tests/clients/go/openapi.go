package main

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/openapi3"
	"k8s.io/kube-openapi/pkg/util/proto"
)

// openAPICases read the server's OpenAPI documents with client-go's own readers, as kubectl
// does: the v3 index and a group version's document (openapi3.Root, what kubectl explain and
// apply use), and the v2 document in gnostic's protobuf (DiscoveryClient.OpenAPISchema, the
// one form it accepts) turned into kube-openapi's models.
func openAPICases() []testCase {
	return []testCase{
		{name: "openapi/v3-group-versions", run: func(ctx context.Context, e *env) error {
			cs, err := e.clientset(jsonContent)
			if err != nil {
				return err
			}
			gvs, err := openapi3.NewRoot(cs.Discovery().OpenAPIV3()).GroupVersions()
			if err != nil {
				return err
			}
			var got []string
			for _, gv := range gvs {
				got = append(got, gv.String())
			}
			sort.Strings(got)
			// metrics.k8s.io as a cluster with metrics-server lists it (its paths; no schemas yet).
			return expect("group versions", fmt.Sprint(got), "[apps/v1 authentication.k8s.io/v1 authorization.k8s.io/v1 batch/v1 coordination.k8s.io/v1 metrics.k8s.io/v1beta1 v1]")
		}},
		{name: "openapi/v3-pod-schema", run: func(ctx context.Context, e *env) error {
			cs, err := e.clientset(jsonContent)
			if err != nil {
				return err
			}
			doc, err := openapi3.NewRoot(cs.Discovery().OpenAPIV3()).GVSpec(schema.GroupVersion{Version: "v1"})
			if err != nil {
				return err
			}
			pod, ok := doc.Components.Schemas["io.k8s.api.core.v1.Pod"]
			if !ok {
				return fmt.Errorf("no io.k8s.api.core.v1.Pod in components.schemas")
			}
			if err := expect("Pod's group version kind",
				fmt.Sprint(pod.Extensions["x-kubernetes-group-version-kind"]),
				"[map[group: kind:Pod version:v1]]"); err != nil {
				return err
			}
			sc, ok := doc.Components.Schemas["io.k8s.api.core.v1.SecurityContext"]
			if !ok {
				return fmt.Errorf("no io.k8s.api.core.v1.SecurityContext in components.schemas")
			}
			ulimits := sc.Properties["ulimits"]
			return expect("ulimits' list type and keys",
				fmt.Sprint(ulimits.Extensions["x-kubernetes-list-type"], " ",
					ulimits.Extensions["x-kubernetes-list-map-keys"]),
				"map [name]")
		}},
		{name: "openapi/v2-protobuf-models", run: func(ctx context.Context, e *env) error {
			cs, err := e.clientset(jsonContent)
			if err != nil {
				return err
			}
			doc, err := cs.Discovery().OpenAPISchema()
			if err != nil {
				return err
			}
			models, err := proto.NewOpenAPIData(doc)
			if err != nil {
				return err
			}
			pod, ok := models.LookupModel("io.k8s.api.core.v1.Pod").(*proto.Kind)
			if !ok {
				return fmt.Errorf("no Pod model in /openapi/v2")
			}
			if err := expect("Pod's fields", fmt.Sprint(pod.Keys()),
				"[apiVersion kind metadata spec status]"); err != nil {
				return err
			}
			containers, ok := models.LookupModel("io.k8s.api.core.v1.PodSpec").(*proto.Kind)
			if !ok {
				return fmt.Errorf("no PodSpec model in /openapi/v2")
			}
			ext := containers.Fields["containers"].GetExtensions()
			return expect("containers' patch strategy and merge key",
				fmt.Sprint(ext["x-kubernetes-patch-strategy"], " ", ext["x-kubernetes-patch-merge-key"]),
				"merge name")
		}},
	}
}

func expect(what, got, want string) error {
	if got != want {
		return fmt.Errorf("%s: got %q, want %q", what, got, want)
	}
	return nil
}
