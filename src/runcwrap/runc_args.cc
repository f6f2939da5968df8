#include "runcwrap/runc_args.h"

#include <unistd.h>

#include <array>
#include <string_view>

#include "runcwrap/front/runc_front.h"

namespace podlimits::runcwrap {
namespace {

// An option's name without its dashes and its `=value`, and the value if it was attached.
struct Option {
  std::string name;
  std::optional<std::string> value;
};

std::optional<Option> AsOption(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-' || arg == "--") return std::nullopt;
  arg.remove_prefix(arg[1] == '-' ? 2 : 1);
  Option o;
  if (auto eq = arg.find('='); eq != std::string_view::npos) {
    o.name = std::string(arg.substr(0, eq));
    o.value = std::string(arg.substr(eq + 1));
  } else {
    o.name = std::string(arg);
  }
  return o;
}

bool OneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  for (auto n : names) {
    if (name == n) return true;
  }
  return false;
}

// Global options that take a value: the front's list, so that both find the same command.
bool GlobalTakesValue(std::string_view name) {
  return front::GlobalTakesValue(name.data(), name.size());
}

// create / run options of runc and crun that take a value.
bool CreateTakesValue(std::string_view name) {
  return OneOf(name, {"bundle", "b", "console-socket", "pidfd-socket", "pid-file",
                      "preserve-fds", "config", "f"});
}

// exec options of runc and crun that take a value.
bool ExecTakesValue(std::string_view name) {
  return OneOf(name, {"console-socket", "pidfd-socket", "cwd", "env", "e", "user", "u",
                      "additional-gids", "g", "process", "p", "process-label", "apparmor",
                      "pid-file", "preserve-fds", "cap", "c", "cgroup"});
}

}  // namespace

Result<RuncCall> ParseRuncCall(const std::vector<std::string>& args) {
  RuncCall call;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    auto o = AsOption(args[i]);
    if (!o) break;
    call.global_args.push_back(args[i]);
    if (!o->value && GlobalTakesValue(o->name) && i + 1 < args.size()) {
      o->value = args[++i];
      call.global_args.push_back(args[i]);
    }
    if (o->name == "log" && o->value) call.log_file = *o->value;
    if (o->name == "log-format" && o->value) call.log_format = *o->value;
  }
  if (i >= args.size()) return call;
  call.command = args[i++];
  if (call.Execs()) {
    for (; i < args.size(); ++i) {
      auto o = AsOption(args[i]);
      if (!o) {
        call.container_id = args[i];
        break;
      }
      if (!o->value && ExecTakesValue(o->name)) {
        if (i + 1 >= args.size()) {
          return Failure(call.command + " " + args[i] + ": the option needs a value");
        }
        o->value = args[++i];
      }
      if (o->name == "process" || o->name == "p") call.process_file = *o->value;
    }
    return call;
  }
  if (!call.Creates()) return call;

  for (; i < args.size(); ++i) {
    auto o = AsOption(args[i]);
    if (!o) {
      call.container_id = args[i];
      break;
    }
    if (!o->value && CreateTakesValue(o->name)) {
      if (i + 1 >= args.size()) {
        return Failure(call.command + " " + args[i] + ": the option needs a value");
      }
      o->value = args[++i];
    }
    if (o->name == "bundle" || o->name == "b") call.bundle = *o->value;
    if (o->name == "pid-file") call.pid_file = *o->value;
    if (o->name == "detach" || o->name == "d") call.detach = o->value.value_or("true") != "false";
  }
  if (call.bundle.empty()) {
    std::array<char, 4096> cwd{};
    if (getcwd(cwd.data(), cwd.size()) == nullptr) {
      return SystemError("getcwd", "", errno, "the bundle is the working directory");
    }
    call.bundle = cwd.data();
  }
  return call;
}

}  // namespace podlimits::runcwrap
