package main

// -compare-ctl CMD (tests/cri/run with CRI_ENFORCEMENT=nri, where NRI's ulimit-adjuster can be
// built): the same pods under `podlimits nri` and under NRI's own sample plugin ulimit-adjuster,
// one registered at a time (CMD podlimits|ulimit-adjuster switches), through the same CRI calls.
// ulimit-adjuster (NRI 0.8) reads ulimits.nri.containerd.io/container.NAME, the key podlimits
// keeps as the deprecated form of ulimits.noderesource.dev/container.NAME, so one annotation
// serves both. What each container got is read from /proc/<pid>/limits, or the call that failed
// and its message; the table prints side by side, and each outcome is checked against what the
// two plugins are known to do (docs/nri.md, "Beside NRI's ulimit-adjuster").

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

const deprecatedUlimitsKey = "ulimits.nri.containerd.io/container.app"

type compareOutcome struct {
	started bool
	text    string // "NOFILE=1024:2048", or "refused at STAGE: message"
}

type compareWant struct {
	started bool
	text    string // a substring of the outcome's text
}

type compareRow struct {
	name                string
	ulimits             string
	show                string // the rlimit read back: NOFILE, CORE or NPROC
	podlimits, adjuster compareWant
	why                 string
}

func (r *run) compareRows() []compareRow {
	ceiling := r.node.nofileCeiling
	above := ceiling + 10000
	rows := []compareRow{
		{"within every bound", "[{type: nofile, soft: 1024, hard: 2048}]", "NOFILE",
			compareWant{true, "NOFILE=1024:2048"}, compareWant{true, "NOFILE=1024:2048"}, ""},
		{"core only", "[{type: core, soft: 0, hard: 1024}]", "CORE",
			compareWant{true, "CORE=0:1024"}, compareWant{true, "CORE=0:1024"}, ""},
		{"soft above hard", "[{type: nofile, soft: 10, hard: 5}]", "NOFILE",
			compareWant{false, "must be less than or equal to hard limit 5"},
			compareWant{false, "must have hard limit >= soft limit"},
			"the same refusal, in the apiserver's words for podlimits"},
		{"-1, unlimited", "[{type: nofile, soft: -1, hard: -1}]", "NOFILE",
			compareWant{true, fmt.Sprintf("NOFILE=%d:%d", ceiling, ceiling)},
			compareWant{false, "cannot unmarshal number -1"},
			"the KEP's -1 is the node's ceiling; ulimit-adjuster reads unsigned values only"},
		{"nofile above the KEP's 1048576", "[{type: nofile, soft: 1024, hard: 2000000}]", "NOFILE",
			compareWant{false, "must be less than or equal to 1048576 (or -1 for unlimited)"},
			compareWant{false, "StartContainer"},
			"ulimit-adjuster has no upper bound: the adjustment is taken and runc fails the start"},
		{"nproc", "[{type: nproc, soft: 1, hard: 1}]", "NPROC",
			compareWant{false, `Unsupported value: "nproc"`}, compareWant{true, "NPROC=1:1"},
			"ulimit-adjuster takes every RLIMIT_*; the KEP allows core, memlock, nice, nofile, rtprio, stack"},
	}
	if above <= 1048576 {
		// Only where the node's ceiling is its own hard limit (no CAP_SYS_RESOURCE) and below
		// fs.nr_open: a value between the two.
		rows = append(rows, compareRow{"nofile above this node's ceiling",
			fmt.Sprintf("[{type: nofile, soft: 1024, hard: %d}]", above), "NOFILE",
			compareWant{false, fmt.Sprintf("asks nofile %d, above this node's ceiling %d", above, ceiling)},
			compareWant{false, "StartContainer"},
			"podlimits knows the node's ceilings and refuses with why; runc's setrlimit fails the start"})
	}
	return rows
}

// limitsText: the named rlimit rows of a /proc/<pid>/limits as NAME=soft:hard.
func limitsText(limits string, names []string) string {
	rows := map[string]string{
		"NOFILE": "Max open files", "CORE": "Max core file size", "NPROC": "Max processes",
	}
	var parts []string
	for _, n := range names {
		f := strings.Fields(limitRow(limits, rows[n]))
		if len(f) == 2 {
			parts = append(parts, fmt.Sprintf("%s=%s:%s", n, f[0], f[1]))
		}
	}
	return strings.Join(parts, " ")
}

func (r *run) compareOne(ctx context.Context, row compareRow) compareOutcome {
	p := newPod("compare", map[string]string{deprecatedUlimitsKey: row.ulimits}, sleeper("app"))
	rp, failure := startPod(ctx, r.rt, r.node, r.handler, p)
	defer r.endPod(ctx, "compare "+row.name, rp)
	if failure != nil {
		msg := failure.err.Error()
		if i := strings.LastIndex(msg, "desc = "); i >= 0 {
			msg = msg[i+len("desc = "):]
		}
		msg = strings.TrimPrefix(msg, `container "app" of pod default/compare: `)
		return compareOutcome{false, "refused at " + failure.stage + ": " + msg}
	}
	pid, err := r.containerPid(ctx, rp.containers["app"])
	if err != nil {
		return compareOutcome{false, err.Error()}
	}
	limits, err := processLimits(pid)
	if err != nil {
		return compareOutcome{false, err.Error()}
	}
	return compareOutcome{true, limitsText(limits, []string{row.show})}
}

func (r *run) switchPlugin(to string) error {
	cmd := exec.Command(r.compareCtl, to)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", r.compareCtl, to, err)
	}
	return nil
}

func (r *run) compareWithAdjuster(ctx context.Context) {
	rows := r.compareRows()
	outcomes := map[string][]compareOutcome{}
	for _, plugin := range []string{"ulimit-adjuster", "podlimits"} { // podlimits registered last again
		if err := r.switchPlugin(plugin); err != nil {
			r.fail("compare/"+plugin, "%v", err)
			return
		}
		for _, row := range rows {
			outcomes[plugin] = append(outcomes[plugin], r.compareOne(ctx, row))
		}
	}
	for i, row := range rows {
		mine, theirs := outcomes["podlimits"][i], outcomes["ulimit-adjuster"][i]
		fmt.Printf("   %s: %s\n     podlimits nri:   %.300s\n     ulimit-adjuster: %.300s\n",
			row.name, row.ulimits, mine.text, theirs.text)
		if row.why != "" {
			fmt.Printf("     (%s)\n", row.why)
		}
		check := func(got compareOutcome, want compareWant) error {
			if got.started != want.started || !strings.Contains(got.text, want.text) {
				return fmt.Errorf("%q, want started=%v and %q in it", got.text, want.started, want.text)
			}
			return nil
		}
		r.check("compare/"+row.name+"/podlimits", check(mine, row.podlimits))
		r.check("compare/"+row.name+"/ulimit-adjuster", check(theirs, row.adjuster))
	}
}
