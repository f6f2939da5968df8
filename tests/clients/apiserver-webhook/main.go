// Command apiserver-webhook runs kube-apiserver's own webhook admission code (k8s.io/apiserver's
// MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins, Debian's
// golang-k8s-apiserver-dev) with deploy/webhook/40-webhooks.yaml as written against `podlimits
// webhook` on loopback, over TLS with the certificate deploy/webhook/README.md makes, in both of
// the webhook's modes (RuntimeClass, and nodeEnforcement NRI).
//
// Every review goes through the apiserver's client (HTTP/1.1, the Service's DNS name verified
// against the caBundle) and its checks of the answer (uid, apiVersion, kind, patch type), so a
// review podlimits answered wrongly fails the admission. Patches are applied by the apiserver's
// code and the admitted pod is compared field by field. The CEL matchConditions are compiled and
// run by the apiserver's code: a pod without podlimits' annotations is never sent (the webhook's
// own /metrics count what it answered).
//
//	apiserver-webhook -podlimits BINARY -webhooks 40-webhooks.yaml -ca ca.crt -cert tls.crt -key tls.key [-run REGEXP]
//
// Exit 0 when every case passed in both modes, 1 otherwise, 2 on a set-up error.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/kubernetes/scheme"
)

func main() {
	podlimits := flag.String("podlimits", "", "the podlimits binary")
	webhooks := flag.String("webhooks", "", "deploy/webhook/40-webhooks.yaml")
	caFile := flag.String("ca", "", "the CA whose base64 replaces CA_BUNDLE")
	certFile := flag.String("cert", "", "the webhook's serving certificate")
	keyFile := flag.String("key", "", "its key")
	run := flag.String("run", "", "only the cases whose MODE/NAME matches this regular expression")
	flag.Parse()
	if *podlimits == "" || *webhooks == "" || *caFile == "" || *certFile == "" || *keyFile == "" {
		flag.Usage()
		os.Exit(2)
	}
	selected, err := regexp.Compile(*run)
	if err != nil {
		setupFailed(err)
	}
	caPEM, err := os.ReadFile(*caFile)
	if err != nil {
		setupFailed(err)
	}
	mutatingConfig, validatingConfig, err := readWebhookConfigurations(*webhooks, caPEM)
	if err != nil {
		setupFailed(err)
	}
	work, err := os.MkdirTemp("", "podlimits-apiserver-webhook.")
	if err != nil {
		setupFailed(err)
	}
	defer os.RemoveAll(work)

	failed, ran := 0, 0
	for _, mode := range []struct{ name, config string }{
		{"RuntimeClass", webhookConfig},
		{"NRI", nriWebhookConfig},
	} {
		configPath := filepath.Join(work, mode.name+".yaml")
		if err := os.WriteFile(configPath, []byte(mode.config), 0o600); err != nil {
			setupFailed(err)
		}
		hook, err := startWebhook(*podlimits, configPath, *certFile, *keyFile, caPEM, filepath.Join(work, mode.name+".log"))
		if err != nil {
			setupFailed(fmt.Errorf("%s: %w", mode.name, err))
		}
		stop := make(chan struct{})
		plugins, err := newAdmissionPlugins(mutatingConfig, validatingConfig, hook.hostPort, stop)
		if err != nil {
			hook.stop()
			setupFailed(fmt.Errorf("%s: %w", mode.name, err))
		}
		for _, c := range cases {
			name := mode.name + "/" + c.name
			if !selected.MatchString(name) {
				continue
			}
			ran++
			want := c.want
			if mode.name == "NRI" && c.nri != nil {
				want = *c.nri
			}
			if problems := runCase(plugins, hook, c, want); len(problems) > 0 {
				failed++
				fmt.Printf("FAIL: %s\n", name)
				for _, p := range problems {
					fmt.Printf("    %s\n", p)
				}
			} else {
				fmt.Printf("ok: %s\n", name)
			}
		}
		close(stop)
		if err := hook.stop(); err != nil {
			failed++
			fmt.Printf("FAIL: %s: the webhook's exit: %v\n", mode.name, err)
		}
	}
	fmt.Printf("apiserver-webhook: %d of %d cases passed\n", ran-failed, ran)
	if failed > 0 || ran == 0 {
		os.Exit(1)
	}
}

func setupFailed(err error) {
	fmt.Fprintf(os.Stderr, "apiserver-webhook: %v\n", err)
	os.Exit(2)
}

