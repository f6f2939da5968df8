// `podlimits serve`: the node's API for kubectl. See apiserver/api_handler.h for what it answers
// so far.
#pragma once

#include <string>

namespace podlimits::cli {

struct ServeFlags {
  std::string node_config;
  std::string data_dir = "/var/lib/podlimits";
  std::string listen = "127.0.0.1:6443";
  bool listen_beyond_loopback = false;
  std::string token_file;
};

int ServeCommand(const ServeFlags& flags);

}  // namespace podlimits::cli
