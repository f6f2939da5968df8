#include "api/defaults.h"

#include <algorithm>
#include <compare>
#include <cstdint>
#include <vector>

#include "api/schema.h"
#include "resource/quantity.h"

namespace podlimits::api {
namespace {

// Appends member `key` of kind `kind` to `obj`, built in place: a pod gets some twenty defaults,
// and a temporary Node and Member for each, moved into the vector and destroyed, cost more than
// the lookups that decide them.
codec::Node& Append(codec::Node& obj, std::string_view key, codec::Node::Kind kind) {
  codec::Member& m = obj.members.emplace_back();
  m.key.assign(key.data(), key.size());
  m.value.kind = kind;
  return m.value;
}

// A default written as a literal: a string, or a number or bool as JSON writes it.
void DefaultScalar(codec::Node& obj, std::string_view key, codec::Node::Kind kind, std::string_view literal) {
  if (!obj.Find(key)) Append(obj, key, kind).scalar.assign(literal.data(), literal.size());
}
void DefaultString(codec::Node& obj, std::string_view key, std::string_view value) {
  DefaultScalar(obj, key, codec::Node::Kind::kString, value);
}
void DefaultNumber(codec::Node& obj, std::string_view key, std::string_view digits) {
  DefaultScalar(obj, key, codec::Node::Kind::kNumber, digits);
}

// kubelet/apiserver rule: images without a tag, or tagged :latest, are pulled Always.
std::string_view DefaultPullPolicy(std::string_view image) {
  if (image.find('@') != std::string_view::npos) return "IfNotPresent";
  std::size_t slash = image.rfind('/');
  std::string_view last = slash == std::string_view::npos ? image : image.substr(slash + 1);
  std::size_t colon = last.rfind(':');
  if (colon == std::string_view::npos) return "Always";
  return last.substr(colon + 1) == "latest" ? "Always" : "IfNotPresent";
}

void SetDefaultsHandler(codec::Node& handler) {
  if (codec::Node* http = handler.Find("httpGet")) {
    DefaultString(*http, "path", "/");
    DefaultString(*http, "scheme", "HTTP");
  }
}

void SetDefaultsProbe(codec::Node& probe) {
  probe.members.reserve(probe.members.size() + 4);  // as in SetDefaultsContainer
  DefaultNumber(probe, "timeoutSeconds", "1");
  DefaultNumber(probe, "periodSeconds", "10");
  DefaultNumber(probe, "successThreshold", "1");
  DefaultNumber(probe, "failureThreshold", "3");
  SetDefaultsHandler(probe);
}

// ObjectFieldSelector's apiVersion default, and a resourceFieldRef's divisor: a non-pointer
// resource.Quantity, which Go's encoder writes even when omitted (omitempty does not apply to
// structs), so the stored object says `divisor: "0"`.
void SetDefaultsFieldRefs(codec::Node& holder) {
  if (codec::Node* ref = holder.Find("fieldRef")) DefaultString(*ref, "apiVersion", "v1");
  if (codec::Node* ref = holder.Find("resourceFieldRef")) DefaultString(*ref, "divisor", "0");
}

void SetDefaultsContainer(codec::Node& c, bool copy_limits_to_requests) {
  // A decoded object's members fill their vector exactly: room for the three defaults below
  // at once, rather than a regrowth (and a move of every member) for each.
  c.members.reserve(c.members.size() + 3);
  DefaultString(c, "terminationMessagePath", "/dev/termination-log");
  DefaultString(c, "terminationMessagePolicy", "File");
  if (!c.Find("imagePullPolicy")) {
    const codec::Node* image = c.Find("image");
    // A literal, not a view into `image`, which Append may move.
    const std::string_view policy = DefaultPullPolicy(image ? image->Str() : "");
    Append(c, "imagePullPolicy", codec::Node::Kind::kString).scalar.assign(policy);
  }
  if (codec::Node* ports = c.Find("ports"); ports && ports->IsArray()) {
    for (auto& p : ports->items) DefaultString(p, "protocol", "TCP");
  }
  for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"}) {
    if (codec::Node* p = c.Find(probe)) SetDefaultsProbe(*p);
  }
  if (codec::Node* lifecycle = c.Find("lifecycle")) {
    for (auto& hook : lifecycle->members) SetDefaultsHandler(hook.value);
  }
  if (codec::Node* env = c.Find("env"); env && env->IsArray()) {
    for (auto& e : env->items) {
      codec::Node* value_from = e.Find("valueFrom");
      if (value_from) SetDefaultsFieldRefs(*value_from);
    }
  }
  if (codec::Node* resources = c.Find("resources")) {
    if (codec::Node* limits = resources->Find("limits")) RoundResourceListToMilli(*limits);
    if (codec::Node* requests = resources->Find("requests")) RoundResourceListToMilli(*requests);
    // "If limits are specified, but requests are not, default requests to limits."
    if (const codec::Node* limits = resources->Find("limits");
        copy_limits_to_requests && limits && limits->IsObject()) {
      codec::Node& requests = resources->Ensure("requests");
      // Found again: Ensure may have grown resources' members and moved them.
      for (const codec::Member& m : resources->Find("limits")->members) {
        if (!requests.Find(m.key)) requests.members.push_back(m);
      }
    }
  }
}

void SetDefaultsVolume(codec::Node& v) {
  bool has_source = std::any_of(v.members.begin(), v.members.end(),
                                [](const codec::Member& m) { return m.key != "name"; });
  if (!has_source) v.Set("emptyDir", codec::Node::Object());
  for (const char* source : {"secret", "configMap", "downwardAPI", "projected"}) {
    if (codec::Node* s = v.Find(source)) DefaultNumber(*s, "defaultMode", "420");
  }
  // The generated defaulters of the volume sources (zz_generated.defaults.go for Pod).
  if (codec::Node* host_path = v.Find("hostPath")) {
    DefaultString(*host_path, "type", "");  // SetDefaults_HostPathVolumeSource: HostPathUnset
  }
  if (codec::Node* items = v.FindPath({"downwardAPI", "items"}); items && items->IsArray()) {
    for (auto& item : items->items) SetDefaultsFieldRefs(item);
  }
  if (codec::Node* sources = v.FindPath({"projected", "sources"}); sources && sources->IsArray()) {
    for (auto& source : sources->items) {
      if (codec::Node* items = source.FindPath({"downwardAPI", "items"}); items && items->IsArray()) {
        for (auto& item : items->items) SetDefaultsFieldRefs(item);
      }
      if (codec::Node* token = source.Find("serviceAccountToken")) {
        DefaultNumber(*token, "expirationSeconds", "3600");  // one hour
      }
    }
  }
  // A generic ephemeral volume's claim template gets PersistentVolumeClaimSpec's defaults.
  if (codec::Node* spec = v.FindPath({"ephemeral", "volumeClaimTemplate", "spec"});
      spec && spec->IsObject()) {
    DefaultString(*spec, "volumeMode", "Filesystem");
    if (codec::Node* resources = spec->Find("resources")) {
      if (codec::Node* limits = resources->Find("limits")) RoundResourceListToMilli(*limits);
      if (codec::Node* requests = resources->Find("requests")) RoundResourceListToMilli(*requests);
    }
  }
}

// defaultHostNetworkPorts: with host networking every container port is also a host port.
void DefaultHostNetworkPorts(codec::Node& containers) {
  if (!containers.IsArray()) return;
  for (auto& c : containers.items) {
    codec::Node* ports = c.Find("ports");
    if (!ports || !ports->IsArray()) continue;
    for (auto& p : ports->items) {
      const codec::Node* container_port = p.Find("containerPort");
      const codec::Node* host_port = p.Find("hostPort");
      if (!container_port || (host_port && host_port->AsInt().value_or(0) != 0)) continue;
      p.Set("hostPort", *container_port);
    }
  }
}

// Conversion, not defaulting, but its effect is the same: the deprecated serviceAccount is an
// alias of serviceAccountName (taken when serviceAccountName is empty), and the stored v1 object
// always mirrors serviceAccountName into it.
void AliasServiceAccount(codec::Node& spec) {
  const codec::Node* name = spec.Find("serviceAccountName");
  const codec::Node* alias = spec.Find("serviceAccount");
  std::string account = name && name->IsString() ? name->scalar : std::string();
  if (account.empty() && alias && alias->IsString()) account = alias->scalar;
  if (account.empty()) {
    // Both empty strings: omitempty drops them from the stored object.
    spec.Erase("serviceAccountName");
    spec.Erase("serviceAccount");
    return;
  }
  spec.Set("serviceAccountName", codec::Node::String(account));
  spec.Set("serviceAccount", codec::Node::String(std::move(account)));
}

// Digits and one of the suffixes whose unit is a whole multiple of 10⁻³ ("", m, k..E, Ki..Ei):
// a quantity that RoundUp(-3) leaves as it is, so it need not be parsed to know. Nearly every
// request and limit is written so ("500m", "256Mi", "2").
bool PlainlyExactAtMilli(std::string_view q) {
  std::size_t digits = 0;
  while (digits < q.size() && q[digits] >= '0' && q[digits] <= '9') ++digits;
  if (digits == 0) return false;
  std::string_view suffix = q.substr(digits);
  if (suffix.empty() || suffix == "m") return true;
  constexpr std::string_view kDecimal = "kMGTPE", kBinary = "KMGTPE";  // Ki..Ei
  if (suffix.size() == 1) return kDecimal.find(suffix[0]) != std::string_view::npos;
  return suffix.size() == 2 && suffix[1] == 'i' &&
         kBinary.find(suffix[0]) != std::string_view::npos;
}

}  // namespace

