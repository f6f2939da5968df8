// The files of configMap, secret, downwardAPI and projected volumes, and how they are written.
//
// The payload is what the kubelet's volume plugins compute (configmap.MakePayload,
// secret.MakePayload, downwardapi.CollectData, projected's collectData), with their messages:
// `configmap "app" not found`, `configmap references non-existent config key: db`,
// `references non-existent secret key: tls.key`, `unsupported fieldPath: spec.x`.
//
// WritePayload lays the files out as the kubelet's AtomicWriter does, so programs that watch
// these volumes see what they see on a real node:
//
//   <dir>/..2026_11_25_20_15_07.123456789/<path>   the files, with their modes
//   <dir>/..data -> ..2026_11_25_20_15_07.123456789
//   <dir>/<first path element> -> ..data/<first path element>
//
// Paths are checked as AtomicWriter's validatePath does (relative, no ".." element, at most
// 4096 characters and 255 per element) before anything is written.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "api/objects.h"
#include "base/error.h"
#include "kubelet/volumes/object_source.h"

namespace podlimits::kubelet {

struct FileProjection {
  std::string data;
  std::int32_t mode = 0644;
  bool operator==(const FileProjection&) const = default;
};

using Payload = std::map<std::string, FileProjection>;

struct PayloadContext {
  const api::Pod* pod = nullptr;
  const ObjectSource* objects = nullptr;  // null: none exists
  api::ResourceList allocatable;          // for resourceFieldRef
  // Annotations the kubelet adds to the pod it runs (kubernetes.io/config.seen, .source); the
  // downward API's metadata.annotations shows them.
  std::map<std::string, std::string> kubelet_annotations;
};

// The payload of a configMap, secret, downwardAPI or projected volume.
Result<Payload> VolumePayload(const api::Volume& volume, const PayloadContext& ctx);

// fieldpath.FormatMap: `key="value"` lines in key order, values quoted as Go's %q.
std::string FormatMap(const std::map<std::string, std::string>& map);

// AtomicWriter's validatePath.
Result<void> ValidatePayloadPath(const std::string& path);

// Writes `payload` into the empty directory `dir` in AtomicWriter's layout. With fs_group the
// files and directories become group-owned by it, files gain group read and directories
// setgid and group read/execute (SetVolumeOwnership for a read-only volume).
Result<void> WritePayload(const std::filesystem::path& dir, const Payload& payload,
                          std::optional<gid_t> fs_group,
                          std::chrono::system_clock::time_point now);

}  // namespace podlimits::kubelet
