package main

// The third line of -floor: client-go's own watch decoding of a recorded watch body in memory,
// no network, no informer. It is what rest.Request.newStreamWatcher builds for a watch (the
// negotiator's stream decoder for the response's Content-Type, its framer, a streaming decoder
// of WatchEvents, restclientwatch's decoder of the embedded objects), for a typed clientset's
// serializer (kubernetes/typed/core/v1's setConfigDefaults).

import (
	"bytes"
	"fmt"
	"io"
	"mime"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	restclientwatch "k8s.io/client-go/rest/watch"
)

var podNegotiator = runtime.NewClientNegotiator(
	rest.CodecFactoryForGeneratedClient(scheme.Scheme, scheme.Codecs).WithoutConversion(),
	corev1.SchemeGroupVersion)

// decodeWatch decodes body, a watch response of contentType, up to the initial-events-end
// bookmark and returns how many pods it held.
func decodeWatch(body []byte, contentType string) (int, error) {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return 0, err
	}
	objects, events, framer, err := podNegotiator.StreamDecoder(mediaType, params)
	if err != nil {
		return 0, err
	}
	d := restclientwatch.NewDecoder(
		streaming.NewDecoder(framer.NewFrameReader(io.NopCloser(bytes.NewReader(body))), events), objects)
	added := 0
	for {
		typ, obj, err := d.Decode()
		if err != nil {
			return added, fmt.Errorf("after %d pods: %w", added, err)
		}
		switch typ {
		case watch.Added:
			if _, ok := obj.(*corev1.Pod); !ok {
				return added, fmt.Errorf("an ADDED event of a %T", obj)
			}
			added++
		case watch.Bookmark:
			m, err := meta.Accessor(obj)
			if err != nil {
				return added, err
			}
			if m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
				return added, nil
			}
		default:
			return added, fmt.Errorf("a %s event in the initial events", typ)
		}
	}
}