void RoundResourceListToMilli(codec::Node& list) {
  if (!list.IsObject()) return;
  for (auto& m : list.members) {
    if (m.value.IsString() && PlainlyExactAtMilli(m.value.scalar)) continue;
    auto q = resource::Quantity::Parse(m.value.scalar);
    if (!q) continue;
    // RoundUp reports whether the value was already exact at milli scale.
    if (!q->RoundUp(-3)) m.value.scalar = q->String();
  }
}

void SetDefaultNamespace(codec::Node& object, std::string_view ns) {
  codec::Node& meta = object.Ensure("metadata");
  if (!meta.Find("namespace")) meta.Set("namespace", codec::Node::String(std::string(ns)));
}

namespace {

// SetDefaults_PodSpec and what it reaches; `pod` adds SetDefaults_Pod's own defaults
// (enableServiceLinks, requests copied from limits), which a pod template does not get.
void SetDefaultsPodSpec(codec::Node& spec, bool pod) {
  spec.members.reserve(spec.members.size() + 6);  // as in SetDefaultsContainer
  DefaultString(spec, "restartPolicy", "Always");
  DefaultNumber(spec, "terminationGracePeriodSeconds", "30");
  DefaultString(spec, "dnsPolicy", "ClusterFirst");
  if (!spec.Find("securityContext")) Append(spec, "securityContext", codec::Node::Kind::kObject);
  DefaultString(spec, "schedulerName", "default-scheduler");
  if (pod) DefaultScalar(spec, "enableServiceLinks", codec::Node::Kind::kBool, "true");
  for (const char* list : {"containers", "initContainers"}) {
    if (codec::Node* cs = spec.Find(list); cs && cs->IsArray()) {
      for (auto& c : cs->items) SetDefaultsContainer(c, pod);
    }
  }
  if (codec::Node* cs = spec.Find("ephemeralContainers"); cs && cs->IsArray()) {
    for (auto& c : cs->items) SetDefaultsContainer(c, false);
  }
  if (codec::Node* vols = spec.Find("volumes"); vols && vols->IsArray()) {
    for (auto& v : vols->items) SetDefaultsVolume(v);
  }
  if (codec::Node* overhead = spec.Find("overhead")) RoundResourceListToMilli(*overhead);
  if (codec::Node* resources = spec.Find("resources")) {
    if (codec::Node* l = resources->Find("limits")) RoundResourceListToMilli(*l);
    if (codec::Node* r = resources->Find("requests")) RoundResourceListToMilli(*r);
  }
  if (const codec::Node* host_network = spec.Find("hostNetwork");
      pod && host_network && host_network->AsBool()) {
    // For Pods this is unconditional; only pod templates have the
    // DefaultHostNetworkHostPortsInPodTemplates gate.
    for (const char* list : {"containers", "initContainers"}) {
      if (codec::Node* cs = spec.Find(list)) DefaultHostNetworkPorts(*cs);
    }
  }
  AliasServiceAccount(spec);
}

}  // namespace

