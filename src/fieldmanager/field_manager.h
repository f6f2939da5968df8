// The apiserver's field manager (apimachinery's util/managedfields, the default chain of
// NewDefaultFieldManager) over the embedded schema: who owns which field of an object.
//
// Every write records its fields (TrackUpdate):
//   1. the managers are the request object's managedFields when it carries a list that decodes
//      (kubectl's migration from client-side apply rewrites them so), `[]`/`[{}]` resets them,
//      otherwise the stored object's; a write to a subresource always takes the stored ones
//   2. an update of an object that has none is not tracked (upstream's skipNonApplied); a create
//      always is, compared with the kind's zero object
//   3. the comparison of the stored and the new object: fields changed or added are taken from
//      every other manager, removed fields are dropped from every manager; the writer's entry
//      (manager, Update, apiVersion, subresource) gains the changed and added fields, less the
//      metadata no one owns (name, uid, resourceVersion, ...), with the time of the write
//   4. beyond 10 Update managers the oldest go into "ancient-changes"
//
// An apply (Apply) merges the configuration into the stored object by the schema's list and map
// types; the configuration's field set becomes the manager's Apply entry; what it applied last
// time and no longer does is removed unless another manager owns it; fields it changes that
// other managers own are conflicts (409, unless forced, when they move to it). An object with
// no managedFields gets a "before-first-apply" Update manager for what it has first. For the
// manager "kubectl", conflicts with what the last-applied-configuration annotation says were
// applied are forced (upstream's lastAppliedManager), and the annotation follows the apply.
//
// The fields of a status subresource (pods, nodes, namespaces) are tracked only on their own
// endpoint: the main resource's writes leave `.status` out, and /status writes everything else.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "codec/node.h"
#include "fieldmanager/field_set.h"
#include "fieldmanager/managed_fields.h"
#include "fieldmanager/type_schema.h"

namespace podlimits::fieldmanager {

struct WriteScope {
  std::string kind;         // "Pod"
  std::string api_version;  // "v1", "coordination.k8s.io/v1"
  std::string subresource;  // "" or "status"
  std::string now;          // RFC 3339: the time of the writer's entry
  // Whether the kind has a status subresource, whose fields the main resource does not track.
  bool has_status = false;
};

// The managedFields to store with `next` (null: none). `live` is the stored object (nullptr for
// a create); `requested` the request object's metadata.managedFields (nullptr when absent).
codec::Node TrackUpdate(const WriteScope& scope, const codec::Node* live, const codec::Node& next,
                        const codec::Node* requested, std::string_view manager);

struct Conflict {
  ManagedEntry manager;  // its identity (the fields are not used)
  Path path;
};

struct Applied {
  // The merged object with its managedFields; set unless refused. An apply that changes no
  // field still records its manager (the caller writes it when the managedFields differ).
  std::optional<codec::Node> object;
  // Refused: the conflicts, when not forced.
  std::vector<Conflict> conflicts;
};

// Errors carry reason "BadRequest" (400: the configuration is not of this kind, carries
// managedFields, or is not a list the schema can key) or none (500: the stored managedFields do
// not decode).
Result<Applied> Apply(const WriteScope& scope, const codec::Node* live, const codec::Node& config,
                      std::string_view manager, bool force);

// "Apply failed with 1 conflict: conflict with \"kubectl\" using v1: .data.a" and the
// multi-conflict form with one block per manager.
std::string ConflictMessage(const std::vector<Conflict>& conflicts);

}  // namespace podlimits::fieldmanager
