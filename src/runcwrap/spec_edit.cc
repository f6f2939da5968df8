#include "runcwrap/spec_edit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "kubelet/cm/node_capabilities.h"

namespace podlimits::runcwrap {
namespace {

using codec::Node;

constexpr std::string_view kCgroupMountPoint = "/sys/fs/cgroup";

Node Number(kubelet::RlimValue v) {
  Node n = Node::Int(0);
  n.scalar = std::to_string(v);
  return n;
}

std::string Scalar(const Node* n) { return n ? n->scalar : std::string(); }

Result<bool> EditRlimits(Node& spec, const std::vector<kubelet::GrantedUlimit>& rlimits) {
  if (rlimits.empty()) return false;
  Node& process = spec.Ensure("process");
  if (!process.IsObject()) return Failure("config.json: process is not an object");
  Node& list = process.Ensure("rlimits", Node::Kind::kArray);
  if (!list.IsArray()) return Failure("config.json: process.rlimits is not a list");
  bool changed = false;
  for (const auto& g : rlimits) {
    Node entry = Node::Object();
    entry.Set("type", Node::String(RlimitType(g.name)));
    entry.Set("hard", Number(g.hard));
    entry.Set("soft", Number(g.soft));
    auto same_type = [&](const Node& n) { return codec::StringOf(n.Find("type")) == RlimitType(g.name); };
    auto it = std::find_if(list.items.begin(), list.items.end(), same_type);
    if (it == list.items.end()) {
      list.items.push_back(std::move(entry));
      changed = true;
    } else if (Scalar(it->Find("hard")) != entry.Find("hard")->scalar ||
               Scalar(it->Find("soft")) != entry.Find("soft")->scalar) {
      *it = std::move(entry);
      changed = true;
    }
  }
  return changed;
}

Result<bool> EditWritableCgroup(Node& spec) {
  bool changed = false;
  Node& linux = spec.Ensure("linux");
  if (!linux.IsObject()) return Failure("config.json: linux is not an object");
  Node& namespaces = linux.Ensure("namespaces", Node::Kind::kArray);
  if (!namespaces.IsArray()) return Failure("config.json: linux.namespaces is not a list");
  auto cgroup_ns = std::find_if(namespaces.items.begin(), namespaces.items.end(),
                                [](const Node& n) { return codec::StringOf(n.Find("type")) == "cgroup"; });
  if (cgroup_ns == namespaces.items.end()) {
    Node ns = Node::Object();
    ns.Set("type", Node::String("cgroup"));
    namespaces.items.push_back(std::move(ns));
    changed = true;
  } else if (!codec::StringOf(cgroup_ns->Find("path")).empty()) {
    // Joining another container's cgroup namespace would give this one that container's view.
    return Failure(fmt::format("config.json joins the cgroup namespace {}; a writable cgroup "
                               "mount needs a cgroup namespace of the container's own",
                               codec::StringOf(cgroup_ns->Find("path"))));
  }

  Node& mounts = spec.Ensure("mounts", Node::Kind::kArray);
  if (!mounts.IsArray()) return Failure("config.json: mounts is not a list");
  auto mount = std::find_if(mounts.items.begin(), mounts.items.end(), [](const Node& m) {
    return codec::StringOf(m.Find("destination")) == kCgroupMountPoint;
  });
  if (mount == mounts.items.end()) {
    Node m = Node::Object();
    m.Set("destination", Node::String(std::string(kCgroupMountPoint)));
    m.Set("type", Node::String("cgroup"));
    m.Set("source", Node::String("cgroup"));
    Node options = Node::Array();
    for (const char* o : {"nosuid", "noexec", "nodev", "relatime", "rw"}) {
      options.items.push_back(Node::String(o));
    }
    m.Set("options", std::move(options));
    mounts.items.push_back(std::move(m));
    return true;
  }
  if (codec::StringOf(mount->Find("type")) != "cgroup" && codec::StringOf(mount->Find("type")) != "cgroup2") {
    return Failure(fmt::format("config.json mounts {} of type {} at {}; a writable cgroup mount "
                               "needs the cgroup filesystem there",
                               codec::StringOf(mount->Find("source")), codec::StringOf(mount->Find("type")),
                               kCgroupMountPoint));
  }
  Node& options = mount->Ensure("options", Node::Kind::kArray);
  if (!options.IsArray()) return Failure("config.json: the cgroup mount's options are not a list");
  bool has_rw = false;
  for (auto it = options.items.begin(); it != options.items.end();) {
    if (codec::StringOf(&*it) == "ro") {
      it = options.items.erase(it);
      changed = true;
      continue;
    }
    has_rw = has_rw || codec::StringOf(&*it) == "rw";
    ++it;
  }
  if (!has_rw) {
    options.items.push_back(Node::String("rw"));
    changed = true;
  }
  return changed;
}

}  // namespace

std::string RlimitType(std::string_view ulimit) {
  std::string type = "RLIMIT_";
  for (char c : ulimit) type.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  return type;
}

Result<bool> EditSpec(Node& spec, const SpecEdits& edits) {
  if (!spec.IsObject()) return Failure("config.json is not a JSON object");
  auto rlimits = EditRlimits(spec, edits.rlimits);
  if (!rlimits) return rlimits;
  bool changed = *rlimits;
  if (edits.writable_cgroup) {
    auto writable = EditWritableCgroup(spec);
    if (!writable) return writable;
    changed = changed || *writable;
  }
  return changed;
}

}  // namespace podlimits::runcwrap
