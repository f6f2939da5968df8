#include "cri/oci_runtime_output.h"

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <vector>

#include "base/error.h"

namespace podlimits::cri {
namespace {

struct LogEntry {
  std::string level;
  std::string msg;
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// One line: a JSON object with "msg" (and "level"), or plain text, which is an error.
LogEntry ParseLine(std::string_view line) {
  if (line.front() == '{') {
    rapidjson::Document doc;
    doc.Parse(line.data(), line.size());
    if (!doc.HasParseError() && doc.IsObject()) {
      auto msg = doc.FindMember("msg");
      if (msg != doc.MemberEnd() && msg->value.IsString()) {
        LogEntry e{"error", std::string(msg->value.GetString(), msg->value.GetStringLength())};
        auto level = doc.FindMember("level");
        if (level != doc.MemberEnd() && level->value.IsString()) {
          e.level.assign(level->value.GetString(), level->value.GetStringLength());
        }
        return e;
      }
    }
  }
  return {"error", std::string(line)};
}

bool IsError(const std::string& level) {
  return level == "error" || level == "fatal" || level == "panic";
}

}  // namespace

std::string RuntimeMessage(std::string_view log_text) {
  std::vector<LogEntry> entries;
  while (!log_text.empty()) {
    auto end = log_text.find('\n');
    std::string_view line = Trim(log_text.substr(0, end));
    log_text.remove_prefix(end == std::string_view::npos ? log_text.size() : end + 1);
    if (!line.empty()) entries.push_back(ParseLine(line));
  }
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    if (IsError(it->level)) return it->msg;
  }
  return entries.empty() ? std::string() : entries.back().msg;
}

Result<ContainerState> ParseContainerState(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    return Failure(fmt::format("state JSON: {} (at byte {})",
                               rapidjson::GetParseError_En(doc.GetParseError()),
                               doc.GetErrorOffset()));
  }
  if (!doc.IsObject()) return Failure("state JSON: not an object");
  auto string_member = [&](const char* key, std::string& into) -> Result<void> {
    auto it = doc.FindMember(key);
    if (it == doc.MemberEnd()) return Failure(fmt::format("state JSON: \"{}\" is missing", key));
    if (!it->value.IsString()) {
      return Failure(fmt::format("state JSON: \"{}\" must be a string", key));
    }
    into.assign(it->value.GetString(), it->value.GetStringLength());
    return {};
  };
  ContainerState state;
  std::string bundle;
  for (auto [key, into] : {std::pair{"id", &state.id}, std::pair{"status", &state.status},
                           std::pair{"bundle", &bundle}}) {
    if (auto ok = string_member(key, *into); !ok) return std::unexpected(ok.error());
  }
  state.bundle = bundle;
  auto pid = doc.FindMember("pid");
  if (pid == doc.MemberEnd()) return Failure("state JSON: \"pid\" is missing");
  if (!pid->value.IsInt() || pid->value.GetInt() < 0) {
    return Failure("state JSON: \"pid\" must be a non-negative integer");
  }
  state.pid = pid->value.GetInt();
  return state;
}

}  // namespace podlimits::cri
