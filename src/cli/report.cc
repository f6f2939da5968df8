#include "cli/report.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>

#include "api/json_codec.h"
#include "api/yaml_codec.h"

namespace podlimits::cli {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The audit annotations have no place in a stored object (they belong to the audit event);
// with -o json they ride along under metadata.annotations of a copy, clearly named.
api::Node WithAudit(const admission::Outcome& o) {
  api::Node copy = o.object;
  if (o.audit_annotations.empty()) return copy;
  api::Node& ann = copy.Ensure("metadata").Ensure("annotations");
  for (const auto& [k, v] : o.audit_annotations) ann.Set(k, api::Node::String(v));
  return copy;
}

}  // namespace

int Report(const std::vector<admission::Outcome>& outcomes, OutputFormat format) {
  int code = 0;
  api::Node list = api::Node::Object();
  list.Set("apiVersion", api::Node::String("v1"));
  api::Node& items = list.Set("items", api::Node::Array());
  // Each object's lines go out as it is reported (and both streams are flushed), so a reader of
  // the combined output sees warnings and errors next to the object they are about.
  for (const auto& o : outcomes) {
    for (const auto& w : o.warnings) std::fprintf(stderr, "Warning: %s\n", w.c_str());
    if (!o.admitted) {
      code = 1;
      if (o.from_server) {
        std::fprintf(stderr, "Error from server (%s): %s\n", o.reason.c_str(), o.message.c_str());
      } else {
        std::fprintf(stderr, "error: %s\n", o.message.c_str());
      }
      std::fflush(stderr);
      continue;
    }
    std::fflush(stderr);
    switch (format) {
      case OutputFormat::kJson:
        items.items.push_back(WithAudit(o));
        break;
      case OutputFormat::kYaml: {
        std::string yaml = "---\n" + api::EncodeYaml(o.object);
        std::fwrite(yaml.data(), 1, yaml.size(), stdout);
        break;
      }
      case OutputFormat::kName:
        std::fprintf(stdout, "%s/%s valid\n", Lower(o.kind).c_str(), o.name.c_str());
        break;
      case OutputFormat::kNone:
        break;
    }
    std::fflush(stdout);
  }
  if (format == OutputFormat::kJson) {
    list.Set("kind", api::Node::String("List"));
    api::Node meta = api::Node::Object();
    meta.Set("resourceVersion", api::Node::String(""));
    list.Set("metadata", std::move(meta));
    std::string json = api::EncodeJson(list, 4);
    std::fwrite(json.data(), 1, json.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
  return code;
}

}  // namespace podlimits::cli
