// Command benchinterleave is issue 39's bench: the same demo grid run
// twice with the sequential schedule and twice with `--schedule
// interleaved`, at about the same wall time, with a CPU hog beside the
// stack that switches on and off every -hog-period (40 s), and what the
// issue asks of them:
//
//   - per profile, each run's pick and whether it lies in the other run
//     of the same schedule's set (the recommendation's measured best,
//     equivalent and likely pairs, as report.Profile.Admits reads them),
//     both ways, and the sets' sizes;
//   - whether every interleaved set is at most half the smaller of the
//     two sequential runs' sets for that profile, or at most 2 pairs
//     (with the hog), or no wider than it (-hog=false);
//   - each run's wall time, its noise bands and the host's load.
//
// It prints a Markdown table ready for docs/benchmarks.md and writes
// everything it read and measured to <out>/bench.json. The figures are
// sweep's own: each run directory's results.json, which sweep run writes
// (the recommendation document of `sweep report --json` with the noise
// bands), never its screen output.
//
// Usage (make bench-interleave builds bin/sweep and the demo's images;
// HOG=0 runs it without the hog, SMOKE=1 at a tiny scale):
//
//	go run ./bench/interleave [-hog=false] [-duration 30s] [-slice 5s] [-rounds 0] [-smoke] ...
//	go run ./bench/interleave -rereport runs/bench-interleave-<time> [-sweep <another build>]
//
// -rereport runs nothing: it reports an earlier bench's four runs again
// with -sweep and prints the table from the same records, so a change to
// the report's statistic is judged on the same measurements.
//
// The runs go in the order sequential a, interleaved a, sequential b,
// interleaved b, so that both schedules meet the host alike. Every run
// has its target pinned to one CPU (-core, default the engine's last:
// sweep run --cpuset) as the drift fault test's is, the hog
// (internal/cpuhog: two busy loops at twice the CPU shares, pinned to
// that CPU) likewise. The hog is a container of the demo's PostgreSQL
// image labelled with the run going at the time (sweep.run: that run's
// cleanup removes it too; none starts before a run's stack) and with the
// bench's own sweep.bench label;
// each is started with the time left of its on-period as its life, so it
// ends by itself even if the bench is killed, and the bench removes it
// at the period's end, at its own end and on Ctrl-C (which reaches sweep
// as an interrupt: it removes its stack).
//
// Wall times are matched by sweep plan's own price (sweep.Spec.Estimate):
// the sequential run at -warmup and -duration with its controls
// (-control-every), the interleaved one at -warmup, -slice and the
// number of rounds whose price lies closest to the sequential run's
// (-rounds 0, the default; -rounds N fixes it). Both prices and the real
// wall times are printed.
//
// The default grid: CPU 0.5 and 1 × web multipliers 2, 4, 6 × pool
// multipliers 1, 2: 12 distinct cells (web 1–3 threads at 0.5 CPU, 2–6
// at 1; pools 1–12), 3 s warm-up + 30 s measured per sequential cell,
// 5 s slices.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/bench/internal/benchcli"
	"github.com/sweep-tool/sweep/internal/cpuhog"
	"github.com/sweep-tool/sweep/internal/k8sfixture"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

func main() { benchcli.Main("benchinterleave", run) }

// config is the grid the four runs measure and how.
type config struct {
	benchcli.Grid
	slice        time.Duration
	rounds       int
	controlEvery int
	hog          bool
	hogPeriod    time.Duration
	core         string
	loadEvery    time.Duration
	smoke        bool
	rereport     string
}

