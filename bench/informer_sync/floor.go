package main

// -floor: how much of a sync is the client's own. Per encoding, one sync against serve is
// recorded (record.go) and a replay server built from it (replay.go); then each round times,
// interleaved, the informer against serve, the same informer against the replay (a server that
// does no work: its answer is ready before the request comes), and client-go's bare decoding of
// the recorded watch body (decode.go). The replay is the floor no server on this machine can go
// below with this client; serve minus replay is what serve adds.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// fastest is the least of d.
func fastest(d []time.Duration) time.Duration { lo, _ := span(d); return lo }

type encoding struct{ name, contentType string }

type floorSubject struct {
	enc    encoding
	replay *replay
	watch  *exchange
}

// recordSync syncs once against serve with the recorder on, and builds the replay.
func recordSync(ctx context.Context, base *rest.Config, enc encoding, ns string, pods int) (*floorSubject, error) {
	rec := &recorder{}
	c := rest.CopyConfig(base)
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec })
	cs, err := clientset(c, enc.contentType)
	if err != nil {
		return nil, err
	}
	rec.start()
	_, _, err = syncOnce(ctx, cs, ns, pods)
	exchanges := rec.stop()
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	s := &floorSubject{enc: enc}
	for _, e := range exchanges {
		fmt.Printf("recorded %-8s %v\n", enc.name, e)
		if e.isWatch() && e.status == http.StatusOK {
			s.watch = e
		}
	}
	if s.watch == nil {
		return nil, fmt.Errorf("no watch among the %d requests recorded", len(exchanges))
	}
	body := s.watch.bytes()
	if !bytes.Contains(body[max(0, len(body)-1024):], []byte(metav1.InitialEventsAnnotationKey)) {
		return nil, fmt.Errorf("the recorded watch body does not end in the %s bookmark",
			metav1.InitialEventsAnnotationKey)
	}
	if n, err := decodeWatch(body, s.watch.header.Get("Content-Type")); err != nil || n != pods {
		return nil, fmt.Errorf("the recorded watch body decodes to %d pods (%v), want %d", n, err, pods)
	}
	if s.watch.peer == nil {
		return nil, fmt.Errorf("serve's watch answer came without a TLS certificate")
	}
	if s.replay, err = newReplay(exchanges, s.watch.peer); err != nil {
		return nil, err
	}
	// One untimed sync against the replay: its connection and TLS handshake, as the recording
	// was serve's (client-go's transport cache keeps one connection per TLS configuration).
	rcs, err := clientset(s.replay.config(base), enc.contentType)
	if err == nil {
		_, _, err = syncOnce(ctx, rcs, ns, pods)
	}
	if err != nil {
		s.replay.close()
		return nil, fmt.Errorf("replay: %w", err)
	}
	return s, nil
}

