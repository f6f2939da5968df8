package main

// Exec as `kubectl exec` reaches a container: the kubelet asks the runtime for a streaming URL
// (CRI Exec) and the client speaks the remotecommand protocol to it. The kubelet proxies that
// stream; here the client goes to the runtime's streaming server directly, with client-go's
// SPDY executor, which is what the kubelet's proxy speaks to it.

import (
	"bytes"
	"context"
	"fmt"
	"net/url"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	internalapi "k8s.io/cri-api/pkg/apis"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

func streamExec(ctx context.Context, rt internalapi.RuntimeService, id string, cmd []string) (string, error) {
	resp, err := rt.Exec(ctx, &runtimeapi.ExecRequest{ContainerId: id, Cmd: cmd, Stdout: true, Stderr: true})
	if err != nil {
		return "", fmt.Errorf("Exec: %w", err)
	}
	u, err := url.Parse(resp.Url)
	if err != nil {
		return "", fmt.Errorf("Exec's URL %q: %w", resp.Url, err)
	}
	executor, err := remotecommand.NewSPDYExecutor(&rest.Config{}, "POST", u)
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	err = executor.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		return "", fmt.Errorf("streaming %s: %w (stderr %q)", resp.Url, err, stderr.String())
	}
	return stdout.String(), nil
}
