#include "cri/exec_process.h"

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace podlimits::cri {
namespace {

std::string Serialize(const rapidjson::Value& value) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  value.Accept(writer);
  return std::string(out.GetString(), out.GetSize());
}

}  // namespace

Result<std::string> ContainerProcessJson(std::string_view config_json, std::string_view source) {
  rapidjson::Document doc;
  doc.Parse(config_json.data(), config_json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return Failure(fmt::format("read {}: not a JSON object", source));
  }
  auto process = doc.FindMember("process");
  if (process == doc.MemberEnd() || !process->value.IsObject()) {
    return Failure(fmt::format("read {}: no process object", source));
  }
  return Serialize(process->value);
}

Result<std::string> ExecProcessJson(std::string_view container_process,
                                    std::span<const std::string> argv, bool tty) {
  if (argv.empty()) return Failure("exec: no command");
  rapidjson::Document doc;
  doc.Parse(container_process.data(), container_process.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return Failure("exec: the container's process is not a JSON object");
  }
  auto& alloc = doc.GetAllocator();
  rapidjson::Value args(rapidjson::kArrayType);
  for (const std::string& a : argv) {
    args.PushBack(rapidjson::Value(a.data(), static_cast<rapidjson::SizeType>(a.size()), alloc),
                  alloc);
  }
  doc.RemoveMember("args");
  doc.AddMember("args", args, alloc);
  doc.RemoveMember("terminal");
  doc.AddMember("terminal", tty, alloc);
  doc.RemoveMember("consoleSize");
  if (tty) {
    rapidjson::Value env(rapidjson::kArrayType);
    if (auto old = doc.FindMember("env"); old != doc.MemberEnd() && old->value.IsArray()) {
      for (auto& entry : old->value.GetArray()) {
        if (entry.IsString() && std::string_view(entry.GetString()).starts_with("TERM=")) continue;
        env.PushBack(rapidjson::Value(entry, alloc), alloc);
      }
    }
    env.PushBack(rapidjson::Value("TERM=xterm", alloc), alloc);
    doc.RemoveMember("env");
    doc.AddMember("env", env, alloc);
  }
  return Serialize(doc);
}

}  // namespace podlimits::cri