// runFloor prints the three lines per encoding; keep, if set, is a directory to write the
// recorded watch bodies to (NAME.watch), e.g. to profile their decoding without serve, and to
// write a Go CPU profile of 20 more syncs against the replay to (NAME.replay.pprof): where the
// client's own time goes, with no server's work on the machine.
func runFloor(ctx context.Context, base *rest.Config, ns string, pods, rounds int, encodings []encoding, keep string) error {
	var subjects []*floorSubject
	defer func() {
		for _, s := range subjects {
			s.replay.close()
		}
	}()
	for _, enc := range encodings {
		s, err := recordSync(ctx, base, enc, ns, pods)
		if err != nil {
			return fmt.Errorf("%s: %w", enc.name, err)
		}
		subjects = append(subjects, s)
	}
	times, cpus := map[string][]time.Duration{}, map[string][]time.Duration{}
	clock := &watchClock{}
	clocked := func(c *rest.Config) *rest.Config {
		c = rest.CopyConfig(c)
		c.Wrap(clock.wrap)
		return c
	}
	for r := 0; r < rounds; r++ {
		for _, s := range subjects {
			targets := []struct {
				line string
				cfg  *rest.Config
			}{{"serve", clocked(base)}, {"replay", clocked(s.replay.config(base))}}
			if r%2 == 1 { // neither side always first
				targets[0], targets[1] = targets[1], targets[0]
			}
			for _, t := range targets {
				cs, err := clientset(t.cfg, s.enc.contentType)
				if err != nil {
					return err
				}
				began := clock.reset()
				took, cpu, err := syncOnce(ctx, cs, ns, pods)
				if err != nil {
					return fmt.Errorf("%s against %s, round %d: %w", s.enc.name, t.line, r, err)
				}
				headers, lastRead := clock.since(began)
				key := s.enc.name + " " + t.line
				times[key] = append(times[key], took)
				cpus[key] = append(cpus[key], cpu)
				times[key+" headers"] = append(times[key+" headers"], headers)
				times[key+" last read"] = append(times[key+" last read"], lastRead)
			}
			body, ct := s.watch.bytes(), s.watch.header.Get("Content-Type")
			cpu0, began := processCPU(), time.Now()
			if _, err := decodeWatch(body, ct); err != nil {
				return err
			}
			key := s.enc.name + " bare decode"
			times[key] = append(times[key], time.Since(began))
			cpus[key] = append(cpus[key], processCPU()-cpu0)
		}
	}
	for _, s := range subjects {
		if m := s.replay.misses.Load(); m > 0 {
			return fmt.Errorf("%s: the replay answered %d requests it had no recording of", s.enc.name, m)
		}
		for _, line := range []string{"serve", "replay", "bare decode"} {
			t, c := times[s.enc.name+" "+line], cpus[s.enc.name+" "+line]
			lo, hi := span(t)
			clo, chi := span(c)
			fmt.Printf("floor %-8s %-11s median %7.1f ms  (min %.1f, max %.1f, %d rounds); "+
				"client CPU median %.1f ms (min %.1f, max %.1f)\n",
				s.enc.name, line, ms(median(t)), ms(lo), ms(hi), len(t), ms(median(c)), ms(clo), ms(chi))
		}
		for _, line := range []string{"serve", "replay"} {
			h, l := times[s.enc.name+" "+line+" headers"], times[s.enc.name+" "+line+" last read"]
			fmt.Printf("floor %-8s %-11s watch headers at median %.1f ms, last read of the body at "+
				"median %.1f ms (min %.1f) after Start\n", s.enc.name, line, ms(median(h)), ms(median(l)), ms(fastest(l)))
		}
		// Each round's serve and replay ran back to back: their difference is what serve adds,
		// less exposed to the machine's load than the difference of the two medians.
		sv, rp := times[s.enc.name+" serve"], times[s.enc.name+" replay"]
		diff := make([]time.Duration, len(sv))
		for i := range sv {
			diff[i] = sv[i] - rp[i]
		}
		lo, hi := span(diff)
		fmt.Printf("floor %-8s serve-replay median %6.1f ms  (min %.1f, max %.1f, paired per round)\n",
			s.enc.name, ms(median(diff)), ms(lo), ms(hi))
		fmt.Printf("floor %-8s watch body %d bytes\n", s.enc.name, len(s.watch.bytes()))
		if keep != "" {
			name := filepath.Join(keep, s.enc.name+".watch")
			if err := os.WriteFile(name, s.watch.bytes(), 0o644); err != nil {
				return err
			}
			fmt.Printf("floor %-8s watch body kept in %s\n", s.enc.name, name)
			if err := profileReplay(ctx, base, s, ns, pods, filepath.Join(keep, s.enc.name+".replay.pprof")); err != nil {
				return err
			}
		}
	}
	return nil
}

// profileReplay writes a CPU profile of 20 syncs against s's replay to name.
func profileReplay(ctx context.Context, base *rest.Config, s *floorSubject, ns string, pods int, name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	for i := 0; i < 20; i++ {
		cs, err := clientset(s.replay.config(base), s.enc.contentType)
		if err != nil {
			return err
		}
		if _, _, err := syncOnce(ctx, cs, ns, pods); err != nil {
			return fmt.Errorf("%s against the replay, profiled: %w", s.enc.name, err)
		}
	}
	fmt.Printf("floor %-8s a CPU profile of 20 syncs against the replay in %s\n", s.enc.name, name)
	return nil
}
