// Command clients-go checks `podlimits serve` with Kubernetes' own Go client, client-go, as a
// controller or operator built on it uses the API: informers with client-go's default settings
// (watch-list), typed create/update/patch/delete in JSON and in protobuf, the apiserver's
// 422 answers to invalid ListOptions, compared with apimachinery's own validation, and the
// OpenAPI documents as client-go's own readers (openapi3, OpenAPISchema's protobuf) read them,
// and server-side apply compared write by write with structured-merge-diff's own field manager
// (apply.go).
//
//	clients-go -kubeconfig FILE [-objects N] [-run REGEXP]
//
// Each check is a named case; a failure prints what was expected and what came. Everything the
// cases create lives in a namespace of their own, removed at the end. Exit 0 when every case
// passed, 1 otherwise, 2 on a usage or set-up error.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	jsonContent     = "application/json"
	protobufContent = "application/vnd.kubernetes.protobuf"
)

// env is what every case gets: the server's config, a namespace of the run's own and the
// requests made through configs built from it.
type env struct {
	base      *rest.Config
	namespace string
	objects   int
	requests  *requestLog
}

// config is a copy of the server's config whose requests are logged, in the given content
// type ("" keeps client-go's default, which is protobuf for the typed clients).
func (e *env) config(contentType string) *rest.Config {
	c := rest.CopyConfig(e.base)
	if contentType != "" {
		c.ContentType = contentType
		c.AcceptContentTypes = contentType
		if contentType == protobufContent {
			c.AcceptContentTypes = protobufContent + "," + jsonContent
		}
	}
	c.Wrap(e.requests.wrap)
	return c
}

func (e *env) clientset(contentType string) (*kubernetes.Clientset, error) {
	return kubernetes.NewForConfig(e.config(contentType))
}

// requestLog keeps "METHOD path?query" of every request, so a case can say which requests an
// informer made (a LIST means it fell back from watch-list).
type requestLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		l.mu.Lock()
		l.lines = append(l.lines, r.Method+" "+r.URL.RequestURI())
		l.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

// since returns the requests logged after mark (a length returned by mark).
func (l *requestLog) since(mark int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines[mark:]...)
}

func (l *requestLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type testCase struct {
	name string
	run  func(ctx context.Context, e *env) error
}

func allCases() []testCase {
	var cases []testCase
	cases = append(cases, informerCases()...)
	cases = append(cases, watchListCases()...)
	cases = append(cases, typedCases()...)
	cases = append(cases, listOptionsCases()...)
	cases = append(cases, openAPICases()...)
	cases = append(cases, applyCases()...)
	cases = append(cases, protobufCases()...)
	cases = append(cases, metadataCases()...)
	return cases
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "the kubeconfig `podlimits serve` wrote")
	objects := flag.Int("objects", 8, "objects each informer case creates, updates and deletes")
	run := flag.String("run", "", "run only the cases whose name matches this regexp")
	perCase := flag.Duration("case-timeout", 60*time.Second, "the bound of one case")
	corpus := flag.String("fuzz-corpus", "", "write the request path fuzzer's client-go seeds into this directory and exit")
	flag.Parse()
	if *corpus != "" {
		if err := writeFuzzCorpus(*corpus); err != nil {
			fmt.Fprintf(os.Stderr, "clients-go: -fuzz-corpus: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *kubeconfig == "" || *objects < 1 {
		flag.Usage()
		os.Exit(2)
	}
	selected, err := regexp.Compile(*run)
	if err != nil {
		fmt.Fprintf(os.Stderr, "clients-go: -run: %v\n", err)
		os.Exit(2)
	}
	base, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "clients-go: %v\n", err)
		os.Exit(2)
	}
	// client-go's own rate limit (5 requests a second, bursts of 10) would time the client, not
	// the server; the informers' settings stay client-go's defaults.
	base.QPS, base.Burst = 500, 1000
	e := &env{base: base, objects: *objects, requests: &requestLog{}}
	ctx := context.Background()
	admin, err := kubernetes.NewForConfig(base)
	if err != nil {
		fmt.Fprintf(os.Stderr, "clients-go: %v\n", err)
		os.Exit(2)
	}
	ns, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "clients-go-"}}, metav1.CreateOptions{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "clients-go: creating the test namespace: %v\n", err)
		os.Exit(2)
	}
	e.namespace = ns.Name

	var failed []string
	ran := 0
	for _, c := range allCases() {
		if !selected.MatchString(c.name) {
			continue
		}
		ran++
		began := time.Now()
		caseCtx, cancel := context.WithTimeout(ctx, *perCase)
		err := c.run(caseCtx, e)
		cancel()
		took := time.Since(began).Round(time.Millisecond)
		if err != nil {
			failed = append(failed, c.name)
			fmt.Printf("--- FAIL: %s (%v)\n    %s\n", c.name, took,
				strings.ReplaceAll(err.Error(), "\n", "\n    "))
			continue
		}
		fmt.Printf("--- PASS: %s (%v)\n", c.name, took)
	}
	if err := admin.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil {
		fmt.Printf("clients-go: removing namespace %s: %v\n", ns.Name, err)
	}
	sort.Strings(failed)
	fmt.Printf("clients-go: %d cases, %d passed, %d failed\n", ran, ran-len(failed), len(failed))
	if ran == 0 || len(failed) > 0 {
		os.Exit(1)
	}
}
