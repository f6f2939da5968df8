// API defaulting, as pkg/apis/core/v1/defaults.go (and kubectl's namespace) apply it before
// admission. Edits the tree in place; only absent fields are filled.
#pragma once

#include <string_view>

#include "api/node.h"

namespace podlimits::api {

struct DefaultingOptions {
  bool pod_level_resources = true;  // PodLevelResources gate: defaults for spec.resources
};

// metadata.namespace from kubectl's context ("default" when unset), for namespaced kinds.
void SetDefaultNamespace(Node& object, std::string_view ns = "default");

void SetDefaultsPod(Node& pod, const DefaultingOptions& options);
// The kubernetes.io/metadata.name label (SetDefaults_Namespace, which skips a nameless
// namespace) and the namespace strategy's Canonicalize, which sets it again once a generated
// name exists.
void SetDefaultsNamespace(Node& ns);
void SetNamespaceNameLabel(Node& ns);

// SetDefaults_ResourceList: rounds every quantity up to milli precision ("1.5m" → "2m").
void RoundResourceListToMilli(Node& list);

// Reorders every object in the tree into the Go struct field order of `kind` (and map keys into
// sorted order), which is how the apiserver serialises what it stores.
void CanonicalizeOrder(Node& object, std::string_view kind);

}  // namespace podlimits::api
