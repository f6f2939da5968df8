#include "codec/json_codec.h"

#include <fmt/format.h>

// rapidjson's 16-byte scans for whitespace and plain string runs (SSE2 is in every x86-64). They
// load whole aligned blocks, past the end of the text within its block, which AddressSanitizer
// would report: sanitized builds keep the byte-by-byte scan.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PODLIMITS_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PODLIMITS_ADDRESS_SANITIZER 1
#endif
#if defined(__SSE2__) && !defined(PODLIMITS_ADDRESS_SANITIZER)
#define RAPIDJSON_SSE2 1
#endif

#include <rapidjson/error/en.h>
#include <rapidjson/filewritestream.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstring>
#include <iterator>

#include "codec/utf8.h"

namespace podlimits::codec {
namespace {

// Limits that keep hostile input from exhausting the stack or memory.
constexpr std::size_t kMaxDepth = 256;

// The scratch vectors outlive a parse, one set per thread, so that a server decoding one review
// after another does not allocate and grow them again for each (they were a tenth of a pod's
// decode). A parse clears them when it ends (ParseDocuments' Trim, which runs on every way
// out), so the next finds them empty. After a parse, only the first kKeptDepths depths are
// kept, each with room for at most kKeptPerDepth children (a pod needs a few dozen): a large
// List or a deep document does not leave its memory to the thread.
struct TreeScratch {
  std::vector<Node*> stack;
  std::vector<std::vector<Member>> members;  // by depth of the open object
  std::vector<std::vector<Node>> items;      // by depth of the open array

  static constexpr std::size_t kKeptDepths = 32;
  static constexpr std::size_t kKeptPerDepth = 256;
  void Trim() {
    stack.clear();
    for (auto& m : members) m.clear();
    for (auto& i : items) i.clear();
    if (members.size() > kKeptDepths) members.resize(kKeptDepths);
    if (items.size() > kKeptDepths) items.resize(kKeptDepths);
    for (auto& m : members) {
      if (m.capacity() > kKeptPerDepth) std::vector<Member>().swap(m);
    }
    for (auto& i : items) {
      if (i.capacity() > kKeptPerDepth) std::vector<Node>().swap(i);
    }
  }
};

// Builds Nodes in place: every SAX event fills the slot it belongs to (a new array item, the
// value of the last key, or a new document) instead of building a temporary and moving it.
//
// An open container collects its children in a scratch vector kept per nesting depth (and
// reused by every container at that depth); when it closes they move into a vector of exactly
// their count. A 10,000-pod List holds hundreds of thousands of small containers: growing each
// vector in place, or reserving for a guess, costs a regrowth copy or hundreds of unused bytes
// each, and with them most of the decode time goes to malloc and page faults.
class TreeBuilder {
 public:
  TreeBuilder(std::vector<Node>& out, TreeScratch& scratch, std::size_t max_values)
      : out_(out),
        stack_(scratch.stack),
        members_(scratch.members),
        items_(scratch.items),
        max_values_(max_values) {}

  // The value cap stopped the parse (rather than the nesting bound).
  bool too_many_values() const { return too_many_values_; }

  bool Null() {
    if (!Count()) return false;
    Slot();
    return true;
  }
  bool Bool(bool b) {
    if (!Count()) return false;
    Node& n = Slot();
    n.kind = Node::Kind::kBool;
    n.scalar = b ? "true" : "false";
    return true;
  }
  bool Int(int) { return false; }
  bool Uint(unsigned) { return false; }
  bool Int64(int64_t) { return false; }
  bool Uint64(uint64_t) { return false; }
  bool Double(double) { return false; }
  bool RawNumber(const char* s, rapidjson::SizeType len, bool) {
    if (!Count()) return false;
    Node& n = Slot();
    n.kind = Node::Kind::kNumber;
    n.scalar.assign(s, len);
    return true;
  }
  bool String(const char* s, rapidjson::SizeType len, bool) {
    if (!Count()) return false;
    Node& n = Slot();
    n.kind = Node::Kind::kString;
    n.scalar.assign(s, len);
    return true;
  }
  bool StartObject() { return Open(Node::Kind::kObject); }
  bool Key(const char* s, rapidjson::SizeType len, bool) {
    Member& m = ScratchMembers(stack_.size() - 1).emplace_back();
    m.key.assign(s, len);
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    std::vector<Member>& children = ScratchMembers(stack_.size() - 1);
    stack_.back()->members = MoveOut(children);
    stack_.pop_back();
    return true;
  }
  bool StartArray() { return Open(Node::Kind::kArray); }
  bool EndArray(rapidjson::SizeType) {
    std::vector<Node>& children = ScratchItems(stack_.size() - 1);
    stack_.back()->items = MoveOut(children);
    stack_.pop_back();
    return true;
  }

