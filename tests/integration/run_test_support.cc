#include "run_test_support.h"

#include <cstdlib>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

namespace podlimits::testing {

CommandResult RunCommand(const std::vector<std::string>& argv, const RunOptions& options) {
  CommandResult r;
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    r.err = "pipe failed";
    return r;
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (!options.stdin_text.empty()) {
    ssize_t ignored = write(in[1], options.stdin_text.data(), options.stdin_text.size());
    (void)ignored;
  }
  close(in[1]);
  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  bool interrupted = false, out_open = true, err_open = true;
  while (out_open || err_open) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      kill(pid, SIGKILL);
      break;
    }
    pollfd fds[2] = {{out_open ? out[0] : -1, POLLIN, 0}, {err_open ? err[0] : -1, POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000))) <= 0) continue;
    char buf[4096];
    for (int i = 0; i < 2; ++i) {
      if (!fds[i].revents) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
        continue;
      }
      (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
    }
    if (!interrupted && !options.interrupt_on.empty() &&
        r.err.find(options.interrupt_on) != std::string::npos) {
      interrupted = true;
      if (options.before_signal) options.before_signal(pid);
      kill(pid, options.signal);
    }
  }
  close(out[0]);
  close(err[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::set<std::string> DirectoriesBelow(const std::filesystem::path& root) {
  std::set<std::string> out;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(root, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code ec2;
    if (it->is_directory(ec2)) out.insert(it->path().lexically_relative(root).string());
  }
  return out;
}

std::vector<std::string> LinesWith(const std::string& text, const std::string& needle) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) lines.push_back(line);
  }
  return lines;
}

std::filesystem::path PodlimitsBinary() {
  const char* env = std::getenv("PODLIMITS_BIN");
  if (env != nullptr && *env != '\0') return env;
  return std::filesystem::path(PODLIMITS_BINARY_DIR) / "src/cli/podlimits";
}

std::string LoadBusyboxImage(const std::filesystem::path& scratch,
                             const std::filesystem::path& image_root, const std::string& name) {
  const char* prebuilt = std::getenv("PODLIMITS_TEST_OCI_LAYOUT");
  std::filesystem::path layout = scratch / "image/busybox-oci";
  if (prebuilt != nullptr && *prebuilt != '\0') {
    layout = prebuilt;
  } else if (!std::filesystem::exists(layout / "index.json")) {  // built once per scratch
    auto built = RunCommand({"/bin/bash",
                             std::string(PODLIMITS_SOURCE_DIR) + "/scripts/build-busybox-image",
                             (scratch / "image").string()});
    if (built.exit_code != 0) return "build-busybox-image: " + built.err;
  }
  auto loaded = RunCommand({PodlimitsBinary().string(), "image", "--image-root",
                            image_root.string(), "load", layout.string(), "--name", name});
  if (loaded.exit_code != 0) return "podlimits image load: " + loaded.err;
  return "";
}

}  // namespace podlimits::testing