void SetDefaultsPod(codec::Node& pod) { SetDefaultsPodSpec(pod.Ensure("spec"), true); }

void SetDefaultsPodTemplate(codec::Node& pod_template) {
  SetDefaultsPodSpec(pod_template.Ensure("spec"), false);
}

void SetDefaultsPodView(PodSpec& spec) {
  for (auto& v : spec.volumes) {
    if (v.source.empty()) v.source = "emptyDir";
  }
  if (!spec.host_network) return;
  for (auto* list : {&spec.containers, &spec.init_containers}) {
    for (auto& c : *list) {
      for (auto& p : c.ports) {
        if (p.host_port.value_or(0) == 0 && p.container_port != 0) p.host_port = p.container_port;
      }
    }
  }
}

void SetNamespaceNameLabel(codec::Node& ns) {
  codec::Node& meta = ns.Ensure("metadata");
  const codec::Node* name_node = meta.Find("name");
  // Copied: Ensure("labels") below may grow meta's members and move name_node.
  std::string name = name_node && name_node->IsString() ? name_node->scalar : "";
  if (!name.empty()) meta.Ensure("labels").Set("kubernetes.io/metadata.name", codec::Node::String(name));
}

void SetDefaultsNamespace(codec::Node& ns) {
  SetNamespaceNameLabel(ns);
  codec::Node& spec = ns.Ensure("spec");
  if (!spec.Find("finalizers")) {
    codec::Node finalizers = codec::Node::Array();
    finalizers.items.push_back(codec::Node::String("kubernetes"));
    spec.Set("finalizers", std::move(finalizers));
  }
  codec::Node& status = ns.Ensure("status");
  DefaultString(status, "phase", "Active");
}

