#include "printers/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <string>

#include "printers/human_duration.h"
#include "printers/printer.h"

namespace podlimits::printers {
namespace {

using codec::Node;

// The kinds' swagger docs, which upstream uses as the columns' descriptions.
constexpr std::string_view kConfigMapDataDoc =
    "Data contains the configuration data. Each key must consist of alphanumeric characters, "
    "'-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The "
    "keys stored in Data must not overlap with the keys in the BinaryData field, this is "
    "enforced during validation process.";
constexpr std::string_view kLeaseHolderDoc =
    "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader "
    "Election is used, the holder identity must be equal to the elected "
    "LeaseCandidate.metadata.name field.";
constexpr std::string_view kSecretTypeDoc =
    "Used to facilitate programmatic handling of secret data. More info: "
    "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types";
constexpr std::string_view kSecretDataDoc =
    "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' "
    "or '.'. The serialized form of the secret data is a base64 encoded string, representing "
    "the arbitrary (possibly non-string) data value here. Described in "
    "https://tools.ietf.org/html/rfc4648#section-4";


const Node* Meta(const Node& o, std::string_view key) {
  const Node* m = o.Find("metadata");
  return m ? m->Find(key) : nullptr;
}

std::int64_t Count(const Node* n) {
  return n && n->IsObject() ? static_cast<std::int64_t>(n->members.size()) : 0;
}


// An integer field, 0 when missing (a Table cell shows 0 for an unset count).
std::int64_t IntOrZero(const Node* n) { return codec::IntOf(n).value_or(0); }

std::string OrNone(std::string s) { return s.empty() ? "<none>" : s; }
// printNode's word for a node that did not report its OS image, kernel or runtime.
std::string OrUnknown(std::string s) { return s.empty() ? "<unknown>" : s; }

// printPod's STATUS column: the phase, else the pod's reason, refined by what its init
// containers and containers are doing, "Terminating" once it is being deleted.
std::string PodStatusColumn(const Node& pod) {
  std::string reason = codec::StringOf(pod.FindPath({"status", "phase"}));
  if (const std::string r = codec::StringOf(pod.FindPath({"status", "reason"})); !r.empty()) reason = r;
  if (const Node* conditions = pod.FindPath({"status", "conditions"});
      conditions && conditions->IsArray()) {
    for (const Node& c : conditions->items) {
      if (codec::StringOf(c.Find("type")) == "PodScheduled" && codec::StringOf(c.Find("reason")) == "SchedulingGated") {
        reason = "SchedulingGated";
      }
    }
  }
  std::set<std::string> sidecars;
  if (const Node* inits = pod.FindPath({"spec", "initContainers"}); inits && inits->IsArray()) {
    for (const Node& c : inits->items) {
      if (codec::StringOf(c.Find("restartPolicy")) == "Always") sidecars.insert(codec::StringOf(c.Find("name")));
    }
  }
  bool initializing = false;
  const Node* init_statuses = pod.FindPath({"status", "initContainerStatuses"});
  const std::size_t init_count =
      init_statuses && init_statuses->IsArray() ? init_statuses->items.size() : 0;
  for (std::size_t i = 0; i < init_count; ++i) {
    const Node& c = init_statuses->items[i];
    const Node* terminated = c.FindPath({"state", "terminated"});
    const Node* waiting = c.FindPath({"state", "waiting"});
    const bool sidecar = sidecars.contains(codec::StringOf(c.Find("name")));
    if (terminated && IntOrZero(terminated->Find("exitCode")) == 0) continue;
    if (sidecar && c.Find("started") && c.Find("started")->AsBool()) continue;
    if (terminated) {
      const std::string r = codec::StringOf(terminated->Find("reason"));
      if (!r.empty()) {
        reason = "Init:" + r;
      } else if (IntOrZero(terminated->Find("signal")) != 0) {
        reason = fmt::format("Init:Signal:{}", IntOrZero(terminated->Find("signal")));
      } else {
        reason = fmt::format("Init:ExitCode:{}", IntOrZero(terminated->Find("exitCode")));
      }
    } else if (waiting && !codec::StringOf(waiting->Find("reason")).empty() &&
               codec::StringOf(waiting->Find("reason")) != "PodInitializing") {
      reason = "Init:" + codec::StringOf(waiting->Find("reason"));
    } else {
      reason = fmt::format("Init:{}/{}", i, init_count);
    }
    initializing = true;
    break;
  }
  if (!initializing) {
    bool has_running = false;
    const Node* statuses = pod.FindPath({"status", "containerStatuses"});
    if (statuses && statuses->IsArray()) {
      for (auto it = statuses->items.rbegin(); it != statuses->items.rend(); ++it) {
        const Node& c = *it;
        const Node* waiting = c.FindPath({"state", "waiting"});
        const Node* terminated = c.FindPath({"state", "terminated"});
        if (waiting && !codec::StringOf(waiting->Find("reason")).empty()) {
          reason = codec::StringOf(waiting->Find("reason"));
        } else if (terminated && !codec::StringOf(terminated->Find("reason")).empty()) {
          reason = codec::StringOf(terminated->Find("reason"));
        } else if (terminated && IntOrZero(terminated->Find("signal")) != 0) {
          reason = fmt::format("Signal:{}", IntOrZero(terminated->Find("signal")));
        } else if (terminated) {
          reason = fmt::format("ExitCode:{}", IntOrZero(terminated->Find("exitCode")));
        } else if (c.FindPath({"state", "running"}) && c.Find("ready") &&
                   c.Find("ready")->AsBool()) {
          has_running = true;
        }
      }
    }
    if (reason == "Completed" && has_running) {
      bool ready = false;
      if (const Node* conds = pod.FindPath({"status", "conditions"}); conds && conds->IsArray()) {
        for (const Node& c : conds->items) {
          if (codec::StringOf(c.Find("type")) == "Ready") ready = codec::StringOf(c.Find("status")) == "True";
        }
      }
      reason = ready ? "Running" : "NotReady";
    }
  }
  if (Meta(pod, "deletionTimestamp") != nullptr && codec::StringOf(pod.FindPath({"status", "reason"})) == "NodeLost") {
    reason = "Unknown";
  } else if (Meta(pod, "deletionTimestamp") != nullptr) {
    reason = "Terminating";
  }
  return reason;
}

Printer PodPrinter(const Column& name, const Column& age) {
  static constexpr std::string_view kPodIPDoc =
      "podIP address allocated to the pod. Routable at least within the cluster. Empty if not "
      "yet allocated.";
  static constexpr std::string_view kNodeNameDoc =
      "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate "
      "for scheduling by the scheduler defined in schedulerName. Once this field is set, the "
      "kubelet for this node becomes responsible for the lifecycle of this pod. This field "
      "should not be used to express a desire for the pod to be scheduled on a specific node. "
      "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename";
  static constexpr std::string_view kNominatedDoc =
      "nominatedNodeName is set only when this pod preempts other pods on the node, but it "
      "cannot be scheduled right away as preemption victims receive their graceful termination "
      "periods. This field does not guarantee that the pod will be scheduled on this node. "
      "Scheduler may decide to place the pod elsewhere if other nodes become available sooner. "
      "Scheduler may also decide to give the resources on this node to a higher priority pod "
      "that is created after preemption. As a result, this field may be different than "
      "PodSpec.nodeName when the pod is scheduled.";
  static constexpr std::string_view kGatesDoc =
      "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready "
      "when all its containers are ready AND all conditions specified in the readiness gates "
      "have status equal to \"True\" More info: "
      "https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates";
  return {{name,
           {"Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic."},
           {"Status", "string", "", "The aggregate status of the containers in this pod."},
           {"Restarts", "string", "",
            "The number of times the containers in this pod have been restarted and when the "
            "last container in this pod has restarted."},
           age,
           {"IP", "string", "", kPodIPDoc, 1},
           {"Node", "string", "", kNodeNameDoc, 1},
           {"Nominated Node", "string", "", kNominatedDoc, 1},
           {"Readiness Gates", "string", "", kGatesDoc, 1}},
          [](const Node& pod, std::chrono::sys_seconds now) {
            std::set<std::string> sidecars;
            if (const Node* inits = pod.FindPath({"spec", "initContainers"});
                inits && inits->IsArray()) {
              for (const Node& c : inits->items) {
                if (codec::StringOf(c.Find("restartPolicy")) == "Always") sidecars.insert(codec::StringOf(c.Find("name")));
              }
            }
            const Node* containers = pod.FindPath({"spec", "containers"});
            std::int64_t total = containers && containers->IsArray()
                                     ? static_cast<std::int64_t>(containers->items.size())
                                     : 0;
            std::int64_t ready = 0, restarts = 0;
            std::string last_restart;  // the newest lastState.terminated.finishedAt
            auto count = [&](const Node& c, bool sidecar) {
              restarts += IntOrZero(c.Find("restartCount"));
              const std::string finished =
                  codec::StringOf(c.FindPath({"lastState", "terminated", "finishedAt"}));
              if (finished > last_restart) last_restart = finished;
              const bool is_ready = c.Find("ready") && c.Find("ready")->AsBool();
              if (sidecar) {
                ++total;
                if (is_ready && c.Find("started") && c.Find("started")->AsBool()) ++ready;
              } else if (is_ready && c.FindPath({"state", "running"})) {
                ++ready;
              }
            };
            if (const Node* s = pod.FindPath({"status", "initContainerStatuses"}); s && s->IsArray()) {
              for (const Node& c : s->items) {
                if (sidecars.contains(codec::StringOf(c.Find("name")))) count(c, true);
              }
            }
            if (const Node* s = pod.FindPath({"status", "containerStatuses"}); s && s->IsArray()) {
              for (const Node& c : s->items) count(c, false);
            }
            std::string restarts_cell = std::to_string(restarts);
            if (restarts != 0 && !last_restart.empty()) {
              restarts_cell += " (" + AgeSince(last_restart, now) + " ago)";
            }
            const Node* gates = pod.FindPath({"spec", "readinessGates"});
            std::string gates_cell = "<none>";
            if (gates && gates->IsArray() && !gates->items.empty()) {
              std::int64_t true_gates = 0;
              const Node* conds = pod.FindPath({"status", "conditions"});
              for (const Node& g : gates->items) {
                for (const Node& c : conds && conds->IsArray() ? conds->items : std::vector<Node>{}) {
                  if (codec::StringOf(c.Find("type")) == codec::StringOf(g.Find("conditionType")) &&
                      codec::StringOf(c.Find("status")) == "True") {
                    ++true_gates;
                  }
                }
              }
              gates_cell = fmt::format("{}/{}", true_gates, gates->items.size());
            }
            return std::vector<Node>{
                Node::String(codec::StringOf(Meta(pod, "name"))),
                Node::String(fmt::format("{}/{}", ready, total)),
                Node::String(PodStatusColumn(pod)),
                Node::String(restarts_cell),
                Node::String(AgeSince(codec::StringOf(Meta(pod, "creationTimestamp")), now)),
                Node::String(OrNone(codec::StringOf(pod.FindPath({"status", "podIP"})))),
                Node::String(OrNone(codec::StringOf(pod.FindPath({"spec", "nodeName"})))),
                Node::String(OrNone(codec::StringOf(pod.FindPath({"status", "nominatedNodeName"})))),
                Node::String(gates_cell)};
          }};
}

// printEvent's columns: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE (and in -o wide SUBOBJECT,
// SOURCE, FIRST SEEN, COUNT, NAME).
Printer EventPrinter(const Column& name) {
  return {{{"Last Seen", "string", "", "Time when this Event was last seen"},
           {"Type", "string", "",
            "Type of this event (Normal, Warning), new types could be added in the future."},
           {"Reason", "string", "", "This should be a short, machine understandable string "
                                    "that gives the reason for the transition into the "
                                    "object's current status."},
           {"Object", "string", "", "The object that this event is about."},
           {"Subobject", "string", "", "The subobject (container) this event is about.", 1},
           {"Source", "string", "", "The component reporting this event.", 1},
           {"Message", "string", "", "A human-readable description of the status of this operation."},
           {"First Seen", "string", "", "The time at which the event was first recorded.", 1},
           {"Count", "string", "", "The number of times this event has occurred.", 1},
           {name.name, name.type, name.format, name.description, 1}},
          [](const Node& e, std::chrono::sys_seconds now) {
            std::string last = codec::StringOf(e.Find("lastTimestamp"));
            if (last.empty()) last = codec::StringOf(e.Find("eventTime"));
            std::string first = codec::StringOf(e.Find("firstTimestamp"));
            if (first.empty()) first = codec::StringOf(e.Find("eventTime"));
            std::string kind = codec::StringOf(e.FindPath({"involvedObject", "kind"}));
            for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            std::string source = codec::StringOf(e.FindPath({"source", "component"}));
            if (const std::string host = codec::StringOf(e.FindPath({"source", "host"})); !host.empty()) {
              source += ", " + host;
            }
            return std::vector<Node>{
                Node::String(last.empty() ? "<unknown>" : AgeSince(last, now)),
                Node::String(codec::StringOf(e.Find("type"))),
                Node::String(codec::StringOf(e.Find("reason"))),
                Node::String(kind + "/" + codec::StringOf(e.FindPath({"involvedObject", "name"}))),
                Node::String(codec::StringOf(e.FindPath({"involvedObject", "fieldPath"}))),
                Node::String(source),
                Node::String(codec::StringOf(e.Find("message"))),
                Node::String(first.empty() ? "<unknown>" : AgeSince(first, now)),
                Node::Int(std::max<std::int64_t>(1, IntOrZero(e.Find("count")))),
                Node::String(codec::StringOf(Meta(e, "name")))};
          }};
}

// printNode's columns: NAME STATUS ROLES AGE VERSION (and in -o wide INTERNAL-IP EXTERNAL-IP
// OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME).
Printer NodePrinter(const Column& name, const Column& age) {
  return {{name,
           {"Status", "string", "", "The status of the node"},
           {"Roles", "string", "", "The roles of the node"},
           age,
           {"Version", "string", "", "Kubelet Version reported by the node."},
           {"Internal-IP", "string", "", "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).", 1},
           {"External-IP", "string", "", "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).", 1},
           {"OS-Image", "string", "", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1},
           {"Kernel-Version", "string", "", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1},
           {"Container-Runtime", "string", "", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1}},
          [](const Node& node, std::chrono::sys_seconds now) {
            std::vector<std::string> conditions;
            if (const Node* cs = node.FindPath({"status", "conditions"}); cs && cs->IsArray()) {
              for (const Node& c : cs->items) {
                if (codec::StringOf(c.Find("type")) != "Ready") continue;
                conditions.push_back(codec::StringOf(c.Find("status")) == "True" ? "Ready" : "NotReady");
              }
            }
            if (conditions.empty()) conditions.push_back("Unknown");
            if (const Node* u = node.FindPath({"spec", "unschedulable"}); u && u->AsBool()) {
              conditions.push_back("SchedulingDisabled");
            }
            std::string status;
            for (const auto& c : conditions) status += (status.empty() ? "" : ",") + c;
            std::vector<std::string> roles;
            if (const Node* labels = Meta(node, "labels"); labels && labels->IsObject()) {
              for (const auto& m : labels->members) {
                constexpr std::string_view kRole = "node-role.kubernetes.io/";
                if (m.key.starts_with(kRole) && m.key.size() > kRole.size()) {
                  roles.push_back(m.key.substr(kRole.size()));
                } else if (m.key == "kubernetes.io/role" && !codec::StringOf(&m.value).empty()) {
                  roles.push_back(codec::StringOf(&m.value));
                }
              }
            }
            std::sort(roles.begin(), roles.end());
            std::string roles_cell;
            for (const auto& r : roles) roles_cell += (roles_cell.empty() ? "" : ",") + r;
            auto address = [&](std::string_view type) {
              if (const Node* a = node.FindPath({"status", "addresses"}); a && a->IsArray()) {
                for (const Node& x : a->items) {
                  if (codec::StringOf(x.Find("type")) == type) return codec::StringOf(x.Find("address"));
                }
              }
              return std::string();
            };
            return std::vector<Node>{
                Node::String(codec::StringOf(Meta(node, "name"))),
                Node::String(status),
                Node::String(OrNone(roles_cell)),
                Node::String(AgeSince(codec::StringOf(Meta(node, "creationTimestamp")), now)),
                Node::String(codec::StringOf(node.FindPath({"status", "nodeInfo", "kubeletVersion"}))),
                Node::String(OrNone(address("InternalIP"))),
                Node::String(OrNone(address("ExternalIP"))),
                Node::String(OrUnknown(codec::StringOf(node.FindPath({"status", "nodeInfo", "osImage"})))),
                Node::String(
                    OrUnknown(codec::StringOf(node.FindPath({"status", "nodeInfo", "kernelVersion"})))),
                Node::String(OrUnknown(
                    codec::StringOf(node.FindPath({"status", "nodeInfo", "containerRuntimeVersion"}))))};
          }};
}

Printer PrinterFor(std::string_view resource) {
  const Column name{"Name", "string", "name", kNameDoc};
  const Column age{"Age", "string", "", kCreationDoc};
  auto obj_name = [](const Node& o) { return Node::String(codec::StringOf(Meta(o, "name"))); };
  auto obj_age = [](const Node& o, std::chrono::sys_seconds now) {
    return Node::String(AgeSince(codec::StringOf(Meta(o, "creationTimestamp")), now));
  };
  if (resource == "namespaces") {
    return {{name, {"Status", "string", "", "The status of the namespace"}, age},
            [=](const Node& o, auto now) {
              return std::vector<Node>{obj_name(o),
                                       Node::String(codec::StringOf(o.FindPath({"status", "phase"}))),
                                       obj_age(o, now)};
            }};
  }
  if (resource == "configmaps") {
    return {{name, {"Data", "string", "", kConfigMapDataDoc}, age}, [=](const Node& o, auto now) {
              return std::vector<Node>{
                  obj_name(o), Node::Int(Count(o.Find("data")) + Count(o.Find("binaryData"))),
                  obj_age(o, now)};
            }};
  }
  if (resource == "secrets") {
    return {{name, {"Type", "string", "", kSecretTypeDoc}, {"Data", "string", "", kSecretDataDoc},
             age},
            [=](const Node& o, auto now) {
              return std::vector<Node>{obj_name(o), Node::String(codec::StringOf(o.Find("type"))),
                                       Node::Int(Count(o.Find("data"))), obj_age(o, now)};
            }};
  }
  if (resource == "leases") {  // printLease
    return {{name, {"Holder", "string", "", kLeaseHolderDoc}, age}, [=](const Node& o, auto now) {
              return std::vector<Node>{obj_name(o),
                                       Node::String(codec::StringOf(o.FindPath({"spec", "holderIdentity"}))),
                                       obj_age(o, now)};
            }};
  }
  if (resource == "pods") return PodPrinter(name, age);
  if (resource == "events") return EventPrinter(name);
  if (resource == "nodes") return NodePrinter(name, age);
  if (auto workload = WorkloadPrinter(resource)) return *workload;
  // limitranges, and the apiserver's default table for every other kind.
  return {{name, {"Created At", "date", "", kCreationDoc}}, [=](const Node& o, auto) {
            return std::vector<Node>{obj_name(o), Node::String(codec::StringOf(Meta(o, "creationTimestamp")))};
          }};
}

}  // namespace

std::optional<RowObject> ParseIncludeObject(std::string_view value) {
  if (value.empty() || value == "Metadata") return RowObject::kMetadata;
  if (value == "Object") return RowObject::kObject;
  if (value == "None") return RowObject::kNone;
  return std::nullopt;
}

Node BuildTable(std::string_view resource, const std::vector<Node>& objects,
                std::string_view resource_version, std::chrono::sys_seconds now,
                RowObject row_object) {
  const Printer printer = PrinterFor(resource);
  Node table = Node::Object();
  table.Set("kind", Node::String("Table"));
  table.Set("apiVersion", Node::String("meta.k8s.io/v1"));
  Node metadata = Node::Object();
  metadata.Set("resourceVersion", Node::String(std::string(resource_version)));
  table.Set("metadata", std::move(metadata));
  Node columns = Node::Array();
  for (const Column& c : printer.columns) {
    Node col = Node::Object();
    col.Set("name", Node::String(std::string(c.name)));
    col.Set("type", Node::String(std::string(c.type)));
    col.Set("format", Node::String(std::string(c.format)));
    col.Set("description", Node::String(std::string(c.description)));
    col.Set("priority", Node::Int(c.priority));
    columns.items.push_back(std::move(col));
  }
  table.Set("columnDefinitions", std::move(columns));
  Node rows = Node::Array();
  for (const Node& o : objects) {
    Node row = Node::Object();
    Node cells = Node::Array();
    for (Node& cell : printer.cells(o, now)) cells.items.push_back(std::move(cell));
    row.Set("cells", std::move(cells));
    switch (row_object) {
      case RowObject::kMetadata: {
        Node partial = Node::Object();
        partial.Set("kind", Node::String("PartialObjectMetadata"));
        partial.Set("apiVersion", Node::String("meta.k8s.io/v1"));
        const Node* meta = o.Find("metadata");
        partial.Set("metadata", meta ? *meta : Node::Object());
        row.Set("object", std::move(partial));
        break;
      }
      case RowObject::kObject:
        row.Set("object", o);
        break;
      case RowObject::kNone:
        // An empty RawExtension, which Go encodes as null.
        row.Set("object", Node::Null());
        break;
    }
    rows.items.push_back(std::move(row));
  }
  table.Set("rows", std::move(rows));
  return table;
}

}  // namespace podlimits::printers
