#include "nodeagent/static_pods.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>

#include "base/fs.h"
#include "admission/chain.h"
#include "api/decode.h"
#include "codec/json_codec.h"

namespace podlimits::nodeagent {

namespace fs = std::filesystem;
using codec::Node;

namespace {

constexpr std::size_t kMaxManifestBytes = 10 << 20;  // the kubelet's file source limit

std::string Md5Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_md5(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace

StaticPodScan ReadStaticPods(const fs::path& dir, std::string_view node_name,
                             const validation::FeatureGates& gates, std::string_view now) {
  StaticPodScan out;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(".") || !e.is_regular_file(ec)) continue;
    files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    // A manifest removed since the listing (an editor's rename) reads as empty: no pods from it
    // on this scan.
    const std::string content = ReadWholeFile(file).value_or("");
    if (content.size() > kMaxManifestBytes) {
      out.errors.push_back(fmt::format("{}: larger than {} bytes", file.string(), kMaxManifestBytes));
      continue;
    }
    api::DecodeOptions decode;
    decode.kinds = {"Pod"};
    auto decoded = api::DecodeManifests(file.string(), content, decode);
    if (decoded.size() != 1) {
      out.errors.push_back(fmt::format("{}: a static pod manifest holds exactly one Pod",
                                       file.string()));
      continue;
    }
    if (auto* err = std::get_if<api::DecodeError>(&decoded[0])) {
      out.errors.push_back(fmt::format("{}: {}", file.string(), err->message));
      continue;
    }
    auto& object = std::get<api::DecodedObject>(decoded[0]);
    // applyDefaults: the name carries the node's, the namespace defaults, the node is this one.
    Node& meta = object.tree.Ensure("metadata");
    const Node* name = meta.Find("name");
    const std::string pod_name =
        fmt::format("{}-{}", name && name->IsString() ? name->scalar : "", node_name);
    meta.Set("name", Node::String(pod_name));
    const Node* ns = meta.Find("namespace");
    if (!ns || !ns->IsString() || ns->scalar.empty()) meta.Set("namespace", Node::String("default"));
    // The kubelet hashes the pod it decoded with the host and the source.
    const std::string uid = Md5Hex(codec::EncodeJson(object.tree, 0) +
                                   fmt::format("host:{}file:{}", node_name, file.string()));
    admission::ChainOptions options;
    options.gates = gates;
    options.run_admission_plugins = false;  // API defaulting and validation, as the kubelet does
    std::vector<api::DecodeResult> stream;
    stream.push_back(std::move(decoded[0]));
    auto outcomes = admission::RunChain(std::move(stream), options);
    if (outcomes.size() != 1 || !outcomes[0].admitted) {
      out.errors.push_back(fmt::format("{}: {}", file.string(),
                                       outcomes.empty() ? "not admitted" : outcomes[0].message));
      continue;
    }
    Node pod = std::move(outcomes[0].object);
    Node& m = pod.Ensure("metadata");
    m.Set("uid", Node::String(uid));
    Node& annotations = m.Ensure("annotations");
    annotations.Set(std::string(kConfigHashAnnotation), Node::String(uid));
    annotations.Set("kubernetes.io/config.seen", Node::String(std::string(now)));
    annotations.Set("kubernetes.io/config.source", Node::String("file"));
    Node& spec = pod.Ensure("spec");
    spec.Set("nodeName", Node::String(std::string(node_name)));
    Node& tolerations = spec.Ensure("tolerations", Node::Kind::kArray);
    Node all = Node::Object();
    all.Set("operator", Node::String("Exists"));
    all.Set("effect", Node::String("NoExecute"));
    tolerations.items.push_back(std::move(all));
    out.pods.push_back({file, uid, std::move(pod)});
  }
  return out;
}

Node MirrorPod(const StaticPod& pod, std::string_view node_uid) {
  Node mirror = pod.object;
  Node& meta = mirror.Ensure("metadata");
  meta.Erase("uid");
  meta.Ensure("annotations").Set(std::string(kConfigMirrorAnnotation), Node::String(pod.uid));
  Node owner = Node::Object();
  owner.Set("apiVersion", Node::String("v1"));
  owner.Set("kind", Node::String("Node"));
  owner.Set("name", mirror.FindPath({"spec", "nodeName"}) ? *mirror.FindPath({"spec", "nodeName"})
                                                          : Node::String(""));
  owner.Set("uid", Node::String(std::string(node_uid)));
  owner.Set("controller", Node::Bool(true));
  Node owners = Node::Array();
  owners.items.push_back(std::move(owner));
  meta.Set("ownerReferences", std::move(owners));
  mirror.Erase("status");
  return mirror;
}

}  // namespace podlimits::nodeagent
