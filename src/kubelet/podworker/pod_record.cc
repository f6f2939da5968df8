#include "kubelet/podworker/pod_record.h"

#include <fmt/format.h>

#include "base/error.h"
#include "base/fs.h"
#include "codec/json_codec.h"
#include "codec/node.h"

namespace podlimits::kubelet {
namespace {

using codec::Node;

Result<std::string> StringAt(const Node& parent, std::string_view key, std::string_view where,
                             std::string_view source) {
  const Node* n = parent.Find(key);
  if (!n || !n->IsString() || n->scalar.empty()) {
    return Failure(fmt::format("{}: {}{}: want a non-empty string", source, where, key));
  }
  return n->scalar;
}

Result<cgroups::QosClass> ParseQos(std::string_view name) {
  for (auto qos : {cgroups::QosClass::kGuaranteed, cgroups::QosClass::kBurstable,
                   cgroups::QosClass::kBestEffort}) {
    if (cgroups::Name(qos) == name) return qos;
  }
  return Failure(fmt::format("unknown QoS class \"{}\"", name));
}

}  // namespace

std::string EncodePodRecord(const PodRecord& r) {
  Node root = Node::Object();
  root.Set("uid", Node::String(r.uid));
  root.Set("name", Node::String(r.name));
  root.Set("namespace", Node::String(r.namespace_));
  Node runtime = Node::Object();
  runtime.Set("name", Node::String(r.runtime));
  runtime.Set("binary", Node::String(r.runtime_binary.string()));
  runtime.Set("root", Node::String(r.runtime_root.string()));
  root.Set("runtime", std::move(runtime));
  Node cgroup = Node::Object();
  cgroup.Set("cgroupRoot", Node::String(r.cgroup_root.string()));
  cgroup.Set("qosClass", Node::String(std::string(cgroups::Name(r.qos))));
  cgroup.Set("cpuRequestMilli", Node::Int(r.cpu_request_milli));
  root.Set("cgroup", std::move(cgroup));
  Node containers = Node::Array();
  for (const auto& c : r.containers) {
    Node item = Node::Object();
    item.Set("name", Node::String(c.name));
    item.Set("id", Node::String(c.id));
    containers.items.push_back(std::move(item));
  }
  root.Set("containers", std::move(containers));
  Node images = Node::Array();
  for (const auto& i : r.images) images.items.push_back(Node::String(i.string()));
  root.Set("images", std::move(images));
  return codec::EncodeJson(root, 2) + "\n";
}

Result<PodRecord> DecodePodRecord(std::string_view text, std::string_view source) {
  auto parsed = codec::ParseJsonStream(text);
  if (!parsed) {
    return Failure(fmt::format("{}: invalid JSON at line {}: {}", source, parsed.error().line,
                               parsed.error().message));
  }
  if (parsed->size() != 1 || !(*parsed)[0].IsObject()) {
    return Failure(fmt::format("{}: want one JSON object", source));
  }
  const Node& root = (*parsed)[0];
  PodRecord r;
  auto take = [&](const Node& parent, std::string_view key, std::string_view where,
                  std::string& into) -> Result<void> {
    auto v = StringAt(parent, key, where, source);
    if (!v) return std::unexpected(v.error());
    into = std::move(*v);
    return {};
  };
  if (auto ok = take(root, "uid", "", r.uid); !ok) return std::unexpected(ok.error());
  if (auto ok = take(root, "name", "", r.name); !ok) return std::unexpected(ok.error());
  if (auto ok = take(root, "namespace", "", r.namespace_); !ok) return std::unexpected(ok.error());
  const Node* runtime = root.Find("runtime");
  const Node* cgroup = root.Find("cgroup");
  if (!runtime || !runtime->IsObject() || !cgroup || !cgroup->IsObject()) {
    return Failure(fmt::format("{}: want the objects runtime and cgroup", source));
  }
  std::string binary, state_root, cgroup_root, qos;
  if (auto ok = take(*runtime, "name", "runtime.", r.runtime); !ok) {
    return std::unexpected(ok.error());
  }
  if (auto ok = take(*runtime, "binary", "runtime.", binary); !ok) {
    return std::unexpected(ok.error());
  }
  if (auto ok = take(*runtime, "root", "runtime.", state_root); !ok) {
    return std::unexpected(ok.error());
  }
  if (auto ok = take(*cgroup, "cgroupRoot", "cgroup.", cgroup_root); !ok) {
    return std::unexpected(ok.error());
  }
  if (auto ok = take(*cgroup, "qosClass", "cgroup.", qos); !ok) return std::unexpected(ok.error());
  auto q = ParseQos(qos);
  if (!q) return Failure(fmt::format("{}: cgroup.qosClass: {}", source, q.error().Message()));
  r.runtime_binary = binary;
  r.runtime_root = state_root;
  r.cgroup_root = cgroup_root;
  r.qos = *q;
  // Absent in records of older runs: no request counted.
  if (const Node* milli = cgroup->Find("cpuRequestMilli")) r.cpu_request_milli = milli->AsInt().value_or(0);
  if (const Node* list = root.Find("containers"); list && list->IsArray()) {
    for (std::size_t i = 0; i < list->items.size(); ++i) {
      const std::string where = fmt::format("containers[{}].", i);
      PodRecord::Container c;
      if (auto ok = take(list->items[i], "name", where, c.name); !ok) {
        return std::unexpected(ok.error());
      }
      if (auto ok = take(list->items[i], "id", where, c.id); !ok) {
        return std::unexpected(ok.error());
      }
      r.containers.push_back(std::move(c));
    }
  }
  if (const Node* list = root.Find("images"); list && list->IsArray()) {
    for (const Node& item : list->items) {
      if (item.IsString() && !item.scalar.empty()) r.images.emplace_back(item.scalar);
    }
  }
  return r;
}

Result<void> WritePodRecord(const std::filesystem::path& pod_dir, const PodRecord& record) {
  return ReplaceFile(pod_dir / kPodRecordFile, EncodePodRecord(record));
}

Result<PodRecord> ReadPodRecord(const std::filesystem::path& pod_dir) {
  const auto file = pod_dir / kPodRecordFile;
  auto text = ReadSmallFile(file, 1 << 20);
  if (!text) return std::unexpected(text.error());
  return DecodePodRecord(*text, file.string());
}

}  // namespace podlimits::kubelet
