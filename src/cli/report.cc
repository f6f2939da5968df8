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

// metadata as WithAudit leaves it: a copy of the object's (null when absent) with the audit
// annotations merged in.
api::Node MetadataWithAudit(const admission::Outcome& o) {
  const api::Node* metadata = o.object.Find("metadata");
  api::Node copy = metadata ? *metadata : api::Node::Null();
  api::Node& ann = copy.Ensure("annotations");
  for (const auto& [k, v] : o.audit_annotations) ann.Set(k, api::Node::String(v));
  return copy;
}

// Writes the bytes of WithAudit(o) while copying only metadata, not the whole object:
// copying ten thousand pod trees just to add two annotations cost more than admitting them.
void WriteAdmitted(const admission::Outcome& o, api::PrettyJsonWriter& w) {
  if (o.audit_annotations.empty()) return w.Value(o.object);
  if (!o.object.IsObject()) return w.Value(WithAudit(o));  // decode admits objects only
  api::Node metadata = MetadataWithAudit(o);
  bool metadata_written = false;  // Ensure edits the first "metadata" member, or appends one
  w.StartObject();
  for (const auto& m : o.object.members) {
    w.Key(m.key);
    if (m.key == "metadata" && !metadata_written) {
      w.Value(metadata);
      metadata_written = true;
    } else {
      w.Value(m.value);
    }
  }
  if (!metadata_written) {
    w.Key("metadata");
    w.Value(metadata);
  }
  w.EndObject();
}

// The admitted objects as one JSON List, the way kubectl prints -o json, streamed to stdout.
void WriteJsonList(const std::vector<admission::Outcome>& outcomes) {
  api::PrettyJsonWriter w(stdout, 4);
  w.StartObject();
  w.Key("apiVersion");
  w.Value(api::Node::String("v1"));
  w.Key("items");
  w.StartArray();
  for (const auto& o : outcomes) {
    if (o.admitted) WriteAdmitted(o, w);
  }
  w.EndArray();
  w.Key("kind");
  w.Value(api::Node::String("List"));
  w.Key("metadata");
  w.StartObject();
  w.Key("resourceVersion");
  w.Value(api::Node::String(""));
  w.EndObject();
  w.EndObject();
  w.Flush();  // before the newline, which goes to stdout directly
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

}  // namespace

int Report(const std::vector<admission::Outcome>& outcomes, OutputFormat format) {
  int code = 0;
  // Each object's lines go out as it is reported (and both streams are flushed), so a reader of
  // the combined output sees warnings and errors next to the object they are about. The JSON
  // List is one value: it follows all of them.
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
      case OutputFormat::kYaml: {
        std::string yaml = "---\n" + api::EncodeYaml(o.object);
        std::fwrite(yaml.data(), 1, yaml.size(), stdout);
        break;
      }
      case OutputFormat::kName:
        std::fprintf(stdout, "%s/%s valid\n", Lower(o.kind).c_str(), o.name.c_str());
        break;
      case OutputFormat::kJson:
      case OutputFormat::kNone:
        break;
    }
    std::fflush(stdout);
  }
  if (format == OutputFormat::kJson) WriteJsonList(outcomes);
  return code;
}

}  // namespace podlimits::cli
