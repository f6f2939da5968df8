// API defaulting, as pkg/apis/core/v1/defaults.go (and kubectl's namespace) apply it before
// admission. Edits the tree in place; only absent fields are filled.
#pragma once

#include <string_view>

#include "api/objects.h"
#include "codec/node.h"

namespace podlimits::api {

// metadata.namespace from kubectl's context ("default" when unset), for namespaced kinds.
void SetDefaultNamespace(codec::Node& object, std::string_view ns = "default");

// SetDefaults_Pod and the generated defaulters of everything a Pod holds (probes, volume
// sources, ephemeral volume claim templates, resource lists rounded to milli), defaultHostNetwork-
// Ports, and the serviceAccount alias of v1 conversion. Pod-level resources are defaulted later,
// after admission (pod_level_defaults.h).
void SetDefaultsPod(codec::Node& pod);
// The same for a workload's spec.template: SetDefaults_PodSpec only (no enableServiceLinks, no
// requests copied from limits, no host ports with hostNetwork: those are SetDefaults_Pod's, and
// the pods the controllers create get them on their own create).
void SetDefaultsPodTemplate(codec::Node& pod_template);

// The two defaults above that decide Pod Security checks, on a typed view that may not have been
// defaulted: a volume without a source becomes emptyDir, and with hostNetwork each container
// port without a host port gets one equal to it.
void SetDefaultsPodView(PodSpec& spec);

// The kubernetes.io/metadata.name label (SetDefaults_Namespace, which skips a nameless
// namespace) and the namespace strategy's Canonicalize, which sets it again once a generated
// name exists.
void SetDefaultsNamespace(codec::Node& ns);
void SetNamespaceNameLabel(codec::Node& ns);

// SetDefaults_ResourceList: rounds every quantity up to milli precision ("1.5m" → "2m").
void RoundResourceListToMilli(codec::Node& list);

// Reorders every object in the tree into the Go struct field order of `kind` (and map keys into
// sorted order), and writes the empty structs Go's encoder always writes (a container's
// `resources: {}`): how the apiserver serialises what it stores.
void CanonicalizeOrder(codec::Node& object, std::string_view kind);

}  // namespace podlimits::api
