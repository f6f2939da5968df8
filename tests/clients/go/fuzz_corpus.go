package main

// -fuzz-corpus DIR: the request path fuzzer's seeds as client-go itself encodes them (protobuf
// in the `k8s\0` envelope), so the fuzzer starts from real client bodies rather than from the
// decoder's own reading of the format: fuzz/corpus/request_path_fuzz/clientgo_*.

import (
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

const protobufMediaType = "application/vnd.kubernetes.protobuf"

func writeFuzzCorpus(dir string) error {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), protobufMediaType)
	if !ok {
		return fmt.Errorf("client-go has no %s serializer", protobufMediaType)
	}
	encoder := scheme.Codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion)
	withEphemeral := embeddedStructsPod()
	withEphemeral.Spec.EphemeralContainers = []corev1.EphemeralContainer{{
		EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger", Image: "busybox:latest",
			Stdin: true, TTY: true},
		TargetContainerName: "app"}}
	seeds := []struct {
		name   string
		method string
		target string
		object runtime.Object
	}{
		{"clientgo_create_pod_embedded", "POST", "/api/v1/namespaces/default/pods", embeddedStructsPod()},
		{"clientgo_update_pod_ephemeral", "PUT", "/api/v1/namespaces/default/pods/embedded-structs", withEphemeral},
	}
	for _, seed := range seeds {
		body, err := runtime.Encode(encoder, seed.object)
		if err != nil {
			return fmt.Errorf("%s: %w", seed.name, err)
		}
		input := seed.method + "\n" + seed.target + "\n" + protobufMediaType + "\n" + string(body)
		if err := os.WriteFile(filepath.Join(dir, seed.name), []byte(input), 0o644); err != nil {
			return err
		}
	}
	return nil
}
