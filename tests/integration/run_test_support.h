// Driving the real `podlimits run` binary from integration tests: a scratch image store and state
// directory, the busybox image loaded once, and a command runner that captures stdout and stderr
// apart and can interrupt the command once a line appears.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace podlimits::testing {

struct CommandResult {
  int exit_code = -1;  // -1: did not exit in time (it was killed)
  std::string out;
  std::string err;
};

struct RunOptions {
  std::string stdin_text;
  // When set: send `signal` once stderr contains this text.
  std::string interrupt_on;
  int signal = SIGINT;
  // When set: called with the command's pid once `interrupt_on` appeared, before the signal is
  // sent (the command is still running: for tests that act on a live run).
  std::function<void(pid_t)> before_signal;
  std::chrono::seconds timeout{120};
};

CommandResult RunCommand(const std::vector<std::string>& argv, const RunOptions& options = {});

// The podlimits binary under test: $PODLIMITS_BIN, else the build's.
std::filesystem::path PodlimitsBinary();

// Loads busybox as `name` (busybox:latest) into `image_root`: from the OCI layout
// $PODLIMITS_TEST_OCI_LAYOUT names (the VM suite's, which has no bash), else from one
// scripts/build-busybox-image builds under `scratch` (once). Returns what went wrong, or "".
std::string LoadBusyboxImage(const std::filesystem::path& scratch,
                             const std::filesystem::path& image_root,
                             const std::string& name = "busybox:latest");

// Every directory below `root` (relative), for before/after comparisons of cgroup trees.
std::set<std::string> DirectoriesBelow(const std::filesystem::path& root);

// The lines of `text` that contain `needle`.
std::vector<std::string> LinesWith(const std::string& text, const std::string& needle);

}  // namespace podlimits::testing
