// Command benchnoise runs the same demo grid twice as full grid runs with
// their control cell (sweep run --control-every) and prints what issue 26
// asks of the noise they measure. Both runs go to the demo's compose
// stack unless -backends puts a run on another backend: -backends
// compose,kubernetes measures run b on the Kubernetes fixture (issue 25:
// the same grid on Compose and on Kubernetes should recommend the same
// multipliers or ones the report calls equivalent). It prints
//
//   - per profile, each run's pick and whether it lies in the other run's
//     equivalence set (report.Profile.Admits on each run's own report);
//   - the noise each run measured from its controls (report.Noise: RPS and
//     p99 bands), any drift it flagged, and how many cells the two reports
//     cannot tell apart across the runs (report.Estimate.Overlaps of the
//     same cell's RPS and p99 in both);
//   - the share of `sweep replay --seeds N` replays of each run, at the
//     noise it measured (strategy/replay without --noise), whose pick lies
//     outside that run's own equivalence set (issue 26: at most 10 %), and
//     the report's own calibration of the set beside it;
//   - the control's cost: its measurements' wall time (each record's start
//     to finish, its target recreated for it) as a share of the run's wall
//     time and of its cells' time, and the same share priced at the CLI's
//     default cell lengths (30 s warm-up, 5 min) with the overhead per
//     cell this run measured, by the rule of sweep.DefaultControlEvery.
//
// Usage (make bench-noise builds bin/sweep and the demo's images; make
// bench-backends runs it with -backends compose,kubernetes):
//
//	go run ./bench/noise [-sweep bin/sweep] [-duration 10s] [-control-every 10] [-backends compose,compose] [-max-repeat 0] ...
//
// With -max-repeat N (2 or more) both runs are sweep run --repeat auto
// --max-repeat N: each profile's pick and its calibrated set measured
// again until separated or at N repetitions, a lone pick once more
// (strategy/repeat); the output then says how many cells each run
// repeated.
//
// A run on kubernetes is the demo as TestKubernetesRunEndToEnd sweeps it
// (sweep run --kubernetes --manifests <demo.yaml> --service app --url
// http://app:8080, the load a Job on node 2, the database reached
// through a port-forward to Service db, compose/demo/reset.sql before
// each cell) on the cluster KUBECONFIG names, else the fixture's; the
// bench writes the manifests into <out>/k8s and loads the demo's images
// into the nodes first (make k8s-up as root, then the bench as root).
// The app runs on node 1, whose pod requests share its 2 allocatable
// CPUs with whatever else is scheduled there (CoreDNS asks 50m): a CPU
// limit of 2 may not be schedulable, so make bench-backends measures
// CPU 1 and 1.5. With -backends given, the output names each run's
// backend (a on compose, b on kubernetes); without it, it is as before.
//
// Both runs share the machine with whatever else runs on it; the bench
// samples /proc/loadavg meanwhile and prints its range. Compare the two
// runs of one invocation, not figures of different ones.
//
// The default grid: CPU 1 and 2 × web multipliers 1, 2, 4, 6, 8 × pool
// multipliers 1, 2, 20 distinct cells (the smallest grid the cost
// target is stated for), at the demo's 3 s warm-up and 10 s measured: two
// runs of about 7–9 minutes on the 2-core host. --control-every stays at
// its default of 10: a 20-cell grid then measures 3 controls (start, after
// the tenth cell, end), the fewest the report measures its noise from
// (report.MinControls); --control-every 20 would leave 2 and the noise
// assumed. Cells this short pay more than 5 % for them (the README's
// formula: the 5 % holds when d ≥ 5 (o + w)), which is why the bench also
// prices them at the default lengths.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sweep-tool/sweep/bench/internal/benchcli"
	"github.com/sweep-tool/sweep/internal/k8sfixture"
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/replay"
	"github.com/sweep-tool/sweep/sweep"
)

func main() { benchcli.Main("benchnoise", run) }

// The backends a run can measure on.
const (
	compose    = "compose"
	kubernetes = "kubernetes"
)

