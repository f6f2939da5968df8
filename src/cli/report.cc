#include "cli/report.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>

#include "codec/json_codec.h"
#include "codec/yaml_codec.h"

namespace podlimits::cli {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The admitted objects as one JSON List, the way kubectl prints -o json, streamed to stdout.
void WriteJsonList(const std::vector<admission::Outcome>& outcomes) {
  codec::PrettyJsonWriter w(stdout, 4);
  w.StartObject();
  w.Key("apiVersion");
  w.Value(codec::Node::String("v1"));
  w.Key("items");
  w.StartArray();
  for (const auto& o : outcomes) {
    if (o.admitted) w.Value(o.object);
  }
  w.EndArray();
  w.Key("kind");
  w.Value(codec::Node::String("List"));
  w.Key("metadata");
  w.StartObject();
  w.Key("resourceVersion");
  w.Value(codec::Node::String(""));
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
        std::string yaml = "---\n" + codec::EncodeYaml(o.object);
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