// smokeGrid is -smoke's: two cells, 1 s + 4 s, 2 s slices, no control,
// the hog switching every 10 s; four runs in 5m33s at load 17-20.
var smokeGrid = benchcli.Grid{CPUs: "1", WebMult: "2,4", DBMult: "1", Warmup: time.Second, Duration: 4 * time.Second}

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("benchinterleave", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.Register(fs, benchcli.Grid{Sweep: "bin/sweep", Config: "compose/demo/sweep.yaml", Out: benchcli.Stamped("bench-interleave"),
		CPUs: "0.5,1", WebMult: "2,4,6", DBMult: "1,2", Load: "vus=20", Driver: "builtin",
		Warmup: 3 * time.Second, Duration: 30 * time.Second}, map[string]string{
		"out":      "the four runs in it: seq-a, int-a, seq-b, int-b, and bench.json",
		"db-mult":  "with the defaults: 12 distinct cells",
		"duration": "a sequential cell's; the interleaved runs' rounds are matched to it",
	})
	fs.DurationVar(&c.slice, "slice", 5*time.Second, "the interleaved runs' slice (sweep run --slice)")
	fs.IntVar(&c.rounds, "rounds", 0, "the interleaved runs' rounds; 0: the number whose sweep plan price lies closest to the sequential run's")
	fs.IntVar(&c.controlEvery, "control-every", sweep.DefaultControlEvery, "the sequential runs' control interval (sweep run --control-every)")
	fs.BoolVar(&c.hog, "hog", true, "run the CPU hog beside the stack, on and off every -hog-period")
	fs.DurationVar(&c.hogPeriod, "hog-period", 40*time.Second, "how long the hog stays on, then off")
	fs.StringVar(&c.core, "core", "", "the CPU the targets and the hog are pinned to (default: the engine's last)")
	fs.DurationVar(&c.loadEvery, "load-every", 10*time.Second, "how often /proc/loadavg is read while the runs go")
	fs.StringVar(&c.rereport, "rereport", "", "run nothing: read <dir>/bench.json of an earlier bench, report its four runs again with -sweep "+
		"(sweep report, which rewrites each run's results.json) and print the table from the same records; the wall times, "+
		"loads and hog periods stay the measured ones")
	fs.BoolVar(&c.smoke, "smoke", false, "a tiny scale to check the bench (CPU 1 × web 2,4 × pool 1, 1 s + 4 s, 2 s slices, no control, the hog every 10 s; 5-6 min)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.smoke {
		c.CPUs, c.WebMult, c.DBMult, c.Warmup, c.Duration = smokeGrid.CPUs, smokeGrid.WebMult, smokeGrid.DBMult, smokeGrid.Warmup, smokeGrid.Duration
		c.slice, c.controlEvery, c.hogPeriod = 2*time.Second, 0, 10*time.Second
	}
	switch {
	case c.slice <= 0 || c.slice > c.Duration:
		return c, fmt.Errorf("-slice %s: give a slice above 0 and at most -duration %s", c.slice, c.Duration)
	case c.rounds != 0 && c.rounds < sweep.MinRounds:
		return c, fmt.Errorf("-rounds %d: give 0 (matched) or %d and more", c.rounds, sweep.MinRounds)
	case c.hogPeriod <= 0:
		return c, fmt.Errorf("-hog-period %s: give a period above 0", c.hogPeriod)
	}
	return c, nil
}

// price is the two schedules' sweep plan prices and the rounds that
// match them.
type price struct {
	Rounds      int           `json:"rounds"`
	Sequential  time.Duration `json:"sequential_ns"`
	Interleaved time.Duration `json:"interleaved_ns"`
	Matched     bool          `json:"matched"`
}

// specs are the sequential and the interleaved run of c as sweep plan
// prices them (rounds: the interleaved run's).
func (c config) specs(rounds int) (seq, inter sweep.Spec, err error) {
	var axes [3][]float64
	for i, s := range []string{c.CPUs, c.WebMult, c.DBMult} {
		if axes[i], err = benchcli.Floats(s); err != nil {
			return seq, inter, err
		}
	}
	seq = sweep.Spec{CPUs: axes[0], WebMult: axes[1], DBMult: axes[2], Repeat: 1,
		Warmup: sweep.Duration(c.Warmup), Duration: sweep.Duration(c.Duration), ControlEvery: c.controlEvery}
	inter = seq
	inter.ControlEvery, inter.Schedule, inter.Slice, inter.Rounds = 0, sweep.ScheduleInterleaved, sweep.Duration(c.slice), rounds
	return seq, inter, nil
}

// match prices both schedules and, without -rounds, picks the rounds
// whose interleaved price lies closest to the sequential one's (the
// fewer on a tie).
func (c config) match() (price, error) {
	seq, inter, err := c.specs(max(c.rounds, sweep.MinRounds))
	if err != nil {
		return price{}, err
	}
	p := price{Rounds: inter.Rounds, Sequential: seq.Estimate().Total, Interleaved: inter.Estimate().Total}
	if c.rounds != 0 {
		return p, nil
	}
	p.Matched = true
	gap := func(d time.Duration) time.Duration { return max(d-p.Sequential, p.Sequential-d) }
	for r := sweep.MinRounds + 1; r <= sweep.MaxRoundsCap; r++ {
		inter.Rounds = r
		t := inter.Estimate().Total
		if gap(t) < gap(p.Interleaved) {
			p.Rounds, p.Interleaved = r, t
		}
		if t > p.Sequential {
			break
		}
	}
	return p, nil
}

// runSpec is one of the four runs.
type runSpec struct {
	Name     string `json:"name"`
	Schedule string `json:"schedule"`
}

var runs = []runSpec{
	{"seq-a", sweep.ScheduleSequential}, {"int-a", sweep.ScheduleInterleaved},
	{"seq-b", sweep.ScheduleSequential}, {"int-b", sweep.ScheduleInterleaved},
}

