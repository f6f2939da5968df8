package main

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system, all threads) this process has used: the
// client's own work in a sync, which the machine's load stretches less than the wall time.
// Against the replay it includes the replay server's, which runs in this process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
