#include "listwatch/stored_object.h"

#include <fmt/format.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include "api/defaults.h"
#include "codec/json_codec.h"

namespace podlimits::apiserver {

std::optional<codec::Node> ParseStoredObject(std::string_view data) {
  auto nodes = codec::ParseJsonStream(data);
  if (!nodes || nodes->size() != 1 || !(*nodes)[0].IsObject()) return std::nullopt;
  return std::move((*nodes)[0]);
}

namespace {

// Accepts any JSON, noting whether its root is an object; refuses nesting deeper than the tree
// parser takes (the reader recurses per level: a damaged row of a million '[' must not exhaust
// the stack).
class JsonShape : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, JsonShape> {
 public:
  static constexpr int kMaxDepth = 256;  // api/json_codec.cc's tree parser's

  bool Default() {
    seen_value_ = true;
    return true;
  }
  bool StartObject() {
    if (!seen_value_) root_is_object_ = true;
    return Enter();
  }
  bool StartArray() { return Enter(); }
  bool EndObject(rapidjson::SizeType) { return Leave(); }
  bool EndArray(rapidjson::SizeType) { return Leave(); }

  bool root_is_object() const { return root_is_object_; }
  bool too_deep() const { return depth_ > kMaxDepth; }

 private:
  bool Enter() {
    seen_value_ = true;
    return ++depth_ <= kMaxDepth;
  }
  bool Leave() {
    --depth_;
    return true;
  }

  int depth_ = 0;
  bool seen_value_ = false;
  bool root_is_object_ = false;
};

}  // namespace

std::optional<std::string> StoredJsonProblem(std::string_view data) {
  // Parsed in place in a copy the thread keeps (strings are then not copied to the reader's
  // stack), as api/json_codec.cc parses; numbers as strings, since only the syntax matters.
  thread_local std::string scratch;
  struct Trim {
    ~Trim() {
      if (scratch.capacity() > (1u << 20)) std::string().swap(scratch);
    }
  } trim;
  scratch.assign(data);
  rapidjson::InsituStringStream in(scratch.data());
  rapidjson::Reader reader;
  JsonShape shape;
  // UTF-8 is validated as ParseStoredObject does, only when some byte is not ASCII: what one
  // accepts, the other does.
  constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseNumbersAsStringsFlag;
  const rapidjson::ParseResult ok =
      codec::IsAscii(data) ? reader.Parse<kFlags>(in, shape)
                         : reader.Parse<kFlags | rapidjson::kParseValidateEncodingFlag>(in, shape);
  if (!ok) {
    if (shape.too_deep()) {
      return fmt::format("invalid JSON at byte {}: nested deeper than {}", ok.Offset(),
                         JsonShape::kMaxDepth);
    }
    return fmt::format("invalid JSON at byte {}: {}", ok.Offset(),
                       rapidjson::GetParseError_En(ok.Code()));
  }
  // The reader stops at a NUL byte as at the end.
  if (in.Tell() != data.size()) {
    return fmt::format("invalid JSON at byte {}: a NUL byte", in.Tell());
  }
  if (!shape.root_is_object()) return "not a JSON object";
  return std::nullopt;
}

ApiError CorruptStoredObject(const storage::StoredObject& object) {
  return CorruptObject(object.key.resource, object.key.namespace_, object.key.name,
                       StoredJsonProblem(object.data).value_or("not a JSON object"));
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

std::string RenderStoredObject(codec::Node& object, std::string_view kind, std::int64_t revision) {
  // Revision 0: a dry-run create, which has no resourceVersion yet.
  if (revision == 0) {
    object.Ensure("metadata").Erase("resourceVersion");
  } else {
    object.Ensure("metadata").Set("resourceVersion", codec::Node::String(std::to_string(revision)));
  }
  api::CanonicalizeOrder(object, kind);
  return codec::EncodeJson(object, 0);
}

}  // namespace podlimits::apiserver