// args are sweep's arguments for r into dir.
func (c config) args(r runSpec, rounds int, dir string) []string {
	a := append(c.RunArgs(), "--cpuset", c.core)
	if r.Schedule == sweep.ScheduleInterleaved {
		a = append(a, "--schedule", sweep.ScheduleInterleaved, "--slice", c.slice.String(), "--rounds", strconv.Itoa(rounds))
	} else {
		a = append(a, "--control-every", strconv.Itoa(c.controlEvery))
	}
	return append(a, "--out", dir)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if err != nil {
		return err
	}
	if c.rereport != "" {
		return rereport(ctx, c.Sweep, c.rereport, stdout, stderr)
	}
	p, err := c.match()
	if err != nil {
		return err
	}
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return err
	}
	defer cli.Close()
	if c.core == "" {
		info, err := cli.Info(ctx)
		if err != nil {
			return fmt.Errorf("engine info: %w", err)
		}
		c.core = strconv.Itoa(info.NCPU - 1)
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return err
	}
	benchID := filepath.Base(c.Out)
	fmt.Fprintf(stderr, "benchinterleave: sweep plan prices a sequential run at %s, an interleaved one of %d rounds of %s at %s; four runs ≈ %s\n",
		sweep.Round(p.Sequential), p.Rounds, c.slice, sweep.Round(p.Interleaved), sweep.Round(2*(p.Sequential+p.Interleaved)))
	var hogs *hogLoop
	if c.hog {
		image, err := k8sfixture.DemoImage(".", "SWEEP_DEMO_PG_IMAGE")
		if err != nil {
			return err
		}
		hogs = startHogs(ctx, cli, cpuhog.Spec{Image: image, CPUs: c.core, AutoRemove: true,
			Labels: map[string]string{benchLabel: benchID, "sweep.test": "cpu-hog"}}, c.hogPeriod, stderr)
	}
	defer removeLeftovers(cli, benchID, stderr)
	start := time.Now()
	var outs []outcome
	for _, r := range runs {
		dir := filepath.Join(c.Out, r.Name)
		if hogs != nil {
			hogs.follow(dir)
		}
		o, err := measure(ctx, c, r, p.Rounds, dir, stderr)
		if err != nil {
			if hogs != nil {
				hogs.stop()
			}
			return err
		}
		outs = append(outs, o)
	}
	var timeline []hogSpan
	if hogs != nil {
		timeline = hogs.stop()
	}
	res := compare(outs)
	doc := benchDoc{Grid: gridDoc{CPUs: c.CPUs, WebMult: c.WebMult, DBMult: c.DBMult, Load: c.Load, Warmup: c.Warmup.String(),
		Duration: c.Duration.String(), Slice: c.slice.String(), ControlEvery: c.controlEvery, Core: c.core},
		Hog: c.hog, HogPeriod: c.hogPeriod.String(), Price: p, WallS: time.Since(start).Seconds(), Runs: outs, HogSpans: timeline, Result: res}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Out, "bench.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	_, err = io.WriteString(stdout, markdown(doc))
	return err
}

// rereport reads dir's bench.json, has sweep (the binary) report each of
// its runs again, reads the results.json that writes and prints the
// table anew, writing the document to dir/bench-rereport.json (bench.json
// keeps what the bench printed when it ran).
func rereport(ctx context.Context, sweepBin, dir string, stdout, stderr io.Writer) error {
	b, err := os.ReadFile(filepath.Join(dir, "bench.json"))
	if err != nil {
		return fmt.Errorf("-rereport: %w", err)
	}
	var doc benchDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("-rereport: %s: %w", filepath.Join(dir, "bench.json"), err)
	}
	for i, o := range doc.Runs {
		runDir := filepath.Join(dir, filepath.Base(o.Dir))
		cmd := exec.CommandContext(ctx, sweepBin, "report", runDir)
		cmd.Stdout, cmd.Stderr = io.Discard, stderr
		fmt.Fprintf(stderr, "benchinterleave: %s\n", strings.Join(cmd.Args, " "))
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("report %s again: %w", o.Name, err)
		}
		if doc.Runs[i].Doc, err = readRunDoc(runDir); err != nil {
			return err
		}
	}
	doc.Result = compare(doc.Runs)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bench-rereport.json"), append(out, '\n'), 0o644); err != nil {
		return err
	}
	_, err = io.WriteString(stdout, markdown(doc))
	return err
}

// benchLabel marks every hog container of one invocation (its value the
// out folder's name), so the bench finds and removes its own.
const benchLabel = "sweep.bench"

