// client-go-protobuf reads Cairn in Protocol Buffers with the pinned client-go, as
// kube's controllers do: the metadata client (PartialObjectMetadata lists, gets and
// watches) in every served version, a NotFound Status, and a Scale through a REST client
// that speaks only protobuf. It prints one JSON line per check, with the Content-Type
// of every response it read, for test/client/client-go-protobuf.test.ts to assert on.
//
// Usage: client-go-protobuf KUBECONFIG NAMESPACE NAME
package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"sync"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// contentTypes records the Content-Type of every response, through every client's transport.
type contentTypes struct {
	mu   sync.Mutex
	seen []string
}

type recording struct {
	*contentTypes
	next http.RoundTripper
}

func (r recording) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := r.next.RoundTrip(req)
	if err == nil {
		r.mu.Lock()
		r.seen = append(r.seen, res.Header.Get("Content-Type"))
		r.mu.Unlock()
	}
	return res, err
}

func (c *contentTypes) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := c.seen
	c.seen = nil
	return seen
}

func main() {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	must(err)
	namespace, name := os.Args[2], os.Args[3]
	recorder := &contentTypes{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return recording{recorder, rt} }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := json.NewEncoder(os.Stdout)

	for _, version := range []string{"v1", "v1beta1", "v1alpha1"} {
		gvr := schema.GroupVersionResource{Group: "cairn.dev", Version: version, Resource: "pipelines"}
		pipelines := metadata.NewForConfigOrDie(cfg).Resource(gvr).Namespace(namespace)
		list, err := pipelines.List(ctx, metav1.ListOptions{})
		must(err)
		names := []string{}
		for _, item := range list.Items {
			names = append(names, item.Name)
		}
		one, err := pipelines.Get(ctx, name, metav1.GetOptions{})
		must(err)
		_, missing := pipelines.Get(ctx, "nobody", metav1.GetOptions{})
		watch, err := pipelines.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
		must(err)
		event := <-watch.ResultChan()
		watch.Stop()
		watched, _ := event.Object.(*metav1.PartialObjectMetadata)
		must(out.Encode(map[string]any{
			"version":           version,
			"list":              names,
			"listRV":            list.ResourceVersion,
			"name":              one.Name,
			"uid":               one.UID,
			"labels":            one.Labels,
			"creationTimestamp": one.CreationTimestamp.UTC().Format(time.RFC3339),
			"managers":          len(one.ManagedFields),
			"notFound":          apierrors.IsNotFound(missing),
			"watchType":         event.Type,
			"watchName":         watched.GetName(),
			"contentTypes":      recorder.take(),
		}))
	}

	scaleConfig := rest.CopyConfig(cfg)
	scaleConfig.APIPath = "/apis"
	scaleConfig.GroupVersion = &schema.GroupVersion{Group: "cairn.dev", Version: "v1"}
	scaleConfig.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	scaleConfig.ContentType = "application/vnd.kubernetes.protobuf"
	scaleConfig.AcceptContentTypes = "application/vnd.kubernetes.protobuf"
	client, err := rest.RESTClientFor(scaleConfig)
	must(err)
	scale := &autoscalingv1.Scale{}
	must(client.Get().Namespace(namespace).Resource("pipelines").Name(name).SubResource("scale").Do(ctx).Into(scale))
	read := scale.Spec.Replicas
	scale.Spec.Replicas = read + 5
	updated := &autoscalingv1.Scale{}
	must(client.Put().Namespace(namespace).Resource("pipelines").Name(name).SubResource("scale").Body(scale).Do(ctx).Into(updated))
	missing := client.Get().Namespace(namespace).Resource("pipelines").Name("nobody").SubResource("scale").Do(ctx).Error()
	must(out.Encode(map[string]any{
		"scaleRead":     read,
		"scaleWritten":  updated.Spec.Replicas,
		"scaleNotFound": apierrors.IsNotFound(missing),
		"contentTypes":  recorder.take(),
	}))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
