#include "cni/plugin_call.h"

#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/child_process.h"
#include "base/unique_fd.h"
#include "codec/json_codec.h"

namespace podlimits::cni {
namespace fs = std::filesystem;

namespace {

// The configuration as the plugin's stdin: an anonymous file, so a plugin reads it whole
// whatever its size and nothing is left on disk.
Result<UniqueFd> StdinFile(const std::string& config) {
  UniqueFd fd(memfd_create("cni-config", MFD_CLOEXEC));
  if (!fd.valid()) return SystemError("memfd_create", "cni-config", errno);
  std::size_t done = 0;
  while (done < config.size()) {
    ssize_t n = write(fd.get(), config.data() + done, config.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return SystemError("write", "cni-config", errno);
    }
    done += static_cast<std::size_t>(n);
  }
  if (lseek(fd.get(), 0, SEEK_SET) < 0) return SystemError("lseek", "cni-config", errno);
  return fd;
}

// The spec's error object, when the plugin wrote one: "msg: details", or "msg".
std::string PluginErrorMessage(const ChildResult& result, std::chrono::milliseconds timeout) {
  if (auto nodes = codec::ParseJsonStream(result.out); nodes && nodes->size() == 1) {
    const codec::Node& e = (*nodes)[0];
    std::string msg = codec::StringOf(e.Find("msg"));
    const std::string details = codec::StringOf(e.Find("details"));
    if (!msg.empty()) return details.empty() ? msg : msg + ": " + details;
  }
  std::string text = result.err.empty() ? result.out : result.err;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? result.Describe(timeout) : text;
}

}  // namespace

Result<fs::path> FindPlugin(std::string_view type, const std::vector<fs::path>& bin_dirs) {
  for (const auto& dir : bin_dirs) {
    const fs::path candidate = dir / type;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  std::vector<std::string> dirs;
  for (const auto& d : bin_dirs) dirs.push_back(d.string());
  return Failure(fmt::format("failed to find plugin \"{}\" in path [{}]", type,
                             fmt::join(dirs, " ")));
}

Result<codec::Node> CallPlugin(const PluginCall& call, std::string_view type,
                             const std::string& config) {
  auto binary = FindPlugin(type, call.bin_dirs);
  if (!binary) return std::unexpected(binary.error());
  auto input = StdinFile(config);
  if (!input) return std::unexpected(input.error());

  std::vector<std::string> path_dirs, args;
  for (const auto& d : call.bin_dirs) path_dirs.push_back(d.string());
  for (const auto& [k, v] : call.args) args.push_back(k + "=" + v);
  ChildCommand command;
  command.argv = {binary->string()};
  command.stdin_fd = input->get();
  command.timeout = call.timeout;
  // Only what the protocol defines, and a PATH for the tools plugins run (iptables for
  // portmap): nothing of the caller's environment reaches a plugin by accident.
  command.env = std::vector<std::string>{
      "CNI_COMMAND=" + call.command,
      "CNI_CONTAINERID=" + call.container_id,
      "CNI_NETNS=" + call.netns,
      "CNI_IFNAME=" + call.ifname,
      "CNI_ARGS=" + fmt::format("{}", fmt::join(args, ";")),
      "CNI_PATH=" + fmt::format("{}", fmt::join(path_dirs, ":")),
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  };
  auto result = RunChild(command);
  if (!result) return std::unexpected(result.error());
  if (!result->Succeeded()) {
    return Failure(fmt::format("plugin type=\"{}\" failed ({}): {}", type,
                               call.command == "ADD" ? "add" : "delete",
                               PluginErrorMessage(*result, call.timeout)));
  }
  if (call.command != "ADD") return codec::Node::Null();
  auto nodes = codec::ParseJsonStream(result->out);
  if (!nodes || nodes->size() != 1 || !(*nodes)[0].IsObject()) {
    return Failure(fmt::format("plugin type=\"{}\" (add): its result is not a JSON object: {}",
                               type, result->out.substr(0, 200)));
  }
  return std::move((*nodes)[0]);
}

}  // namespace podlimits::cni
