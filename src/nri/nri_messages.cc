#include "nri/nri_messages.h"

#include <fmt/format.h>

#include "codec/protobuf_wire.h"

namespace podlimits::nri {
namespace {

using codec::protobuf::kBytes;
using codec::protobuf::kVarint;
using codec::protobuf::WireReader;
using codec::protobuf::WireWriter;

// Walks the fields of `bytes`, calling `on(field, wire, reader)` for each; `on` returns false
// for a field it did not consume, which is then skipped. Any malformed field is an error naming
// the message.
template <typename On>
Result<void> Fields(std::string_view bytes, std::string_view message, On on) {
  WireReader r(bytes);
  while (!r.done()) {
    auto tag = r.NextTag();
    if (!tag) return Failure(fmt::format("malformed NRI {}: bad field tag", message));
    auto consumed = on(tag->field, tag->wire, r);
    if (!consumed) return std::unexpected(consumed.error());
    if (!*consumed && !r.Skip(tag->wire)) {
      return Failure(fmt::format("malformed NRI {}: field {} is truncated", message, tag->field));
    }
  }
  return {};
}

Result<bool> Truncated(std::string_view message, std::uint32_t field) {
  return Failure(fmt::format("malformed NRI {}: field {} is truncated", message, field));
}

Result<bool> ReadString(WireReader& r, std::uint32_t wire, std::string& out,
                        std::string_view message, std::uint32_t field) {
  if (wire != kBytes) return Failure(fmt::format("malformed NRI {}: field {} is not a string",
                                                 message, field));
  auto v = r.Bytes();
  if (!v) return Truncated(message, field);
  out = *v;
  return true;
}

Result<bool> ReadVarint(WireReader& r, std::uint32_t wire, std::uint64_t& out,
                        std::string_view message, std::uint32_t field) {
  if (wire != kVarint) return Failure(fmt::format("malformed NRI {}: field {} is not a varint",
                                                  message, field));
  auto v = r.Varint();
  if (!v) return Truncated(message, field);
  out = *v;
  return true;
}

Result<bool> ReadMessage(WireReader& r, std::uint32_t wire, std::string_view& out,
                         std::string_view message, std::uint32_t field) {
  if (wire != kBytes) return Failure(fmt::format("malformed NRI {}: field {} is not a message",
                                                 message, field));
  auto v = r.Bytes();
  if (!v) return Truncated(message, field);
  out = *v;
  return true;
}

Result<bool> ReadMapEntry(WireReader& r, std::uint32_t wire, StringMap& out,
                          std::string_view message, std::uint32_t field) {
  std::string_view entry;
  auto ok = ReadMessage(r, wire, entry, message, field);
  if (!ok) return ok;
  std::string key, value;
  auto read = Fields(entry, message, [&](std::uint32_t f, std::uint32_t w,
                                         WireReader& er) -> Result<bool> {
    if (f == 1) return ReadString(er, w, key, message, field);
    if (f == 2) return ReadString(er, w, value, message, field);
    return false;
  });
  if (!read) return std::unexpected(read.error());
  out[std::move(key)] = std::move(value);
  return true;
}

Result<PodSandbox> DecodePod(std::string_view bytes) {
  PodSandbox pod;
  constexpr std::string_view kMsg = "PodSandbox";
  auto ok = Fields(bytes, kMsg, [&](std::uint32_t f, std::uint32_t w,
                                    WireReader& r) -> Result<bool> {
    switch (f) {
      case 1: return ReadString(r, w, pod.id, kMsg, f);
      case 2: return ReadString(r, w, pod.name, kMsg, f);
      case 3: return ReadString(r, w, pod.uid, kMsg, f);
      case 4: return ReadString(r, w, pod.pod_namespace, kMsg, f);
      case 5: return ReadMapEntry(r, w, pod.labels, kMsg, f);
      case 6: return ReadMapEntry(r, w, pod.annotations, kMsg, f);
      case 7: return ReadString(r, w, pod.runtime_handler, kMsg, f);
      case 8: {
        std::string_view linux;
        if (auto m = ReadMessage(r, w, linux, kMsg, f); !m) return m;
        auto inner = Fields(linux, "LinuxPodSandbox", [&](std::uint32_t lf, std::uint32_t lw,
                                                          WireReader& lr) -> Result<bool> {
          if (lf == 3) return ReadString(lr, lw, pod.cgroup_parent, "LinuxPodSandbox", lf);
          if (lf == 4) return ReadString(lr, lw, pod.cgroups_path, "LinuxPodSandbox", lf);
          return false;
        });
        if (!inner) return std::unexpected(inner.error());
        return true;
      }
      default: return false;
    }
  });
  if (!ok) return std::unexpected(ok.error());
  return pod;
}

Result<Mount> DecodeMount(std::string_view bytes) {
  Mount m;
  constexpr std::string_view kMsg = "Mount";
  auto ok = Fields(bytes, kMsg, [&](std::uint32_t f, std::uint32_t w,
                                    WireReader& r) -> Result<bool> {
    switch (f) {
      case 1: return ReadString(r, w, m.destination, kMsg, f);
      case 2: return ReadString(r, w, m.type, kMsg, f);
      case 3: return ReadString(r, w, m.source, kMsg, f);
      case 4: return ReadString(r, w, m.options.emplace_back(), kMsg, f);
      default: return false;
    }
  });
  if (!ok) return std::unexpected(ok.error());
  return m;
}

Result<PosixRlimit> DecodeRlimit(std::string_view bytes) {
  PosixRlimit l;
  constexpr std::string_view kMsg = "POSIXRlimit";
  auto ok = Fields(bytes, kMsg, [&](std::uint32_t f, std::uint32_t w,
                                    WireReader& r) -> Result<bool> {
    switch (f) {
      case 1: return ReadString(r, w, l.type, kMsg, f);
      case 2: return ReadVarint(r, w, l.hard, kMsg, f);
      case 3: return ReadVarint(r, w, l.soft, kMsg, f);
      default: return false;
    }
  });
  if (!ok) return std::unexpected(ok.error());
  return l;
}

Result<Container> DecodeContainerMessage(std::string_view bytes) {
  Container c;
  constexpr std::string_view kMsg = "Container";
  auto ok = Fields(bytes, kMsg, [&](std::uint32_t f, std::uint32_t w,
                                    WireReader& r) -> Result<bool> {
    std::string_view inner;
    switch (f) {
      case 1: return ReadString(r, w, c.id, kMsg, f);
      case 2: return ReadString(r, w, c.pod_sandbox_id, kMsg, f);
      case 3: return ReadString(r, w, c.name, kMsg, f);
      case 5: return ReadMapEntry(r, w, c.labels, kMsg, f);
      case 6: return ReadMapEntry(r, w, c.annotations, kMsg, f);
      case 9: {
        if (auto m = ReadMessage(r, w, inner, kMsg, f); !m) return m;
        auto mount = DecodeMount(inner);
        if (!mount) return std::unexpected(mount.error());
        c.mounts.push_back(std::move(*mount));
        return true;
      }
      case 11: {
        if (auto m = ReadMessage(r, w, inner, kMsg, f); !m) return m;
        auto linux = Fields(inner, "LinuxContainer", [&](std::uint32_t lf, std::uint32_t lw,
                                                         WireReader& lr) -> Result<bool> {
          if (lf == 5) return ReadString(lr, lw, c.cgroups_path, "LinuxContainer", lf);
          if (lf != 1) return false;
          std::string_view ns_bytes;
          if (auto m = ReadMessage(lr, lw, ns_bytes, "LinuxContainer", lf); !m) return m;
          LinuxNamespace ns;
          auto read = Fields(ns_bytes, "LinuxNamespace", [&](std::uint32_t nf, std::uint32_t nw,
                                                             WireReader& nr) -> Result<bool> {
            if (nf == 1) return ReadString(nr, nw, ns.type, "LinuxNamespace", nf);
            if (nf == 2) return ReadString(nr, nw, ns.path, "LinuxNamespace", nf);
            return false;
          });
          if (!read) return std::unexpected(read.error());
          c.namespaces.push_back(std::move(ns));
          return true;
        });
        if (!linux) return std::unexpected(linux.error());
        return true;
      }
      case 12: {
        std::uint64_t pid = 0;
        if (auto m = ReadVarint(r, w, pid, kMsg, f); !m) return m;
        c.pid = static_cast<std::uint32_t>(pid);
        return true;
      }
      case 13: {
        if (auto m = ReadMessage(r, w, inner, kMsg, f); !m) return m;
        auto l = DecodeRlimit(inner);
        if (!l) return std::unexpected(l.error());
        c.rlimits.push_back(std::move(*l));
        return true;
      }
      default: return false;
    }
  });
  if (!ok) return std::unexpected(ok.error());
  return c;
}

Result<PodAndContainer> DecodePair(std::string_view bytes, std::string_view message,
                                   std::uint32_t event_field, std::uint32_t pod_field,
                                   std::uint32_t container_field) {
  PodAndContainer out;
  bool has_pod = false;
  auto ok = Fields(bytes, message, [&](std::uint32_t f, std::uint32_t w,
                                       WireReader& r) -> Result<bool> {
    std::string_view inner;
    if (f == event_field) {
      std::uint64_t e = 0;
      if (auto m = ReadVarint(r, w, e, message, f); !m) return m;
      out.event = static_cast<Event>(static_cast<int>(e));
      return true;
    }
    if (f == pod_field) {
      if (auto m = ReadMessage(r, w, inner, message, f); !m) return m;
      auto pod = DecodePod(inner);
      if (!pod) return std::unexpected(pod.error());
      out.pod = std::move(*pod);
      has_pod = true;
      return true;
    }
    if (f == container_field) {
      if (auto m = ReadMessage(r, w, inner, message, f); !m) return m;
      auto c = DecodeContainerMessage(inner);
      if (!c) return std::unexpected(c.error());
      out.container = std::move(*c);
      return true;
    }
    return false;
  });
  if (!ok) return std::unexpected(ok.error());
  if (!has_pod) return Failure(fmt::format("NRI {} without a pod", message));
  return out;
}

void WriteMount(WireWriter& w, std::uint32_t field, const Mount& m) {
  WireWriter mw;
  mw.String(1, m.destination);
  mw.String(2, m.type);
  mw.String(3, m.source);
  for (const auto& o : m.options) mw.Message(4, o);
  w.Message(field, mw.bytes());
}

void WriteRlimit(WireWriter& w, std::uint32_t field, const PosixRlimit& l) {
  WireWriter lw;
  lw.String(1, l.type);
  lw.Uint(2, l.hard);
  lw.Uint(3, l.soft);
  w.Message(field, lw.bytes());
}

}  // namespace

Result<ConfigureRequest> DecodeConfigureRequest(std::string_view bytes) {
  ConfigureRequest req;
  constexpr std::string_view kMsg = "ConfigureRequest";
  auto ok = Fields(bytes, kMsg, [&](std::uint32_t f, std::uint32_t w,
                                    WireReader& r) -> Result<bool> {
    std::uint64_t v = 0;
    switch (f) {
      case 1: return ReadString(r, w, req.config, kMsg, f);
      case 2: return ReadString(r, w, req.runtime_name, kMsg, f);
      case 3: return ReadString(r, w, req.runtime_version, kMsg, f);
      case 4:
      case 5: {
        if (auto m = ReadVarint(r, w, v, kMsg, f); !m) return m;
        (f == 4 ? req.registration_timeout_ms : req.request_timeout_ms) =
            static_cast<std::int64_t>(v);
        return true;
      }
      default: return false;
    }
  });
  if (!ok) return std::unexpected(ok.error());
  return req;
}

Result<SynchronizeRequest> DecodeSynchronizeRequest(std::string_view bytes) {
  SynchronizeRequest req;
  constexpr std::string_view kMsg = "SynchronizeRequest";
  auto ok = Fields(bytes, kMsg, [&](std::uint32_t f, std::uint32_t w,
                                    WireReader& r) -> Result<bool> {
    std::string_view inner;
    if (f == 1 || f == 2) {
      if (auto m = ReadMessage(r, w, inner, kMsg, f); !m) return m;
      if (f == 1) {
        auto pod = DecodePod(inner);
        if (!pod) return std::unexpected(pod.error());
        req.pods.push_back(std::move(*pod));
      } else {
        auto c = DecodeContainerMessage(inner);
        if (!c) return std::unexpected(c.error());
        req.containers.push_back(std::move(*c));
      }
      return true;
    }
    if (f == 3) {
      std::uint64_t more = 0;
      if (auto m = ReadVarint(r, w, more, kMsg, f); !m) return m;
      req.more = more != 0;
      return true;
    }
    return false;
  });
  if (!ok) return std::unexpected(ok.error());
  return req;
}

Result<PodAndContainer> DecodeContainerRequest(std::string_view bytes) {
  return DecodePair(bytes, "container request", 0, 1, 2);
}

Result<PodAndContainer> DecodeStateChangeEvent(std::string_view bytes) {
  return DecodePair(bytes, "StateChangeEvent", 1, 2, 3);
}

std::string EncodeRegisterPluginRequest(std::string_view name, std::string_view index) {
  WireWriter w;
  w.String(1, name);
  w.String(2, index);
  return std::move(w).bytes();
}

std::string EncodeConfigureResponse(std::int32_t events) {
  WireWriter w;
  w.Int(2, events);
  return std::move(w).bytes();
}

std::string EncodeSynchronizeResponse(bool more) {
  WireWriter w;
  w.Bool(2, more);
  return std::move(w).bytes();
}

std::string EncodeCreateContainerResponse(const ContainerAdjustment& adjust) {
  WireWriter a;
  for (const auto& m : adjust.mounts) WriteMount(a, 3, m);
  for (const auto& l : adjust.rlimits) WriteRlimit(a, 7, l);
  WireWriter w;
  if (!adjust.Empty()) w.Message(1, a.bytes());
  return std::move(w).bytes();
}

std::string EncodePodSandbox(const PodSandbox& pod) {
  WireWriter w;
  w.String(1, pod.id);
  w.String(2, pod.name);
  w.String(3, pod.uid);
  w.String(4, pod.pod_namespace);
  for (const auto& [k, v] : pod.labels) w.MapEntry(5, k, v);
  for (const auto& [k, v] : pod.annotations) w.MapEntry(6, k, v);
  w.String(7, pod.runtime_handler);
  WireWriter linux;
  linux.String(3, pod.cgroup_parent);
  linux.String(4, pod.cgroups_path);
  if (!linux.bytes().empty()) w.Message(8, linux.bytes());
  return std::move(w).bytes();
}

std::string EncodeContainer(const Container& c) {
  WireWriter w;
  w.String(1, c.id);
  w.String(2, c.pod_sandbox_id);
  w.String(3, c.name);
  for (const auto& [k, v] : c.labels) w.MapEntry(5, k, v);
  for (const auto& [k, v] : c.annotations) w.MapEntry(6, k, v);
  for (const auto& m : c.mounts) WriteMount(w, 9, m);
  WireWriter linux;
  for (const auto& ns : c.namespaces) {
    WireWriter nw;
    nw.String(1, ns.type);
    nw.String(2, ns.path);
    linux.Message(1, nw.bytes());
  }
  linux.String(5, c.cgroups_path);
  if (!linux.bytes().empty()) w.Message(11, linux.bytes());
  w.Uint(12, c.pid);
  for (const auto& l : c.rlimits) WriteRlimit(w, 13, l);
  return std::move(w).bytes();
}

std::string EncodeContainerRequest(const PodSandbox& pod, const Container& c) {
  WireWriter w;
  w.Message(1, EncodePodSandbox(pod));
  w.Message(2, EncodeContainer(c));
  return std::move(w).bytes();
}

std::string EncodeStateChangeEvent(Event event, const PodSandbox& pod, const Container* c) {
  WireWriter w;
  w.Int(1, static_cast<int>(event));
  w.Message(2, EncodePodSandbox(pod));
  if (c != nullptr) w.Message(3, EncodeContainer(*c));
  return std::move(w).bytes();
}

Result<ContainerAdjustment> DecodeCreateContainerResponse(std::string_view bytes) {
  ContainerAdjustment adjust;
  constexpr std::string_view kMsg = "CreateContainerResponse";
  auto ok = Fields(bytes, kMsg, [&](std::uint32_t f, std::uint32_t w,
                                    WireReader& r) -> Result<bool> {
    if (f != 1) return false;
    std::string_view inner;
    if (auto m = ReadMessage(r, w, inner, kMsg, f); !m) return m;
    auto read = Fields(inner, "ContainerAdjustment", [&](std::uint32_t af, std::uint32_t aw,
                                                         WireReader& ar) -> Result<bool> {
      std::string_view item;
      if (af != 3 && af != 7) return false;
      if (auto m = ReadMessage(ar, aw, item, "ContainerAdjustment", af); !m) return m;
      if (af == 3) {
        auto mount = DecodeMount(item);
        if (!mount) return std::unexpected(mount.error());
        adjust.mounts.push_back(std::move(*mount));
      } else {
        auto l = DecodeRlimit(item);
        if (!l) return std::unexpected(l.error());
        adjust.rlimits.push_back(std::move(*l));
      }
      return true;
    });
    if (!read) return std::unexpected(read.error());
    return true;
  });
  if (!ok) return std::unexpected(ok.error());
  return adjust;
}

}  // namespace podlimits::nri