namespace {

void Reorder(codec::Node& n, const FieldSpec& spec);

// Where a member goes: its field's index in the type (kUnknownField after every field), ties
// kept in source order.
struct Placement {
  static constexpr std::size_t kUnknownField = SIZE_MAX;
  std::size_t field;
  std::size_t position;
  auto operator<=>(const Placement&) const = default;
};

// Puts `members` in the type's field order (a stable sort) and returns their placements in the
// new order. Each key is looked up once: a comparator looking up both keys costs 2·n·log n hash
// lookups per object, which made canonical ordering a large part of admitting a pod.
std::vector<Placement> SortByFieldOrder(std::vector<codec::Member>& members, const TypeDef& type) {
  std::vector<Placement> order;
  order.reserve(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    std::size_t position = type.index.Find(members[i].key);
    order.push_back({position == FieldIndex::kAbsent ? Placement::kUnknownField : position, i});
  }
  if (std::is_sorted(order.begin(), order.end())) return order;
  std::sort(order.begin(), order.end());
  std::vector<codec::Member> sorted;
  sorted.reserve(members.size());
  for (const Placement& p : order) sorted.push_back(std::move(members[p.position]));
  members = std::move(sorted);
  return order;
}

void ReorderObject(codec::Node& n, const TypeDef& type) {
  if (!n.IsObject()) return;
  // What Go's encoder writes whatever the value: an empty struct held by value.
  for (const FieldDef& f : type.fields) {
    if (!f.spec.always || f.spec.kind != FieldSpec::Kind::kRef) continue;
    codec::Node* present = n.Find(f.name);
    if (present == nullptr) {
      n.Set(f.name, codec::Node::Object());
    } else if (present->IsNull()) {
      *present = codec::Node::Object();
    }
  }
  std::vector<Placement> order = SortByFieldOrder(n.members, type);
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i].field != Placement::kUnknownField) {
      Reorder(n.members[i].value, type.fields[order[i].field].spec);
    }
  }
}

void Reorder(codec::Node& n, const FieldSpec& spec) {
  switch (spec.kind) {
    case FieldSpec::Kind::kRef:
      ReorderObject(n, *spec.ref);
      break;
    case FieldSpec::Kind::kList:
      for (auto& item : n.items) Reorder(item, *spec.elem);
      break;
    case FieldSpec::Kind::kMap:
      if (!n.IsObject()) break;
      std::stable_sort(n.members.begin(), n.members.end(),
                       [](const codec::Member& a, const codec::Member& b) { return a.key < b.key; });
      for (auto& m : n.members) Reorder(m.value, *spec.elem);
      break;
    case FieldSpec::Kind::kScalar:
      break;
  }
}

}  // namespace

void CanonicalizeOrder(codec::Node& object, std::string_view kind) {
  if (const TypeDef* t = Schema::Objects().Root(kind)) ReorderObject(object, *t);
}

}  // namespace podlimits::api
