// `podlimits recommend [-n NS] [POD | -l SELECTOR] [--kubeconfig F] [--headroom PERCENT]`: the
// limits.pid and nofile ulimits to set, from what a serve node observed (recommend/recommend.h).
// What was observed and why each limit goes on stderr as "# ..." lines; stdout has one JSON patch
// per pod, one line each, for `kubectl patch --type=json`.
#pragma once

#include <CLI/CLI.hpp>

namespace podlimits::cli {

void AddRecommendCommand(CLI::App& app, int& exit_code);

}  // namespace podlimits::cli