// config is the grid both runs measure and how.
type config struct {
	benchcli.Grid
	controlEvery, seeds int
	// maxRepeat > 0 has both runs repeat their picks' sets (sweep run
	// --repeat auto --max-repeat maxRepeat).
	maxRepeat int
	loadEvery time.Duration
	// backends are run a's and b's; named is set when -backends was
	// given, and the output then names each run's backend.
	backends [2]string
	named    bool
	// kube is the demo on the Kubernetes fixture, made ready by
	// kubeDemo when a run measures there.
	kube benchcli.Kube
}

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("benchnoise", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.Register(fs, benchcli.Grid{Sweep: "bin/sweep", Config: "compose/demo/sweep.yaml", Out: benchcli.Stamped("bench-noise"),
		CPUs: "1,2", WebMult: "1,2,4,6,8", DBMult: "1,2", Load: "vus=20", Driver: "builtin",
		Warmup: 3 * time.Second, Duration: 10 * time.Second}, map[string]string{
		"out":      "the two runs in it, a and b",
		"db-mult":  "with the defaults: 20 distinct cells",
		"duration": "a control measures a tenth, at least 5 s",
	})
	fs.IntVar(&c.controlEvery, "control-every", sweep.DefaultControlEvery, "cells between two control measurements (sweep run --control-every)")
	fs.IntVar(&c.maxRepeat, "max-repeat", 0, "with 2 or more, both runs repeat each pick and its set up to this many times (sweep run --repeat auto --max-repeat); 0: every cell once")
	fs.IntVar(&c.seeds, "seeds", 200, "noisy replays of each run (sweep replay --seeds)")
	fs.DurationVar(&c.loadEvery, "load-every", 10*time.Second, "how often /proc/loadavg is read while the runs go")
	backends := fs.String("backends", compose+","+compose, "run a's and b's backend: compose (-config's stack on the local engine) or "+
		"kubernetes (the demo on the Kubernetes fixture, make k8s-up: the app on node 1, whose 2 allocatable CPUs must hold the largest -cpus)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.controlEvery < 1 {
		return c, fmt.Errorf("-control-every %d: the bench measures the control, give 1 or more", c.controlEvery)
	}
	if c.maxRepeat == 1 || c.maxRepeat < 0 {
		return c, fmt.Errorf("-max-repeat %d: give 2 or more (repeat each pick's set), or 0 (every cell once)", c.maxRepeat)
	}
	fs.Visit(func(f *flag.Flag) { c.named = c.named || f.Name == "backends" })
	names := strings.Split(*backends, ",")
	if len(names) != 2 {
		return c, fmt.Errorf("-backends %q: name two, run a's and run b's", *backends)
	}
	for i, b := range names {
		if b != compose && b != kubernetes {
			return c, fmt.Errorf("-backends: no backend %q (compose, kubernetes)", b)
		}
		c.backends[i] = b
	}
	return c, nil
}

// outcome is one run of the grid.
type outcome struct {
	// name is the run's (a, b) and its folder's; label names it in the
	// output, with its backend when -backends was given.
	name, label string
	wall        time.Duration
	run         *results.Run
	rep         *report.Report
	replay      *replay.Result
	// note is set when sweep exited 1 (a cell failed) and the run was
	// read back anyway.
	note string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if err != nil {
		return err
	}
	if slices.Contains(c.backends[:], kubernetes) {
		if c.kube, err = kubeDemo(filepath.Join(c.Out, "k8s"), stderr); err != nil {
			return err
		}
	}
	sampler := benchcli.StartLoad(ctx, c.loadEvery)
	start := time.Now()
	var outs []outcome
	for i, name := range []string{"a", "b"} {
		o, err := measure(ctx, c, name, c.backends[i], stderr)
		if err != nil {
			sampler.Stop()
			return err
		}
		outs = append(outs, o)
	}
	loads := sampler.Stop()
	fmt.Fprintf(stdout, "grid: CPU %s × web %s × pool %s (%d cells), warm-up %s + %s per cell, %s, control every %d cells; two runs in %s\n",
		c.CPUs, c.WebMult, c.DBMult, len(outs[0].run.Cells), c.Warmup, c.Duration, c.Load, c.controlEvery, time.Since(start).Round(time.Second))
	if c.maxRepeat > 0 {
		fmt.Fprintf(stdout, "repeat auto, at most %d repetitions: %s\n", c.maxRepeat, repetitions(outs))
	}
	if c.named {
		fmt.Fprintf(stdout, "backends: a on %s, b on %s\n", c.backends[0], c.backends[1])
	}
	fmt.Fprintf(stdout, "host load during the runs: %s\n\n", benchcli.LoadSummary(loads, c.loadEvery))
	return write(stdout, outs[0], outs[1], c)
}

