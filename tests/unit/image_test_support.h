// Builders for the image tests: tar layers written with libarchive (so tests can hold exactly
// the hostile or unusual entries they need), OCI image layouts, OCI archives and docker
// archives, in temporary directories.
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "image/digest.h"
#include "image/source.h"
#include "temp_dir.h"

namespace podlimits::image_testing {

namespace fs = std::filesystem;

// One tar entry.
struct TarEntry {
  enum Kind { kFile, kDir, kSymlink, kHardlink } kind = kFile;
  std::string path;
  std::string data;  // file content, or the link target
  int mode = 0644;
  std::map<std::string, std::string> xattrs;

  static TarEntry File(std::string path, std::string content, int mode = 0644) {
    return {kFile, std::move(path), std::move(content), mode, {}};
  }
  static TarEntry Dir(std::string path, int mode = 0755) {
    return {kDir, std::move(path), "", mode, {}};
  }
  static TarEntry Symlink(std::string path, std::string target) {
    return {kSymlink, std::move(path), std::move(target), 0777, {}};
  }
  static TarEntry Hardlink(std::string path, std::string target) {
    return {kHardlink, std::move(path), std::move(target), 0644, {}};
  }
};

// Writes `entries` as a pax tar into memory, compressed with `filter` ("gzip", "zstd") if set.
inline std::string MakeTar(const std::vector<TarEntry>& entries, std::string_view filter = "") {
  std::string out;
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  if (!filter.empty()) archive_write_add_filter_by_name(a, std::string(filter).c_str());
  archive_write_set_bytes_in_last_block(a, 1);
  auto write_cb = [](archive*, void* data, const void* buf, size_t n) -> la_ssize_t {
    static_cast<std::string*>(data)->append(static_cast<const char*>(buf), n);
    return static_cast<la_ssize_t>(n);
  };
  archive_write_open(a, &out, nullptr, write_cb, nullptr);
  for (const auto& e : entries) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, e.path.c_str());
    archive_entry_set_mtime(entry, 1000000000, 0);
    archive_entry_set_uid(entry, 0);
    archive_entry_set_gid(entry, 0);
    switch (e.kind) {
      case TarEntry::kFile:
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_size(entry, static_cast<la_int64_t>(e.data.size()));
        break;
      case TarEntry::kDir:
        archive_entry_set_filetype(entry, AE_IFDIR);
        break;
      case TarEntry::kSymlink:
        archive_entry_set_filetype(entry, AE_IFLNK);
        archive_entry_set_symlink(entry, e.data.c_str());
        break;
      case TarEntry::kHardlink:
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_hardlink(entry, e.data.c_str());
        break;
    }
    archive_entry_set_perm(entry, static_cast<mode_t>(e.mode));
    for (const auto& [name, value] : e.xattrs) {
      archive_entry_xattr_add_entry(entry, name.c_str(), value.data(), value.size());
    }
    EXPECT_EQ(archive_write_header(a, entry), ARCHIVE_OK) << archive_error_string(a);
    if (e.kind == TarEntry::kFile && !e.data.empty()) {
      archive_write_data(a, e.data.data(), e.data.size());
    }
    archive_entry_free(entry);
  }
  archive_write_close(a);
  archive_write_free(a);
  return out;
}

// A BlobReader over a string, handing out small chunks to exercise buffering.
class StringReader : public image::BlobReader {
 public:
  explicit StringReader(std::string data) : data_(std::move(data)) {}
  Result<std::size_t> Read(std::span<std::byte> buf) override {
    std::size_t n = std::min({buf.size(), data_.size() - pos_, std::size_t{7000}});
    std::memcpy(buf.data(), data_.data() + pos_, n);
    pos_ += n;
    return n;
  }

 private:
  std::string data_;
  std::size_t pos_ = 0;
};

