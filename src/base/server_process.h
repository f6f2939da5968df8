// What every long-running podlimits process (serve, webhook, a pod's monitor, the NRI plugin)
// sets up before anything else.
#pragma once

#include <signal.h>

#include <cstddef>

namespace podlimits {

// A write to a pipe or socket whose reader has gone fails with EPIPE instead of killing the
// process: `seq 1 100000 | kubectl exec -i POD -- head -n 1` once ended `serve` with SIGPIPE
// (exit 141, no log line). Each writer then treats EPIPE as the end of that stream only.
// Ignored dispositions survive exec, so children that expect the default get it back
// (base/child_process does; so does the namespace holder).
void IgnoreBrokenPipes();

// Raises the soft open-file limit to the hard one, as Go does for every program since 1.19:
// a server's connection caps are fitted to it (apiserver/https_server.h). Returns the soft
// limit now in force.
std::size_t RaiseOpenFileLimit();

// SIGINT and SIGTERM blocked in this thread (so in every thread started after it), to be
// waited for with sigwait on the returned set rather than handled: a stop then never lands in
// the middle of a thread's work. Call before any thread starts.
sigset_t BlockStopSignals();

}  // namespace podlimits
