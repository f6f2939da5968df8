#include "kubelet/podworker/termination_message.h"

#include <algorithm>
#include <fstream>
#include <vector>

namespace podlimits::kubelet {

// What the kubelet puts in a terminated container's status message.
std::string TerminationMessage(const api::Container& c, const std::filesystem::path& file, int exit_code,
                               const std::string& log_tail) {
  std::string message;
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    message.resize(kMaxTerminationMessage);
    in.read(message.data(), static_cast<std::streamsize>(message.size()));
    message.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
  }
  if (message.empty() && exit_code != 0 && c.termination_message_policy == "FallbackToLogsOnError") {
    // The last kMaxTerminationLogLines lines of the kept tail, each with its newline.
    std::vector<std::string_view> lines;
    std::string_view rest = log_tail;
    while (!rest.empty()) {
      const std::size_t nl = rest.find('\n');
      const std::size_t len = nl == std::string_view::npos ? rest.size() : nl + 1;
      lines.push_back(rest.substr(0, len));
      rest.remove_prefix(len);
    }
    const std::size_t first =
        lines.size() > kMaxTerminationLogLines ? lines.size() - kMaxTerminationLogLines : 0;
    for (std::size_t i = first; i < lines.size(); ++i) message += lines[i];
  }
  return message;
}

}  // namespace podlimits::kubelet
