package main

// The CRI requests for one pod as the kubelet builds them (pkg/kubelet/kuberuntime's
// generatePodSandboxConfig and generateContainerConfig): the pod's metadata, labels and
// annotations on the sandbox, the kubelet's own labels and annotations on each container, the
// pod cgroup as the sandbox's cgroup parent, host networking (hostNetwork: true; no CNI on a
// test node).

import (
	"fmt"
	"path/filepath"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

type containerSpec struct {
	name    string
	command []string
}

type podSpec struct {
	name        string
	uid         string
	annotations map[string]string // as the webhook leaves them on the pod
	containers  []containerSpec
}

// A container that lives until the kubelet stops it: SIGTERM ends it at once.
func sleeper(name string) containerSpec {
	return containerSpec{name: name, command: []string{"sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"}}
}

func (n *node) sandboxConfig(p *podSpec) *runtimeapi.PodSandboxConfig {
	return &runtimeapi.PodSandboxConfig{
		Metadata: &runtimeapi.PodSandboxMetadata{Name: p.name, Namespace: "default", Uid: p.uid},
		// No hostname: the kubelet sets one only for pods on a network of their own (a host
		// network pod shares the node's UTS namespace, and runc refuses a hostname there).
		LogDirectory: filepath.Join(n.logDir, "default_"+p.name+"_"+p.uid),
		Labels: map[string]string{
			"io.kubernetes.pod.name":      p.name,
			"io.kubernetes.pod.namespace": "default",
			"io.kubernetes.pod.uid":       p.uid,
		},
		Annotations: p.annotations,
		Linux: &runtimeapi.LinuxPodSandboxConfig{
			CgroupParent: n.podCgroup(p),
			SecurityContext: &runtimeapi.LinuxSandboxSecurityContext{
				NamespaceOptions: &runtimeapi.NamespaceOption{
					Network: runtimeapi.NamespaceMode_NODE,
					Pid:     runtimeapi.NamespaceMode_CONTAINER,
					Ipc:     runtimeapi.NamespaceMode_POD,
				},
			},
		},
	}
}

func (n *node) containerConfig(p *podSpec, c containerSpec) *runtimeapi.ContainerConfig {
	return &runtimeapi.ContainerConfig{
		Metadata: &runtimeapi.ContainerMetadata{Name: c.name},
		Image:    &runtimeapi.ImageSpec{Image: n.image},
		Command:  c.command,
		LogPath:  fmt.Sprintf("%s/0.log", c.name),
		Labels: map[string]string{
			"io.kubernetes.container.name": c.name,
			"io.kubernetes.pod.name":       p.name,
			"io.kubernetes.pod.namespace":  "default",
			"io.kubernetes.pod.uid":        p.uid,
		},
		Annotations: map[string]string{
			"io.kubernetes.container.restartCount":           "0",
			"io.kubernetes.container.terminationMessagePath": "/dev/termination-log",
		},
		Linux: &runtimeapi.LinuxContainerConfig{
			Resources: &runtimeapi.LinuxContainerResources{CpuShares: 2, OomScoreAdj: 1000},
			SecurityContext: &runtimeapi.LinuxContainerSecurityContext{
				NamespaceOptions: &runtimeapi.NamespaceOption{
					Network: runtimeapi.NamespaceMode_NODE,
					Pid:     runtimeapi.NamespaceMode_CONTAINER,
					Ipc:     runtimeapi.NamespaceMode_POD,
				},
			},
		},
	}
}
