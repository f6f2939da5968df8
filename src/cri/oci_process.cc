#include "cri/oci_process.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>

#include "base/error.h"
#include "fmt/format.h"

namespace podlimits::cri {
namespace {

// containerd's default (pkg/oci defaultUnixEnv), which docker also uses.
constexpr std::string_view kDefaultPath =
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

const std::string* Lookup(const EnvList& vars, std::string_view name) {
  for (const auto& [k, v] : vars) {
    if (k == name) return &v;
  }
  return nullptr;
}

// The name of a "KEY=VALUE" entry (the whole entry when it has no '=').
std::string_view EnvName(std::string_view entry) {
  return entry.substr(0, entry.find('='));
}

// Replaces the entry with the same name in place, or appends: containerd's
// replaceOrAppendEnvValues, so later layers override without reordering.
void SetEnv(std::vector<std::string>& env, std::string entry) {
  std::string_view name = EnvName(entry);
  auto it = std::find_if(env.begin(), env.end(),
                         [&](const std::string& e) { return EnvName(e) == name; });
  if (it != env.end()) {
    *it = std::move(entry);
  } else {
    env.push_back(std::move(entry));
  }
}

std::vector<std::string> Expanded(const std::vector<std::string>& in, const EnvList& vars) {
  std::vector<std::string> out;
  out.reserve(in.size());
  for (const auto& s : in) out.push_back(ExpandReferences(s, vars));
  return out;
}

}  // namespace

std::string ContainerFieldPath(const api::Container& container) {
  return fmt::format("spec.{}[{}]", api::ContainerListName(container.kind), container.index);
}

std::string ExpandReferences(std::string_view input, const EnvList& vars) {
  std::string out;
  out.reserve(input.size());
  std::size_t i = 0;
  while (i < input.size()) {
    char c = input[i];
    if (c != '$' || i + 1 == input.size()) {
      out += c;
      ++i;
      continue;
    }
    char next = input[i + 1];
    if (next == '$') {  // "$$" escapes the operator
      out += '$';
      i += 2;
      continue;
    }
    if (next == '(') {
      std::size_t close = input.find(')', i + 2);
      if (close != std::string_view::npos) {
        std::string_view name = input.substr(i + 2, close - i - 2);
        const std::string* value = Lookup(vars, name);
        if (value != nullptr) {
          out += *value;
        } else {
          out += input.substr(i, close - i + 1);  // unknown names stay as written
        }
        i = close + 1;
        continue;
      }
    }
    // "$(" without a closer, or "$x": copied as is.
    out += c;
    out += next;
    i += 2;
  }
  return out;
}

std::string HostName() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

std::string NodeName() {
  std::string name = HostName();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return name;
}

std::optional<std::string> PodFieldValue(const api::Pod& pod, std::string_view path,
                                         std::string_view node_name) {
  const api::ObjectMeta& m = pod.metadata;
  if (path == "metadata.name") return m.name;
  if (path == "metadata.namespace") return m.namespace_;
  if (path == "metadata.uid") return m.uid;
  if (path == "spec.nodeName") return std::string(node_name);
  if (path == "spec.serviceAccountName") return pod.spec.service_account_name;
  // metadata.labels['key'] / metadata.annotations['key'] (the API validated the subscript).
  for (const auto& [prefix, map] :
       {std::pair{std::string_view("metadata.labels['"), &m.labels},
        std::pair{std::string_view("metadata.annotations['"), &m.annotations}}) {
    if (path.starts_with(prefix) && path.ends_with("']")) {
      const std::string key(path.substr(prefix.size(), path.size() - prefix.size() - 2));
      auto it = map->find(key);
      return it == map->end() ? std::string() : it->second;
    }
  }
  return std::nullopt;
}

std::vector<std::string> ProcessEnv(const image::ImageConfig& image, const EnvList& container_env,
                                    std::string_view hostname) {
  // containerd's order: its defaults, HOSTNAME, the image's Env, then the CRI env.
  std::vector<std::string> env;
  env.emplace_back(kDefaultPath);
  env.push_back(fmt::format("HOSTNAME={}", hostname));
  for (const auto& entry : image.env) SetEnv(env, entry);
  for (const auto& [name, value] : container_env) SetEnv(env, fmt::format("{}={}", name, value));
  return env;
}

Result<std::vector<std::string>> ProcessArgs(const api::Container& container,
                                             const image::ImageConfig& image,
                                             const EnvList& container_env) {
  // The kubelet expands command and args; containerd then combines them with the image as
  // docker does (WithProcessArgs): a command replaces Entrypoint and Cmd together.
  std::vector<std::string> args;
  if (!container.command.empty()) {
    args = Expanded(container.command, container_env);
    auto rest = Expanded(container.args, container_env);
    args.insert(args.end(), rest.begin(), rest.end());
  } else {
    // docker writes Entrypoint [""] to mean "none".
    if (!(image.entrypoint.size() == 1 && image.entrypoint[0].empty())) args = image.entrypoint;
    const auto& rest = container.args.empty() ? image.cmd : Expanded(container.args, container_env);
    args.insert(args.end(), rest.begin(), rest.end());
  }
  if (args.empty()) {
    return Failure(fmt::format(
        "{}: no command: the image has neither Entrypoint nor Cmd and the container sets no "
        "command",
        ContainerFieldPath(container)));
  }
  return args;
}

Result<std::string> ProcessCwd(const api::Container& container, const image::ImageConfig& image) {
  if (!container.working_dir.empty()) {
    if (!container.working_dir.starts_with('/')) {
      return Failure(fmt::format("{}.workingDir: \"{}\" is not an absolute path",
                                 ContainerFieldPath(container), container.working_dir));
    }
    return container.working_dir;
  }
  if (!image.working_dir.empty()) {
    if (!image.working_dir.starts_with('/')) {
      return Failure(fmt::format("{}: image WorkingDir \"{}\" is not an absolute path",
                                 ContainerFieldPath(container), image.working_dir));
    }
    return image.working_dir;
  }
  return "/";
}

}  // namespace podlimits::cri
