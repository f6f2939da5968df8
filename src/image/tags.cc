#include "image/tags.h"

#include <fcntl.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <sys/file.h>

#include "base/error.h"
#include "image/digest.h"
#include "image/json.h"

namespace podlimits::image {

Result<ImageTags> ImageTags::Read(const std::filesystem::path& file) {
  ImageTags tags;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return tags;
  auto text = ReadSmallFile(file, 64 << 20);
  if (!text) return std::unexpected(text.error());
  std::string path = file.string();
  JsonSource src{"image index", path};
  auto doc = ParseJsonDocument(*text, src);
  if (!doc) return std::unexpected(doc.error());
  const rapidjson::Value* images = FindMember(*doc, "images");
  if (images == nullptr) return tags;
  if (!images->IsArray()) return Failure(src.Error("\"images\" must be an array"));
  for (const auto& item : images->GetArray()) {
    auto name = RequiredString(item, "name", src);
    auto id = RequiredString(item, "id", src);
    if (!name) return std::unexpected(name.error());
    if (!id) return std::unexpected(id.error());
    // The id becomes a directory name: refuse anything but a digest's hex.
    if (!IsDigestHex("sha256", *id) && !IsDigestHex("sha512", *id)) {
      return Failure(src.Error("invalid image id \"" + *id + "\""));
    }
    tags.ids[*name] = *id;
  }
  return tags;
}

Result<void> ImageTags::Write(const std::filesystem::path& file) const {
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("images");
  w.StartArray();
  for (const auto& [name, id] : ids) {
    w.StartObject();
    w.Key("name");
    w.String(name.c_str(), static_cast<rapidjson::SizeType>(name.size()));
    w.Key("id");
    w.String(id.c_str(), static_cast<rapidjson::SizeType>(id.size()));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  std::string text(buf.GetString(), buf.GetSize());
  text += '\n';
  return WriteFileAtomically(file, text);
}

std::size_t ImageTags::References(const std::string& id) const {
  std::size_t n = 0;
  for (const auto& [name, target] : ids) n += target == id ? 1 : 0;
  return n;
}

Result<StoreLock> StoreLock::Acquire(const std::filesystem::path& root) {
  std::filesystem::path file = root / ".lock";
  int fd = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return SystemError("open", file.string(), errno);
  UniqueFd lock(fd);
  while (flock(lock.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return SystemError("lock", file.string(), errno);
  }
  return StoreLock(std::move(lock));
}

}  // namespace podlimits::image