// outcome is one run: its wall time, the host's load meanwhile and what
// the bench read of its results.json.
type outcome struct {
	runSpec
	Dir   string    `json:"dir"`
	WallS float64   `json:"wall_s"`
	Loads []float64 `json:"load_1min"`
	// Note is set when sweep exited 1 (a cell failed) and the run was
	// read back anyway.
	Note string `json:"note,omitempty"`
	Doc  runDoc `json:"results"`
}

// measure runs r into dir and reads its results.json back. sweep runs
// in a process group of its own, so a Ctrl-C reaches the bench alone,
// which hands sweep one interrupt (not a kill, and not the second
// interrupt that makes sweep exit at once): it removes its stack.
func measure(ctx context.Context, c config, r runSpec, rounds int, dir string, stderr io.Writer) (outcome, error) {
	cmd := exec.CommandContext(ctx, c.Sweep, c.args(r, rounds, dir)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 2 * time.Minute
	cmd.Stdout, cmd.Stderr = stderr, stderr
	fmt.Fprintf(stderr, "benchinterleave: %s\n", strings.Join(cmd.Args, " "))
	o := outcome{runSpec: r, Dir: dir}
	sampler := benchcli.StartLoad(ctx, c.loadEvery)
	start := time.Now()
	err := cmd.Run()
	o.WallS, o.Loads = time.Since(start).Seconds(), sampler.Stop()
	if o.Note, err = benchcli.SweepExit(ctx, err); err != nil {
		return o, fmt.Errorf("run %s: %w", r.Name, err)
	}
	o.Doc, err = readRunDoc(dir)
	return o, err
}

// hogSpan is one on-period of the hog: when it started and was removed
// (or ended), and the run it was labelled with.
type hogSpan struct {
	Run  string    `json:"run,omitempty"`
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// hogLoop keeps the hog on for a period, off for the next, from its
// start: each second it starts one when it should be on and none runs,
// once the run it follows has written its sweep.json (labelled with that
// run's id: between runs no stack is up and no hog starts), and removes
// it when it should be off.
type hogLoop struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	dir    string
	spans  []hogSpan
}

func startHogs(ctx context.Context, cli *client.Client, spec cpuhog.Spec, period time.Duration, stderr io.Writer) *hogLoop {
	ctx, cancel := context.WithCancel(ctx)
	l := &hogLoop{cancel: cancel, done: make(chan struct{})}
	t0 := time.Now()
	go func() {
		defer close(l.done)
		var h *cpuhog.Hog
		off := func() {
			if h == nil {
				return
			}
			if err := h.Remove(ctx); err != nil {
				fmt.Fprintf(stderr, "benchinterleave: %v\n", err)
			}
			l.mu.Lock()
			l.spans[len(l.spans)-1].To = time.Now()
			l.mu.Unlock()
			h = nil
		}
		defer off()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			since := time.Since(t0)
			on := (since/period)%2 == 0
			switch {
			case !on:
				off()
			case h == nil || !h.Running(ctx):
				off()
				s := spec
				s.Life = period - since%period
				s.Labels = map[string]string{}
				for k, v := range spec.Labels {
					s.Labels[k] = v
				}
				l.mu.Lock()
				dir := l.dir
				l.mu.Unlock()
				m, err := results.ReadMeta(dir)
				if err != nil || m.RunID == "" {
					break // no run's stack up yet: nothing to hog beside
				}
				runID := m.RunID
				s.Labels[sweep.LabelRun] = runID
				if h, err = cpuhog.Start(ctx, cli, s); err != nil {
					if ctx.Err() == nil {
						fmt.Fprintf(stderr, "benchinterleave: %v\n", err)
					}
					h = nil
					break
				}
				l.mu.Lock()
				l.spans = append(l.spans, hogSpan{Run: runID, From: h.At, To: h.At.Add(s.Life)})
				l.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return l
}

// follow labels the hogs started from now on with the run in dir.
func (l *hogLoop) follow(dir string) {
	l.mu.Lock()
	l.dir = dir
	l.mu.Unlock()
}

// stop removes the hog and returns its on-periods.
func (l *hogLoop) stop() []hogSpan {
	l.cancel()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.spans
}

// removeLeftovers removes every container of this invocation's hogs that
// is still there (one a lost remove left), also after Ctrl-C.
func removeLeftovers(cli *client.Client, benchID string, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", benchLabel+"="+benchID))})
	if err != nil {
		fmt.Fprintf(stderr, "benchinterleave: list the hogs left: %v\n", err)
		return
	}
	for _, ct := range list {
		if err := cli.ContainerRemove(ctx, ct.ID, container.RemoveOptions{Force: true}); err != nil && !client.IsErrNotFound(err) {
			fmt.Fprintf(stderr, "benchinterleave: remove hog %s: %v\n", ct.ID[:12], err)
		}
	}
}
