// The store's name index, <root>/images.json: which image id each "name:tag" points at.
// Several names may share an id (like `docker tag`); an image's files go when its last name
// does. Readers never lock: the file is replaced atomically. Writers serialise on StoreLock.
#pragma once

#include <expected>
#include <filesystem>
#include <map>
#include <string>

#include "base/error.h"
#include "base/fs.h"

namespace podlimits::image {

struct ImageTags {
  std::map<std::string, std::string> ids;  // "busybox:latest" -> id

  // A missing file is an empty index.
  static Result<ImageTags> Read(const std::filesystem::path& file);
  Result<void> Write(const std::filesystem::path& file) const;

  // How many names point at `id`.
  std::size_t References(const std::string& id) const;
};

// An exclusive flock(2) on <root>/.lock, held while the store changes, so that two
// `podlimits image` commands never lose each other's names or delete an image being tagged.
class StoreLock {
 public:
  static Result<StoreLock> Acquire(const std::filesystem::path& root);

 private:
  explicit StoreLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;  // closing it releases the lock
};

}  // namespace podlimits::image
