// Many members of one decoded object, found in one pass over its members.
//
// A typed view (objects.cc) asks a container for some twenty keys, of which a typical container
// has a dozen: a Node::Find per key scans the members once per key, and every absent key passes
// all of them. Members<kKeys> walks the members once, files each wanted one under its position in
// the compile-time list kKeys, and answers f["image"] from that array. A key that is not in the
// list does not compile.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

#include "api/schema.h"
#include "codec/node.h"

namespace podlimits::api {

template <std::size_t N>
struct KeyList {
  std::array<std::string_view, N> names;

  static constexpr std::size_t size() { return N; }
  // FieldIndex leaves empty names out, and no field of the API is named "".
  consteval std::size_t Of(std::string_view key) const {
    if (key.empty()) throw "a KeyList key is a field name, never empty";
    for (std::size_t i = 0; i < N; ++i) {
      if (names[i] == key) return i;
    }
    throw "the key is not in this KeyList";  // not a constant expression: a compile error
  }
};
template <std::size_t N>
KeyList(std::array<std::string_view, N>) -> KeyList<N>;

template <const auto& kKeys>
class Members {
 public:
  // A key of kKeys, checked when the program is compiled.
  struct Key {
    template <std::size_t M>
    consteval Key(const char (&name)[M]) : position(kKeys.Of(std::string_view(name, M - 1))) {}
    std::size_t position;
  };

  // `object`'s members among kKeys; none when it is not an object. Of repeated keys the first
  // counts, as for Node::Find.
  explicit Members(const codec::Node& object) {
    if (!object.IsObject()) return;
    const FieldIndex& index = Index();
    for (const codec::Member& m : object.members) {
      const std::size_t i = index.Find(m.key);
      if (i != FieldIndex::kAbsent && found_[i] == nullptr) found_[i] = &m.value;
    }
  }

  const codec::Node* operator[](Key key) const { return found_[key.position]; }

 private:
  static const FieldIndex& Index() {
    static const FieldIndex index = [] {
      FieldIndex built;
      built.Build(std::vector<std::string_view>(kKeys.names.begin(), kKeys.names.end()));
      return built;
    }();
    return index;
  }

  std::array<const codec::Node*, kKeys.size()> found_{};
};

}  // namespace podlimits::api
