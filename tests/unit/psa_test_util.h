// Shared helpers for the Pod Security tests: pods and namespaces come from YAML text through the
// real decoder (api::DecodeManifests, then api::ReadPod), so the tests exercise real inputs.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <variant>

#include "admission/psa_level.h"
#include "admission/psa_registry.h"
#include "api/decode.h"
#include "api/objects.h"

namespace podlimits::admission::psa::testing {

struct DecodedPod {
  codec::Node tree;
  api::Pod pod;
};

// Decodes one Pod manifest; a decode failure fails the test and yields an empty pod.
inline DecodedPod DecodePod(std::string_view yaml) {
  auto results = api::DecodeManifests("pod.yaml", yaml);
  if (results.size() != 1) {
    ADD_FAILURE() << "expected one object, got " << results.size() << " from:\n" << yaml;
    return {};
  }
  if (auto* err = std::get_if<api::DecodeError>(&results[0])) {
    ADD_FAILURE() << "decode failed: " << err->message << "\n" << yaml;
    return {};
  }
  auto& obj = std::get<api::DecodedObject>(results[0]);
  api::Pod pod = api::ReadPod(obj.tree);
  return {std::move(obj.tree), std::move(pod)};
}

// Indents every line of `text` by `n` spaces.
inline std::string Indent(std::string_view text, int n) {
  std::string out;
  std::string pad(static_cast<std::size_t>(n), ' ');
  bool at_line_start = true;
  for (char c : text) {
    if (at_line_start && c != '\n') out += pad;
    out += c;
    at_line_start = c == '\n';
  }
  return out;
}

// A Pod manifest named `name` with `spec` (YAML, unindented) and optional extra metadata
// (YAML, unindented, e.g. "annotations:\n  k: v").
inline std::string PodYaml(std::string_view spec, std::string_view extra_metadata = "",
                           std::string_view name = "test-pod") {
  std::string y = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + std::string(name) + "\n";
  if (!extra_metadata.empty()) y += Indent(extra_metadata, 2) + "\n";
  y += "spec:\n" + Indent(spec, 2) + "\n";
  return y;
}

inline api::Namespace Namespace(std::string name, std::map<std::string, std::string> labels = {}) {
  api::Namespace ns;
  ns.metadata.name = std::move(name);
  ns.metadata.labels = std::move(labels);
  return ns;
}

inline LevelVersion LV(std::string_view level, std::string_view version) {
  return LevelVersion{*ParseLevel(level), *ParseVersion(version)};
}

// One check run on one pod at one level:version, through Evaluator::Default() (so overrides and
// version selection are the registry's).
struct CheckCase {
  std::string name;
  std::string check;          // check ID
  std::string level;          // "baseline" / "restricted"
  std::string version;        // "latest", "v1.34"
  std::string spec;           // PodSpec YAML
  std::string metadata = "";  // extra metadata YAML (annotations)
  bool runs = true;           // false: the check must not run for level:version
  std::string reason = "";    // empty: allowed
  std::string detail = "";
};

inline void RunCheckCases(const std::vector<CheckCase>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name + " [" + c.check + " @ " + c.level + ":" + c.version + "]");
    DecodedPod p = DecodePod(PodYaml(c.spec, c.metadata));
    auto got = Evaluator::Default().EvaluateCheck(c.check, LV(c.level, c.version), p.pod.metadata,
                                                  p.pod.spec);
    if (!c.runs) {
      EXPECT_FALSE(got.has_value()) << "check ran";
      continue;
    }
    ASSERT_TRUE(got.has_value()) << "check did not run";
    EXPECT_EQ(got->allowed, c.reason.empty());
    EXPECT_EQ(got->forbidden_reason, c.reason);
    EXPECT_EQ(got->forbidden_detail, c.detail);
  }
}

}  // namespace podlimits::admission::psa::testing