inline void WriteFile(const fs::path& path, std::string_view content) {
  fs::create_directories(path.parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(content.data(), static_cast<std::streamsize>(content.size()));
}

inline std::string ReadFile(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string Sha256(std::string_view data) {
  return image::ComputeDigest("sha256", data).String();
}

// One layer: its uncompressed tar (for diff_ids) and the blob as stored.
struct Layer {
  std::string tar;
  std::string blob;
  std::string media_type;
};

// `filter`: "gzip", "zstd" or "" (uncompressed).
inline Layer MakeLayer(const std::vector<TarEntry>& entries, std::string_view filter = "gzip") {
  Layer l{MakeTar(entries), "", ""};
  l.blob = filter.empty() ? l.tar : MakeTar(entries, filter);
  l.media_type = "application/vnd.oci.image.layer.v1.tar";
  if (!filter.empty()) l.media_type += "+" + std::string(filter);
  return l;
}

inline std::string ConfigJson(const std::vector<Layer>& layers,
                              std::string_view process = R"("Entrypoint":["/bin/app"],)"
                                                         R"("Cmd":["--serve"],)"
                                                         R"("Env":["PATH=/bin","A=1"],)"
                                                         R"("WorkingDir":"/srv","User":"65534")",
                              std::string_view arch = "amd64") {
  std::string ids;
  for (const auto& l : layers) ids += (ids.empty() ? "\"" : ",\"") + Sha256(l.tar) + "\"";
  return fmt::format(R"({{"architecture":"{}","os":"linux","created":"2024-01-02T03:04:05Z",)"
                     R"("config":{{{}}},"rootfs":{{"type":"layers","diff_ids":[{}]}}}})",
                     arch, process, ids);
}

// Stores a blob in an OCI layout; returns its descriptor JSON.
inline std::string PutBlob(const fs::path& layout, std::string_view media_type,
                           std::string_view data, std::string_view extra = "") {
  image::Digest d = image::ComputeDigest("sha256", data);
  WriteFile(layout / d.BlobPath(), data);
  return fmt::format(R"({{"mediaType":"{}","digest":"{}","size":{}{}}})", media_type, d.String(),
                     data.size(), extra);
}

inline std::string ManifestJson(const fs::path& layout, const std::vector<Layer>& layers,
                                const std::string& config) {
  std::string config_desc = PutBlob(layout, "application/vnd.oci.image.config.v1+json", config);
  std::string layer_descs;
  for (const auto& l : layers) {
    layer_descs += (layer_descs.empty() ? "" : ",") + PutBlob(layout, l.media_type, l.blob);
  }
  return fmt::format(
      R"({{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",)"
      R"("config":{},"layers":[{}]}})",
      config_desc, layer_descs);
}

// Writes an OCI image layout with one image; returns the layout directory.
inline fs::path WriteOciLayout(const fs::path& layout, const std::vector<Layer>& layers,
                               const std::string& config, std::string_view ref = "latest") {
  std::string manifest = ManifestJson(layout, layers, config);
  std::string desc =
      PutBlob(layout, "application/vnd.oci.image.manifest.v1+json", manifest,
              fmt::format(R"(,"annotations":{{"org.opencontainers.image.ref.name":"{}"}})", ref));
  WriteFile(layout / "oci-layout", R"({"imageLayoutVersion":"1.0.0"})");
  WriteFile(layout / "index.json", fmt::format(R"({{"schemaVersion":2,"manifests":[{}]}})", desc));
  return layout;
}

// Tars a directory (e.g. an OCI layout into an OCI archive), compressed with `filter` if set.
inline fs::path TarDirectory(const fs::path& dir, const fs::path& out,
                             std::string_view filter = "") {
  std::vector<TarEntry> entries;
  std::vector<fs::path> paths;
  for (const auto& e : fs::recursive_directory_iterator(dir)) paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    std::string rel = fs::relative(p, dir).string();
    if (fs::is_directory(p)) {
      entries.push_back(TarEntry::Dir(rel));
    } else {
      entries.push_back(TarEntry::File(rel, ReadFile(p)));
    }
  }
  WriteFile(out, MakeTar(entries, filter));
  return out;
}

// A `docker save` archive in the classic layout: <id>/layer.tar, <config hex>.json,
// manifest.json. Layers are uncompressed, as docker writes them.
inline fs::path WriteDockerArchive(const fs::path& out, const std::vector<Layer>& layers,
                                   const std::string& config,
                                   std::string_view repo_tag = "example/app:1.0") {
  std::vector<TarEntry> entries;
  std::string config_name = image::ComputeDigest("sha256", config).hex + ".json";
  entries.push_back(TarEntry::File(config_name, config));
  std::string layer_names;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    std::string dir = fmt::format("{:064x}", i + 1);
    entries.push_back(TarEntry::Dir(dir));
    entries.push_back(TarEntry::File(dir + "/layer.tar", layers[i].tar));
    layer_names += fmt::format("{}\"{}/layer.tar\"", layer_names.empty() ? "" : ",", dir);
  }
  entries.push_back(TarEntry::File(
      "manifest.json", fmt::format(R"([{{"Config":"{}","RepoTags":["{}"],"Layers":[{}]}}])",
                                   config_name, repo_tag, layer_names)));
  WriteFile(out, MakeTar(entries));
  return out;
}

// The shared scratch directory, named for the image tests.
class TempDir : public testing::TempDir {
 public:
  TempDir() : testing::TempDir("podlimits-image") {}
};

// The names in a directory, sorted (to check that nothing was left behind).
inline std::vector<std::string> DirNames(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace podlimits::image_testing