// runCase admits c's pod as kube-apiserver does (mutating webhooks, then validating) and says
// how the outcome differs from want.
func runCase(plugins *admissionPlugins, hook *webhookProcess, c reviewCase, want outcome) []string {
	before, err := hook.reviewsAnswered()
	if err != nil {
		return []string{err.Error()}
	}
	object := c.pod.DeepCopy()
	object.Namespace = c.namespace
	var old runtime.Object
	var options runtime.Object = &metav1.CreateOptions{}
	if c.oldPod != nil {
		o := c.oldPod.DeepCopy()
		o.Namespace = c.namespace
		old = o
		options = &metav1.UpdateOptions{}
	}
	attributes := admission.NewAttributesRecord(object, old, corev1.SchemeGroupVersion.WithKind("Pod"),
		c.namespace, object.Name, corev1.SchemeGroupVersion.WithResource("pods"), "", c.operation, options,
		false, &user.DefaultInfo{Name: "alice"})
	warnings := &warningRecorder{}
	ctx, cancel := context.WithTimeout(warning.WithWarningRecorder(context.Background(), warnings), 30*time.Second)
	defer cancel()
	interfaces := objectInterfaces{admission.NewObjectInterfacesFromScheme(scheme.Scheme)}
	err = plugins.mutating.Admit(ctx, attributes, interfaces)
	if err == nil {
		err = plugins.validating.Validate(ctx, attributes, interfaces)
	}
	after, metricsErr := hook.reviewsAnswered()
	if metricsErr != nil {
		return []string{metricsErr.Error()}
	}

	var problems []string
	expect := func(what string, want, got interface{}) {
		if !reflect.DeepEqual(want, got) {
			problems = append(problems, fmt.Sprintf("%s: want %#v, got %#v", what, want, got))
		}
	}
	expect("reviews sent (mutate, validate)", want.sent, [2]int{after[0] - before[0], after[1] - before[1]})
	gotErr, gotCode := "", int32(0)
	if err != nil {
		gotErr = err.Error()
		var status *apierrors.StatusError
		if errors.As(err, &status) {
			gotCode = status.ErrStatus.Code
		}
	}
	expect("error", want.err, gotErr)
	expect("code", want.code, gotCode)
	expect("warnings", want.warnings, warnings.texts)
	if err == nil {
		admitted := attributes.GetObject().(*corev1.Pod)
		runtimeClass := ""
		if admitted.Spec.RuntimeClassName != nil {
			runtimeClass = *admitted.Spec.RuntimeClassName
		}
		expect("spec.runtimeClassName", want.runtimeClass, runtimeClass)
		annotations := admitted.Annotations
		if len(annotations) == 0 {
			annotations = nil
		}
		expect("metadata.annotations", want.annotations, annotations)
	}
	return problems
}

// warningRecorder keeps the warnings admission adds, once each, as the apiserver's response
// writer does (k8s.io/apiserver/pkg/endpoints/filters/warning.go).
type warningRecorder struct {
	mu    sync.Mutex
	texts []string
}

func (r *warningRecorder) AddWarning(agent, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.texts {
		if t == text {
			return
		}
	}
	r.texts = append(r.texts, text)
}

// webhookProcess is one `podlimits webhook` on a loopback port of its choosing.
type webhookProcess struct {
	cmd      *exec.Cmd
	hostPort string
	client   *http.Client
	log      string
}

func startWebhook(binary, config, cert, key string, caPEM []byte, logPath string) (*webhookProcess, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(binary, "webhook", "--tls-cert-file", cert, "--tls-private-key-file", key,
		"--listen", "127.0.0.1:0", "--config", config)
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	hook := &webhookProcess{cmd: cmd, log: logPath}
	listening := regexp.MustCompile(`listening on https://(127\.0\.0\.1:[0-9]+)`)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		text, _ := os.ReadFile(logPath)
		if m := listening.FindSubmatch(text); m != nil {
			hook.hostPort = string(m[1])
			break
		}
	}
	if hook.hostPort == "" {
		text, _ := os.ReadFile(logPath)
		hook.stop()
		return nil, fmt.Errorf("podlimits webhook did not start: %s", text)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	hook.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: serviceName + "." + serviceNamespace + ".svc"}}}
	return hook, nil
}

// reviewsAnswered reads podlimits_webhook_reviews_total from /metrics, summed over results:
// the reviews of /mutate and of /validate the webhook has answered.
func (h *webhookProcess) reviewsAnswered() ([2]int, error) {
	var counts [2]int
	response, err := h.client.Get("https://" + h.hostPort + "/metrics")
	if err != nil {
		return counts, err
	}
	defer response.Body.Close()
	scanner := bufio.NewScanner(response.Body)
	for scanner.Scan() {
		line := scanner.Text()
		if !strings.HasPrefix(line, "podlimits_webhook_reviews_total{") {
			continue
		}
		fields := strings.Fields(line)
		n, err := strconv.Atoi(fields[len(fields)-1])
		if err != nil {
			return counts, fmt.Errorf("/metrics: %q", line)
		}
		switch {
		case strings.Contains(line, `path="mutate"`):
			counts[0] += n
		case strings.Contains(line, `path="validate"`):
			counts[1] += n
		}
	}
	return counts, scanner.Err()
}

// stop sends SIGTERM, as the kubelet stops the webhook's pod, and wants exit 0.
func (h *webhookProcess) stop() error {
	if h.cmd.Process == nil {
		return nil
	}
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			text, _ := os.ReadFile(h.log)
			return fmt.Errorf("%v; its log:\n%s", err, text)
		}
		return nil
	case <-time.After(15 * time.Second):
		_ = h.cmd.Process.Kill()
		<-done
		return fmt.Errorf("still running 15 s after SIGTERM")
	}
}
