// What a runtime can send `podlimits nri`: any bytes on the socket go through NRI's mux
// (MuxReader), ttrpc's framing (TtrpcReader), ttrpc's Request and the NRI messages, and the
// plugin's answer, on a cgroup v2 node whose cgroup tree is a scratch directory. Truncated frames,
// wrong methods, oversized lengths and malformed protobuf must end in an error or an answer,
// never a crash; every answer encodes to a Response that decodes to the same code and message;
// an adjustment decodes again; nothing outside the scratch tree is written (its canary holds).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_scratch.h"
#include "nri/nri_messages.h"
#include "nri/nri_plugin.h"
#include "nri/ttrpc_wire.h"

namespace {

namespace nri = podlimits::nri;

podlimits::fuzz::ScratchDir& Scratch() {
  static podlimits::fuzz::ScratchDir dir("nri-fuzz");
  return dir;
}

podlimits::runcwrap::NodeFacts Node() {
  podlimits::runcwrap::NodeFacts n;
  n.cgroup_mode = podlimits::cgroups::CgroupMode::kV2;
  n.unified_root = Scratch().path();
  n.nsdelegate = true;
  n.rlimits.cap_sys_resource = false;
  n.rlimits.hard_limits = {{"nofile", 20000}, {"core", podlimits::kubelet::kRlimInfinity},
                           {"memlock", 8u << 20}, {"stack", podlimits::kubelet::kRlimInfinity}};
  n.rlimits.nr_open = 1048576;
  return n;
}

nri::NriPlugin& Plugin() {
  static nri::NriPlugin plugin = [] {
    nri::NriPluginSeams seams;
    seams.probe_node = [](const podlimits::runcwrap::BundleRequest&) { return Node(); };
    seams.read_back = [](std::uint32_t, const std::vector<nri::PosixRlimit>&)
        -> podlimits::Result<std::vector<std::string>> { return std::vector<std::string>{}; };
    nri::NriConfig config;
    config.limits.default_ulimits = {{"nofile", 1024, 4096}};
    return nri::NriPlugin(config, seams, [](std::string_view, std::string_view) {});
  }();
  return plugin;
}

void Answer(const nri::TtrpcMessage& msg) {
  if (msg.type != nri::TtrpcType::kRequest) return;
  auto req = nri::DecodeTtrpcRequest(msg.payload);
  if (!req) return;
  nri::TtrpcResponse resp = Plugin().Handle(*req);
  auto back = nri::DecodeTtrpcResponse(nri::EncodeTtrpcResponse(resp));
  if (!back || back->code != resp.code || back->message != resp.message ||
      back->payload != resp.payload) {
    std::abort();
  }
  if (req->method == "CreateContainer" && resp.code == nri::kCodeOk &&
      !nri::DecodeCreateContainerResponse(resp.payload)) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The first byte picks the layer the rest is fed to, so each decoder is reached directly as
  // well as through the ones around it.
  if (bytes.empty()) return 0;
  const char layer = bytes[0];
  bytes.remove_prefix(1);
  if (layer % 3 == 0) {
    nri::MuxReader mux;
    nri::TtrpcReader stream;
    mux.Feed(bytes);
    for (;;) {
      auto frame = mux.Next();
      if (!frame || !*frame) break;
      if ((*frame)->conn != nri::kPluginServiceConn) continue;
      stream.Feed((*frame)->payload);
      for (;;) {
        auto msg = stream.Next();
        if (!msg || !*msg) break;
        Answer(**msg);
      }
    }
  } else if (layer % 3 == 1) {
    nri::TtrpcReader stream;
    stream.Feed(bytes);
    for (;;) {
      auto msg = stream.Next();
      if (!msg || !*msg) break;
      Answer(**msg);
    }
  } else {
    // An NRI payload under every method the plugin serves.
    for (const char* method : {"Configure", "Synchronize", "CreateContainer", "StateChange",
                               "UpdateContainer", "StopContainer"}) {
      nri::TtrpcMessage msg;
      msg.payload = nri::EncodeTtrpcRequest(
          {std::string(nri::kPluginService), method, std::string(bytes), 0});
      Answer(msg);
    }
  }
  if (!Scratch().CanaryIntact()) std::abort();
  return 0;
}
