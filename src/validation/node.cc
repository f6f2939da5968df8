#include "validation/node.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <set>
#include <string>
#include <utility>

#include "codec/json_codec.h"
#include "validation/object_meta.h"

namespace podlimits::validation {

using codec::Node;

namespace {

std::string Joined(const std::vector<std::string>& messages) {
  std::string out;
  for (const auto& m : messages) out += (out.empty() ? "" : "; ") + m;
  return out;
}

// The duplicate taint as Go's %#v prints the internal core.Taint (its json.Marshal refuses
// internal structs, so field.Error falls back to %#v).
std::string GoTaint(const Node& taint) {
  const Node* added = taint.Find("timeAdded");
  return fmt::format(
      "core.Taint{{Key:{}, Value:{}, Effect:{}, TimeAdded:{}}}",
      field::GoQuote(codec::StringOf(taint.Find("key"))), field::GoQuote(codec::StringOf(taint.Find("value"))),
      field::GoQuote(codec::StringOf(taint.Find("effect"))),
      added == nullptr || added->IsNull() ? "(*v1.Time)(nil)" : "(*v1.Time)(" + codec::StringOf(added) + ")");
}

std::string Json(const Node* n) {
  return n ? codec::EncodeJson(*n, 0) : std::string("null");
}

}  // namespace

field::ErrorList ValidateNodeTaints(const Node& node) {
  field::ErrorList errs;
  const Node* taints = node.FindPath({"spec", "taints"});
  if (taints == nullptr || !taints->IsArray()) return errs;
  const field::Path path = field::Path("spec").Child("taints");
  std::set<std::pair<std::string, std::string>> seen;  // (effect, key)
  for (std::size_t i = 0; i < taints->items.size(); ++i) {
    const Node& taint = taints->items[i];
    const field::Path at = path.Index(i);
    const std::string key = codec::StringOf(taint.Find("key"));
    const std::string value = codec::StringOf(taint.Find("value"));
    const std::string effect = codec::StringOf(taint.Find("effect"));
    for (const auto& msg : IsQualifiedName(key)) {
      errs.push_back(field::Invalid(at.Child("key"), key, msg));
    }
    if (auto msgs = IsValidLabelValue(value); !msgs.empty()) {
      errs.push_back(field::Invalid(at.Child("value"), value, Joined(msgs)));
    }
    if (effect.empty()) {
      errs.push_back(field::Required(at.Child("effect"), ""));
    } else if (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute") {
      errs.push_back(field::NotSupported(at.Child("effect"), effect,
                                         {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
    }
    if (!seen.insert({effect, key}).second) {
      field::Error dup = field::Duplicate(at, field::Json{GoTaint(taint)});
      dup.detail = "taints must be unique by key and effect pair";
      errs.push_back(std::move(dup));
    }
  }
  return errs;
}

void SyncNodePodCIDRs(Node& node) {
  Node* spec = node.Find("spec");
  if (spec == nullptr || !spec->IsObject()) return;
  const std::string single = codec::StringOf(spec->Find("podCIDR"));
  const Node* list = spec->Find("podCIDRs");
  const bool listed = list && list->IsArray() && !list->items.empty();
  if (!single.empty() && !listed) {
    Node cidrs = Node::Array();
    cidrs.items.push_back(Node::String(single));
    spec->Set("podCIDRs", std::move(cidrs));
  } else if (single.empty() && listed) {
    spec->Set("podCIDR", list->items[0]);
  }
}

field::ErrorList ValidateNodePodCIDRs(const Node& node) {
  field::ErrorList errs;
  const Node* list = node.FindPath({"spec", "podCIDRs"});
  if (list == nullptr || !list->IsArray()) return errs;
  const field::Path path = field::Path("spec").Child("podCIDRs");
  int v4 = 0, v6 = 0;
  for (std::size_t i = 0; i < list->items.size(); ++i) {
    const std::string cidr = codec::StringOf(&list->items[i]);
    const auto slash = cidr.find('/');
    const std::string address = cidr.substr(0, slash);
    unsigned char buf[16];
    const bool is_v4 = inet_pton(AF_INET, address.c_str(), buf) == 1;
    const bool is_v6 = !is_v4 && inet_pton(AF_INET6, address.c_str(), buf) == 1;
    int prefix = -1;
    if (slash != std::string::npos && slash + 1 < cidr.size() && slash + 4 >= cidr.size()) {
      const std::string bits = cidr.substr(slash + 1);
      if (bits.find_first_not_of("0123456789") == std::string::npos) prefix = std::stoi(bits);
    }
    if ((!is_v4 && !is_v6) || prefix < 0 || prefix > (is_v4 ? 32 : 128)) {
      errs.push_back(field::Invalid(path.Index(i), cidr,
                                    "must be a valid CIDR value, (e.g. 10.9.8.0/24 or "
                                    "2001:db8::/64)"));
      continue;
    }
    (is_v4 ? v4 : v6) += 1;
  }
  if (errs.empty() && (list->items.size() > 2 || v4 > 1 || v6 > 1)) {
    std::vector<std::string> quoted;
    for (const Node& item : list->items) quoted.push_back(field::GoQuote(codec::StringOf(&item)));
    std::string shown;
    for (const auto& q : quoted) shown += (shown.empty() ? "" : ",") + q;
    errs.push_back(field::Invalid(path, field::Json{"[" + shown + "]"},
                                  "may specify no more than one CIDR for each IP family"));
  }
  return errs;
}

field::ErrorList ValidateNodeUpdate(const Node& node, const Node& old) {
  field::ErrorList errs;
  const Node* new_spec = node.Find("spec");
  const Node* old_spec = old.Find("spec");
  Node allowed = old_spec ? *old_spec : Node::Object();
  Node proposed = new_spec ? *new_spec : Node::Object();
  // podCIDRs are assigned once (by the controller manager): from nothing to something only.
  for (const char* cidr : {"podCIDR", "podCIDRs"}) {
    const Node* before = allowed.Find(cidr);
    const bool was_set =
        before && !before->IsNull() && Json(before) != "\"\"" && Json(before) != "[]";
    if (was_set && Json(before) != Json(proposed.Find(cidr))) {
      errs.push_back(
          field::Forbidden(field::Path("spec").Child("podCIDRs"),
                           "node updates may not change podCIDR except from \"\" to valid"));
    }
  }
  if (const std::string before = codec::StringOf(allowed.Find("providerID"));
      !before.empty() && before != codec::StringOf(proposed.Find("providerID"))) {
    errs.push_back(field::Forbidden(field::Path("spec").Child("providerID"),
                                    "node updates may not change providerID except from \"\" "
                                    "to valid"));
  }
  field::Append(errs, ValidateNodeTaints(node));
  field::Append(errs, ValidateNodePodCIDRs(node));
  // What may change is taken over from the new spec; what is left must be equal.
  for (const char* free :
       {"unschedulable", "taints", "configSource", "providerID", "podCIDR", "podCIDRs"}) {
    allowed.Erase(free);
    proposed.Erase(free);
  }
  if (codec::EncodeJsonSorted(allowed) != codec::EncodeJsonSorted(proposed)) {
    errs.push_back(field::Forbidden(field::Path(""),
                                    "node updates may only change labels, taints, or capacity "
                                    "(or configSource, if the DynamicKubeletConfig feature gate "
                                    "is enabled)"));
  }
  return errs;
}

}  // namespace podlimits::validation