// command is the sweep run of one grid on backend into dir.
func command(ctx context.Context, c config, backend, dir string) *exec.Cmd {
	args := c.RunArgs()
	if backend == kubernetes {
		args = c.KubeRunArgs(c.kube)
	}
	args = append(args, "--control-every", strconv.Itoa(c.controlEvery))
	if c.maxRepeat > 0 {
		args = append(args, "--repeat", "auto", "--max-repeat", strconv.Itoa(c.maxRepeat))
	}
	cmd := exec.CommandContext(ctx, c.Sweep, append(args, "--out", dir)...)
	if backend == kubernetes {
		cmd.Env = append(os.Environ(), c.kube.Env()...)
	}
	return cmd
}

// kubeDemo readies the demo on the Kubernetes fixture: its manifests
// written into dir, its images (app, PostgreSQL, the load's sweep-drive)
// loaded into the nodes, as make demo-images last built them; the
// kubeconfig KUBECONFIG names, else the fixture's.
func kubeDemo(dir string, stderr io.Writer) (benchcli.Kube, error) {
	st, err := k8sfixture.Load(k8sfixture.Dir())
	if err != nil {
		return benchcli.Kube{}, fmt.Errorf("-backends kubernetes: %w (make k8s-up starts it)", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return benchcli.Kube{}, err
	}
	k := benchcli.Kube{ResetSQL: "compose/demo/reset.sql", Kubeconfig: cmp.Or(os.Getenv("KUBECONFIG"), st.Kubeconfig)}
	if k.Manifests, err = st.WriteManifests(".", dir, "demo.yaml"); err != nil {
		return k, err
	}
	var images []string
	for _, v := range []string{"SWEEP_DEMO_APP_IMAGE", "SWEEP_DEMO_PG_IMAGE", "SWEEP_DEMO_DRIVE_IMAGE"} {
		img, err := k8sfixture.DemoImage(".", v)
		if err != nil {
			return k, err
		}
		images = append(images, img)
	}
	k.LoadImage = images[2]
	fmt.Fprintf(stderr, "benchnoise: loading %s into the fixture's nodes\n", strings.Join(images, " "))
	return k, st.LoadImages(".", images...)
}

// measure runs the grid once on backend into <out>/<name>, reads it
// back, builds its report and replays it at its measured noise.
func measure(ctx context.Context, c config, name, backend string, stderr io.Writer) (outcome, error) {
	dir := filepath.Join(c.Out, name)
	cmd := command(ctx, c, backend, dir)
	fmt.Fprintf(stderr, "benchnoise: %s\n", strings.Join(cmd.Args, " "))
	cmd.Stdout, cmd.Stderr = stderr, stderr
	start := time.Now()
	o := outcome{name: name, label: name}
	if c.named {
		o.label = name + " on " + backend
	}
	err := cmd.Run()
	o.wall = time.Since(start)
	if o.note, err = benchcli.SweepExit(ctx, err); err != nil {
		return o, fmt.Errorf("run %s: %w", name, err)
	}
	if o.run, err = results.LoadRun(dir); err != nil {
		return o, err
	}
	if o.rep, err = report.Build(o.run, report.DefaultOptions()); err != nil {
		return o, err
	}
	o.replay, err = replay.Replay(o.run, replay.Options{Seeds: c.seeds, Seed: 1})
	if err != nil {
		return o, fmt.Errorf("replay of run %s: %w", name, err)
	}
	return o, nil
}

// write prints the comparison of the two runs.
func write(w io.Writer, a, b outcome, c config) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "run\twall time\tcontrols ok\tRPS band\tp99 band\tnoise\tdrift")
	for _, o := range []outcome{a, b} {
		n := o.rep.Noise
		src := "measured"
		if !n.Measured {
			src = "assumed"
		}
		drift := "none"
		if o.rep.Drift != nil {
			drift = fmt.Sprintf("flagged, %d cells marked", len(o.rep.Drift.Cells))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f %%\t%.1f %%\t%s\t%s\n", o.label, o.wall.Round(time.Second), n.Controls,
			100*n.RPS, 100*n.P99, src, drift)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, o := range []outcome{a, b} {
		fmt.Fprintf(w, "%s: noise %s\n", o.label, o.rep.Noise.Sentence())
		if o.rep.Drift != nil {
			fmt.Fprintf(w, "%s: %s\n", o.label, o.rep.Drift.Sentence())
		}
		if o.note != "" {
			fmt.Fprintf(w, "%s: %s\n", o.label, o.note)
		}
	}
	rows := crossPicks(a.rep, b.rep)
	fmt.Fprintf(w, "\nper profile: each run's pick, whether it lies in the other's equivalence set, and the share of %d sweep replays "+
		"of each run at its measured noise picking outside its own set (issue 26: ≤ 10 %%), beside the report's calibration of the set\n", c.seeds)
	fmt.Fprintln(tw, "profile\ta's pick\tin b's set\tb's pick\tin a's set\treplays outside a's set\toutside b's set\ta's set: pairs, re-runs in it\tb's set")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.profile, r.pickA, yesNo(r.aInB), r.pickB, yesNo(r.bInA),
			outsideShare(a.replay, r.profile), outsideShare(b.replay, r.profile),
			calibration(a.rep, r.profile), calibration(b.rep, r.profile))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	both := 0
	for _, r := range rows {
		if r.aInB && r.bInA {
			both++
		}
	}
	fmt.Fprintf(w, "agreement: %d of %d profiles each run's pick in the other's set\n", both, len(rows))
	fmt.Fprintf(w, "replayed halving's share of each run's time: a %.1f %%, b %.1f %%\n", 100*a.replay.Fraction, 100*b.replay.Fraction)
	fmt.Fprintln(w, sameCells(a.rep, b.rep).String())
	fmt.Fprintln(w, "\ncontrol cost")
	for _, o := range []outcome{a, b} {
		cost := controlCost(o.run, o.wall)
		fmt.Fprintf(w, "%s: %s\n", o.label, cost)
		fmt.Fprintf(w, "%s: at the CLI's default cell lengths with this overhead: %s\n", o.label,
			atDefaults(cost.overheadS, len(o.run.Cells), c.controlEvery))
	}
	return nil
}