 private:
  bool Count() {
    if (max_values_ == 0 || ++values_ <= max_values_) return true;
    too_many_values_ = true;
    return false;
  }

  bool Open(Node::Kind kind) {
    if (!Count() || stack_.size() >= kMaxDepth) return false;
    Node& n = Slot();
    n.kind = kind;
    stack_.push_back(&n);
    return true;
  }

  // Pointers on the stack stay valid: a slot lives in the scratch vector of its parent's depth
  // (or in out_), which only grows while that parent is the innermost open container.
  Node& Slot() {
    if (stack_.empty()) return out_.emplace_back();
    std::size_t depth = stack_.size() - 1;
    if (stack_.back()->kind == Node::Kind::kArray) return ScratchItems(depth).emplace_back();
    return ScratchMembers(depth).back().value;
  }

  std::vector<Member>& ScratchMembers(std::size_t depth) {
    if (members_.size() <= depth) members_.resize(depth + 1);
    return members_[depth];
  }
  std::vector<Node>& ScratchItems(std::size_t depth) {
    if (items_.size() <= depth) items_.resize(depth + 1);
    return items_[depth];
  }

  // The children, moved into a vector of exactly their size; the scratch keeps its capacity.
  template <typename T>
  static std::vector<T> MoveOut(std::vector<T>& scratch) {
    std::vector<T> exact(std::make_move_iterator(scratch.begin()),
                         std::make_move_iterator(scratch.end()));
    scratch.clear();
    return exact;
  }

  std::vector<Node>& out_;
  std::vector<Node*>& stack_;
  std::vector<std::vector<Member>>& members_;
  std::vector<std::vector<Node>>& items_;
  const std::size_t max_values_;
  std::size_t values_ = 0;
  bool too_many_values_ = false;
};

std::uint32_t LineAt(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// Go's encoding/json writes each byte of invalid UTF-8 as U+FFFD: JSON out is always valid.
template <typename Emit>
void WriteUtf8(std::string_view s, Emit emit) {
  bool valid = true;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = Utf8SequenceLength(s, i);
    if (n == 0) {
      valid = false;
      break;
    }
    i += n;
  }
  if (valid) {
    emit(s);
    return;
  }
  std::string fixed;
  fixed.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = Utf8SequenceLength(s, i);
    if (n == 0) {
      fixed += "\xEF\xBF\xBD";
      ++i;
    } else {
      fixed.append(s.substr(i, n));
      i += n;
    }
  }
  emit(std::string_view(fixed));
}

template <typename Writer>
void Write(const Node& n, Writer& w) {
  switch (n.kind) {
    case Node::Kind::kNull:
      w.Null();
      break;
    case Node::Kind::kBool:
      w.Bool(n.scalar == "true");
      break;
    case Node::Kind::kNumber:
      w.RawValue(n.scalar.data(), n.scalar.size(), rapidjson::kNumberType);
      break;
    case Node::Kind::kString:
      WriteUtf8(n.scalar, [&](std::string_view v) {
        w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
      });
      break;
    case Node::Kind::kArray:
      w.StartArray();
      for (const auto& item : n.items) Write(item, w);
      w.EndArray();
      break;
    case Node::Kind::kObject:
      w.StartObject();
      for (const auto& m : n.members) {
        WriteUtf8(m.key, [&](std::string_view v) {
          w.Key(v.data(), static_cast<rapidjson::SizeType>(v.size()));
        });
        Write(m.value, w);
      }
      w.EndObject();
      break;
  }
}

}  // namespace

