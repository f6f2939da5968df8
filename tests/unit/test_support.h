// Shared by the unit tests: turning manifest text into decoded, defaulted objects the way the
// CLI does, so tests exercise real inputs rather than hand-built structs.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <variant>

#include "api/decode.h"
#include "api/defaults.h"
#include "api/objects.h"
#include "api/pod_strategy.h"
#include "codec/json_codec.h"

namespace podlimits::testing {

// One JSON value (an API object as the store holds it); fails the test if it does not parse.
inline codec::Node ParseJsonValue(std::string_view json) {
  auto nodes = codec::ParseJsonStream(json);
  EXPECT_TRUE(nodes && nodes->size() == 1) << json;
  return nodes && nodes->size() == 1 ? (*nodes)[0] : codec::Node::Object();
}

// Decodes exactly one object; fails the test if decoding fails.
inline api::DecodedObject DecodeOne(std::string_view yaml) {
  auto results = api::DecodeManifests("test.yaml", yaml);
  EXPECT_EQ(results.size(), 1u);
  if (results.empty()) return {};
  if (auto* err = std::get_if<api::DecodeError>(&results[0])) {
    ADD_FAILURE() << "decode failed: " << err->message;
    return {};
  }
  return std::get<api::DecodedObject>(std::move(results[0]));
}

// Decodes one object and returns its decode error message ("" when it decoded).
inline std::string DecodeErrorOf(std::string_view text,
                                 api::FieldValidation mode = api::FieldValidation::kStrict) {
  api::DecodeOptions options;
  options.field_validation = mode;
  auto results = api::DecodeManifests("test.yaml", text, options);
  if (results.size() != 1) return "<" + std::to_string(results.size()) + " results>";
  if (auto* err = std::get_if<api::DecodeError>(&results[0])) return err->message;
  return "";
}

// A pod as the apiserver sees it at validation time: decoded, namespaced, defaulted and
// prepared by the registry strategy (no admission plugins).
inline codec::Node DefaultedPodTree(std::string_view yaml) {
  codec::Node tree = DecodeOne(yaml).tree;
  api::SetDefaultNamespace(tree);
  api::SetDefaultsPod(tree);
  api::PrepareForCreate(tree, {});
  return tree;
}

inline api::Pod DefaultedPod(std::string_view yaml) {
  return api::ReadPod(DefaultedPodTree(yaml));
}

}  // namespace podlimits::testing