// repetitions says, per run, how many cells --repeat auto measured more
// than once and the repetitions beyond the first.
func repetitions(outs []outcome) string {
	var parts []string
	for _, o := range outs {
		cells, extra := 0, 0
		for _, rc := range o.run.Cells {
			if n := len(rc.Reps); n > 1 {
				cells++
				extra += n - 1
			}
		}
		parts = append(parts, fmt.Sprintf("%s %d cells repeated, %d repetitions more", o.label, cells, extra))
	}
	return strings.Join(parts, "; ")
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// pickRow is one profile's picks of both runs.
type pickRow struct {
	profile      string
	pickA, pickB string
	// aInB: a's pick lies in b's equivalence set; bInA the reverse.
	aInB, bInA bool
}

// crossPicks lines up each profile's pick of both runs and checks each
// against the other run's set by the report's own rule (Admits).
func crossPicks(a, b *report.Report) []pickRow {
	var rows []pickRow
	for _, pa := range a.Profiles {
		pb, ok := b.Profile(pa.Key)
		if !ok {
			continue
		}
		rows = append(rows, pickRow{profile: pa.Key, pickA: pairOf(pa), pickB: pairOf(pb), aInB: pb.Admits(pa), bInA: pa.Admits(pb)})
	}
	return rows
}

// pairOf names a profile's pick and the size of its set.
func pairOf(p report.Profile) string {
	if !p.Found {
		return "none"
	}
	return fmt.Sprintf("%g×%g (set of %d)", p.WebMult, p.DBMult, len(p.Set()))
}

// outsideShare is the share of the replays whose pick lay outside the
// run's set for the profile: 1 − the replay's agreement.
func outsideShare(res *replay.Result, profile string) string {
	agree, ok := res.Agreement[profile]
	if !ok {
		return "no pick"
	}
	return fmt.Sprintf("%.1f %% of %d", 100*(1-agree), res.Replays)
}

// calibration is the report's own claim for the profile's set: its pairs
// and the share of its simulated re-runs that pick in it.
func calibration(rep *report.Report, profile string) string {
	for _, c := range rep.Calibrate() {
		if c.Profile == profile {
			return fmt.Sprintf("%d, %.0f %%", c.Pairs, 100*c.Share)
		}
	}
	return "no pick"
}

// cellAgreement counts the cells both runs measured ok and those whose
// RPS (p99) the two reports' intervals cannot tell apart: with one
// measurement each, the run's measured band around each figure.
type cellAgreement struct {
	both, rps, p99 int
}

func sameCells(a, b *report.Report) cellAgreement {
	var n cellAgreement
	byID := map[string]*report.Cell{}
	for _, c := range b.Cells {
		byID[c.ID] = c
	}
	for _, ca := range a.Cells {
		cb := byID[ca.ID]
		if cb == nil || ca.Status != results.StatusOK || cb.Status != results.StatusOK {
			continue
		}
		n.both++
		if ca.RPS.Overlaps(cb.RPS) {
			n.rps++
		}
		if ca.P99.Overlaps(cb.P99) {
			n.p99++
		}
	}
	return n
}

func (n cellAgreement) String() string {
	if n.both == 0 {
		return "no cell finished ok in both runs"
	}
	return fmt.Sprintf("cells the reports cannot tell apart across the runs (each figure ± half its run's band): RPS %d of %d (%.0f %%), p99 %d of %d (%.0f %%)",
		n.rps, n.both, 100*float64(n.rps)/float64(n.both), n.p99, n.both, 100*float64(n.p99)/float64(n.both))
}

// cost is what a run's controls took.
type cost struct {
	controls int
	// controlsS is the controls' wall time, cellsS the cells'
	// repetitions', wallS the whole run's (sweep's process); overheadS
	// the mean time of a cell beyond its warm-up and measured phase.
	controlsS, cellsS, wallS, overheadS float64
}

// span is a record's wall time: its start to its record written.
func span(r results.Record) float64 { return r.FinishedAt.Sub(r.StartedAt).Seconds() }

// controlCost sums the run's control measurements (every Seq, on one
// stack) and its cells' repetitions from their records.
func controlCost(run *results.Run, wall time.Duration) cost {
	c := cost{wallS: wall.Seconds()}
	over := 0
	for _, rc := range run.Cells {
		for _, ctl := range rc.Controls {
			if ctl.Seq > 0 {
				c.controls++
				c.controlsS += span(ctl.Record)
			}
		}
		for _, rep := range rc.Reps {
			s := span(rep.Record)
			c.cellsS += s
			c.overheadS += s - rep.PhasesS["warmup"] - rep.PhasesS["measure"]
			over++
		}
	}
	if over > 0 {
		c.overheadS /= float64(over)
	}
	return c
}

func (c cost) String() string {
	if c.controls == 0 {
		return "no control measured"
	}
	return fmt.Sprintf("%d controls took %.0f s of the run's %.0f s (%.1f %%; %.1f %% of its cells' %.0f s); a cell's overhead beyond warm-up and measure %.1f s",
		c.controls, c.controlsS, c.wallS, 100*c.controlsS/c.wallS, 100*c.controlsS/c.cellsS, c.cellsS, c.overheadS)
}

// Default cell lengths of the CLI (sweep run's --warmup and --duration).
const (
	defaultWarmup   = 30 * time.Second
	defaultDuration = 5 * time.Minute
)

// atDefaults prices the controls of a grid of cells cells, one every
// every, at the CLI's default lengths with overhead o seconds per job,
// as sweep.DefaultControlEvery's comment does: each control o + w + the
// control's length, each cell o + w + d, the share of the cells' time
// and of the whole run's.
func atDefaults(o float64, cells, every int) string {
	if every < 1 {
		return "no control"
	}
	n := sweep.Spec{ControlEvery: every}.ControlCount(cells)
	ctl := o + (defaultWarmup + sweep.RunControlDuration(defaultDuration)).Seconds()
	cell := o + (defaultWarmup + defaultDuration).Seconds()
	total := float64(n) * ctl
	grid := float64(cells) * cell
	return fmt.Sprintf("%d controls of %.0f s beside %d cells of %.0f s: %.1f %% of the cells' time, %.1f %% of the run's",
		n, ctl, cells, cell, 100*total/grid, 100*total/(grid+total))
}
