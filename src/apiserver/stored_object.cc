#include "apiserver/stored_object.h"

#include "api/defaults.h"
#include "api/json_codec.h"

namespace podlimits::apiserver {

std::optional<api::Node> ParseStoredObject(std::string_view data) {
  auto nodes = api::ParseJsonStream(data);
  if (!nodes || nodes->size() != 1 || !(*nodes)[0].IsObject()) return std::nullopt;
  return std::move((*nodes)[0]);
}

namespace {

// Past `"key":"value",` at `pos` (a value without escapes), or npos.
std::size_t SkipStringMember(std::string_view text, std::size_t pos, std::string_view key) {
  const std::string head = "\"" + std::string(key) + "\":\"";
  if (text.substr(pos, head.size()) != head) return std::string_view::npos;
  const std::size_t end = text.find('"', pos + head.size());
  if (end == std::string_view::npos) return std::string_view::npos;
  if (text.substr(pos + head.size(), end - pos - head.size()).find('\\') != std::string_view::npos) {
    return std::string_view::npos;
  }
  if (end + 1 >= text.size() || text[end + 1] != ',') return std::string_view::npos;
  return end + 2;
}

}  // namespace

void AppendListItem(std::string& out, std::string_view stored) {
  std::size_t after = std::string_view::npos;
  if (!stored.empty() && stored[0] == '{') {
    const std::size_t after_kind = SkipStringMember(stored, 1, "kind");
    if (after_kind != std::string_view::npos) {
      after = SkipStringMember(stored, after_kind, "apiVersion");
    }
  }
  if (after == std::string_view::npos) {
    out.append(stored);
    return;
  }
  out += '{';
  out.append(stored.substr(after));
}

std::string RenderStoredObject(api::Node& object, std::string_view kind, std::int64_t revision) {
  // Revision 0: a dry-run create, which has no resourceVersion yet.
  if (revision == 0) {
    object.Ensure("metadata").Erase("resourceVersion");
  } else {
    object.Ensure("metadata").Set("resourceVersion", api::Node::String(std::to_string(revision)));
  }
  api::CanonicalizeOrder(object, kind);
  return api::EncodeJson(object, 0);
}

}  // namespace podlimits::apiserver
