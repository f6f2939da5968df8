// The local image store behind `podlimits image load | ls | rm`: images unpacked once into a
// read-only rootfs that containers use as the lower dir of their overlay (overlay.h).
//
//   <root>/images.json          names ("busybox:latest") -> image ids
//   <root>/<id>/image.json      the image's config and facts (image_metadata.h)
//   <root>/<id>/rootfs/         the unpacked layers
//   <root>/.load-XXXXXX/        an image being unpacked; renamed to <id> when complete
//   <root>/.lock                serialises changes (image_tags.h)
//
// The id is the hex of the config digest, as docker's image id is, so loading the same image
// under another name only adds a name.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "image/config.h"

namespace podlimits::image {

struct Image {
  std::string name;              // "busybox:latest"
  std::string id;                // hex of the config digest
  std::filesystem::path rootfs;  // <root>/<id>/rootfs: read-only lower dir for containers
  ImageConfig config;            // Entrypoint, Cmd, Env, WorkingDir, User
  std::string architecture;      // "amd64"
  std::string os;                // "linux"
  std::string created;           // from the config, RFC 3339 ("" if unset)
  std::string format;            // loaded from: "oci-layout" or "docker-archive"
  std::uint64_t size = 0;        // bytes of file content in the rootfs
};

class ImageStore {
 public:
  static constexpr const char* kDefaultRoot = "/var/lib/podlimits/images";

  explicit ImageStore(std::filesystem::path root = kDefaultRoot) : root_(std::move(root)) {}

  const std::filesystem::path& root() const { return root_; }

  // Loads the image at `source` (an OCI image layout directory, an OCI archive, or a docker
  // archive; see image_manifest.h) and names it `name` ("name[:tag]", ":latest" by default),
  // replacing what that name pointed at (an image left without any name is deleted unless a
  // container's overlay uses it). Every blob is verified against its digest; layers
  // are applied in order with whiteouts. Atomic: on failure the store is as it was. While
  // layers unpack the process's working directory changes (libarchive extracts relative to
  // it; see image_layer.h), so no other thread may rely on it meanwhile.
  Result<Image> Load(const std::filesystem::path& source, std::string_view name);

  // All images, sorted by name (an image with several names appears once per name).
  Result<std::vector<Image>> List() const;

  // The image called `name`; the error says when there is none.
  Result<Image> Find(std::string_view name) const;

  // Removes the name; the image's files go with its last name. Refused while an overlay
  // mounted from this machine's mount namespace uses the image's rootfs.
  Result<void> Remove(std::string_view name);

 private:
  std::filesystem::path TagsFile() const { return root_ / "images.json"; }
  Result<Image> Read(const std::string& name, const std::string& id) const;

  std::filesystem::path root_;
};

}  // namespace podlimits::image