namespace {

// What a thread keeps between parses: the tree builder's scratch, and the text's copy that
// rapidjson parses in place (strings handed over without first being copied to its stack). A
// copy beyond kKeptText bytes is released after the parse.
struct ParseScratch {
  static constexpr std::size_t kKeptText = 1 << 20;
  TreeScratch tree;
  std::string text;
};

template <unsigned kFlags>
std::expected<std::vector<Node>, SyntaxError> ParseDocuments(std::string_view text,
                                                             std::size_t max_values) {
  thread_local ParseScratch scratch;
  struct Trim {
    ParseScratch& s;
    ~Trim() {
      s.tree.Trim();
      if (s.text.capacity() > ParseScratch::kKeptText) std::string().swap(s.text);
    }
  } trim{scratch};
  scratch.text.assign(text);  // NUL-terminated, which the in-place stream needs
  std::vector<Node> docs;
  rapidjson::InsituStringStream ms(scratch.text.data());
  rapidjson::Reader reader;
  TreeBuilder builder(docs, scratch.tree, max_values);  // its scratch serves every document
  while (true) {
    // Skip whitespace between documents.
    while (ms.Peek() == ' ' || ms.Peek() == '\n' || ms.Peek() == '\r' || ms.Peek() == '\t')
      ms.Take();
    if (ms.Peek() == '\0' && ms.Tell() >= text.size()) break;
    rapidjson::ParseResult ok = reader.Parse<kFlags>(ms, builder);
    if (!ok) {
      std::size_t at = ok.Offset();
      std::string message = rapidjson::GetParseError_En(ok.Code());
      if (ok.Code() == rapidjson::kParseErrorTermination) {
        message = builder.too_many_values()
                      ? fmt::format("more than {} values", max_values)
                      : "nesting too deep";
      }
      return std::unexpected(SyntaxError{std::move(message), LineAt(text, at)});
    }
  }
  return docs;
}

}  // namespace

bool IsAscii(std::string_view text) {
  // Eight bytes at a time, with no early exit: a byte loop ran at a third of the speed (g++ 12
  // at -O2 does not vectorise it), and this runs over every stored object a list sends.
  std::uint64_t any = 0;
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    any |= word;
  }
  for (; i < text.size(); ++i) any |= static_cast<unsigned char>(text[i]);
  return (any & 0x8080808080808080ULL) == 0;
}

std::expected<std::vector<Node>, SyntaxError> ParseJsonStream(std::string_view text,
                                                              std::size_t max_values) {
  constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag |
                              rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseInsituFlag;
  // rapidjson's UTF-8 validation, byte by byte, was a tenth of a pod's decode and validation;
  // text that is all ASCII (nearly every manifest and review) cannot be invalid UTF-8, so it is
  // checked only when some byte is not. (\u escapes are checked either way.)
  if (IsAscii(text)) return ParseDocuments<kFlags>(text, max_values);
  return ParseDocuments<kFlags | rapidjson::kParseValidateEncodingFlag>(text, max_values);
}

namespace {
void SortMembers(Node& n) {
  if (n.IsObject()) {
    std::sort(n.members.begin(), n.members.end(),
              [](const auto& a, const auto& b) { return a.key < b.key; });
    for (auto& m : n.members) SortMembers(m.value);
  } else if (n.IsArray()) {
    for (auto& item : n.items) SortMembers(item);
  }
}
}  // namespace

std::string EncodeJsonSorted(const Node& node) {
  Node sorted = node;
  SortMembers(sorted);
  return EncodeJson(sorted, 0);
}

std::string EncodeJson(const Node& node, int indent) {
  rapidjson::StringBuffer buf;
  if (indent <= 0) {
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    Write(node, w);
  } else {
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
    w.SetIndent(' ', static_cast<unsigned>(indent));
    w.SetFormatOptions(rapidjson::kFormatDefault);
    Write(node, w);
  }
  return std::string(buf.GetString(), buf.GetSize());
}

struct PrettyJsonWriter::Impl {
  Impl(std::FILE* out, int indent) : stream(out, buffer, sizeof(buffer)), writer(stream) {
    writer.SetIndent(' ', static_cast<unsigned>(indent));
    writer.SetFormatOptions(rapidjson::kFormatDefault);
  }

  char buffer[64 * 1024];
  rapidjson::FileWriteStream stream;
  rapidjson::PrettyWriter<rapidjson::FileWriteStream> writer;
};

PrettyJsonWriter::PrettyJsonWriter(std::FILE* out, int indent)
    : impl_(std::make_unique<Impl>(out, indent)) {}

PrettyJsonWriter::~PrettyJsonWriter() {
  Flush();
}

void PrettyJsonWriter::StartObject() {
  impl_->writer.StartObject();
}

void PrettyJsonWriter::Key(std::string_view key) {
  impl_->writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

void PrettyJsonWriter::EndObject() {
  impl_->writer.EndObject();
}

void PrettyJsonWriter::StartArray() {
  impl_->writer.StartArray();
}

void PrettyJsonWriter::EndArray() {
  impl_->writer.EndArray();
}

void PrettyJsonWriter::Value(const Node& node) {
  Write(node, impl_->writer);
}

void PrettyJsonWriter::Flush() {
  impl_->stream.Flush();
}

}  // namespace podlimits::codec
