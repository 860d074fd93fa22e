package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/bench/internal/benchcli"
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/sweep"
)

// runDoc is what the bench reads of a run's results.json: the
// recommendation (the document sweep report --json prints) and the noise
// bands it judged at.
type runDoc struct {
	report.Recommendation
	Noise report.Noise  `json:"noise_bands"`
	Drift *report.Drift `json:"drift,omitempty"`
}

func readRunDoc(dir string) (runDoc, error) {
	return readRunDocFile(filepath.Join(dir, "results.json"))
}

func readRunDocFile(path string) (runDoc, error) {
	var d runDoc
	b, err := os.ReadFile(path)
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// profiles are the recommendation's profiles in the order the tables
// show them, by their key in it.
var profiles = []string{"latency", "balanced", "throughput"}

func (d runDoc) profile(key string) report.ProfileDoc {
	switch key {
	case "latency":
		return d.Profile.Latency
	case "balanced":
		return d.Profile.Balanced
	}
	return d.Profile.Throughput
}

// pick is a profile's pick, nil when it found none.
func pick(p report.ProfileDoc) *report.MultDoc {
	if p.WebMult == nil || p.DBMult == nil {
		return nil
	}
	return &report.MultDoc{WebMult: *p.WebMult, DBMult: *p.DBMult}
}

// set is a profile's set as report.Profile.Set reads it: the measured
// best, the pairs equivalent to it and the likely ones; none without a
// pick.
func set(p report.ProfileDoc) []report.MultDoc {
	if pick(p) == nil || p.MeasuredBest == nil {
		return nil
	}
	var out []report.MultDoc
	for _, m := range append(append([]report.MultDoc{*p.MeasuredBest}, p.Equivalent...), p.Likely...) {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// admits is report.Profile.Admits on the documents: other's pick lies in
// p's set, or neither has a pick.
func admits(p, other report.ProfileDoc) bool {
	a, b := pick(p), pick(other)
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return slices.Contains(set(p), *b)
}

// pairCheck is one profile of two runs of one schedule: each pick in the
// other's set, both ways.
type pairCheck struct {
	Profile string `json:"profile"`
	AInB    bool   `json:"a_in_b"`
	BInA    bool   `json:"b_in_a"`
}

// setCheck is one profile's set sizes: the sequential runs', the
// interleaved runs', and whether each interleaved set is narrow enough.
type setCheck struct {
	Profile     string `json:"profile"`
	Sequential  [2]int `json:"sequential"`
	Interleaved [2]int `json:"interleaved"`
	// Half: every interleaved set at most half the smaller sequential
	// set, or at most 2 pairs (the hog's test); NoWider: at most the
	// smaller sequential set (the test without the hog).
	Half    bool `json:"half_or_two"`
	NoWider bool `json:"no_wider"`
}

// result is the comparison of the four runs.
type result struct {
	Sequential  []pairCheck `json:"sequential_agreement"`
	Interleaved []pairCheck `json:"interleaved_agreement"`
	Sets        []setCheck  `json:"sets"`
	// BothWays counts the profiles whose picks agree both ways, per
	// schedule; Half and NoWider the profiles whose sets pass.
	SeqBothWays, IntBothWays, Half, NoWider int
}

// byName finds run name among outs.
func byName(outs []outcome, name string) outcome {
	for _, o := range outs {
		if o.Name == name {
			return o
		}
	}
	return outcome{}
}

// agreement checks each profile's pick of a in b's set and the reverse.
func agreement(a, b runDoc) ([]pairCheck, int) {
	var out []pairCheck
	both := 0
	for _, k := range profiles {
		c := pairCheck{Profile: k, AInB: admits(b.profile(k), a.profile(k)), BInA: admits(a.profile(k), b.profile(k))}
		if c.AInB && c.BInA {
			both++
		}
		out = append(out, c)
	}
	return out, both
}

// compare is what issue 39 asks of the four runs (seq-a, seq-b, int-a,
// int-b by name).
func compare(outs []outcome) result {
	sa, sb := byName(outs, "seq-a").Doc, byName(outs, "seq-b").Doc
	ia, ib := byName(outs, "int-a").Doc, byName(outs, "int-b").Doc
	var r result
	r.Sequential, r.SeqBothWays = agreement(sa, sb)
	r.Interleaved, r.IntBothWays = agreement(ia, ib)
	for _, k := range profiles {
		c := setCheck{Profile: k,
			Sequential:  [2]int{len(set(sa.profile(k))), len(set(sb.profile(k)))},
			Interleaved: [2]int{len(set(ia.profile(k))), len(set(ib.profile(k)))}}
		ref := min(c.Sequential[0], c.Sequential[1])
		c.Half, c.NoWider = true, true
		for _, n := range c.Interleaved {
			c.Half = c.Half && (n > 0 && (2*n <= ref || n <= 2))
			c.NoWider = c.NoWider && n <= ref
		}
		if c.Half {
			r.Half++
		}
		if c.NoWider {
			r.NoWider++
		}
		r.Sets = append(r.Sets, c)
	}
	return r
}

// gridDoc is the grid of bench.json.
type gridDoc struct {
	CPUs         string `json:"cpus"`
	WebMult      string `json:"web_mult"`
	DBMult       string `json:"db_mult"`
	Load         string `json:"load"`
	Warmup       string `json:"warmup"`
	Duration     string `json:"duration"`
	Slice        string `json:"slice"`
	ControlEvery int    `json:"control_every"`
	Core         string `json:"core"`
}

// benchDoc is bench.json.
type benchDoc struct {
	Grid      gridDoc   `json:"grid"`
	Hog       bool      `json:"hog"`
	HogPeriod string    `json:"hog_period"`
	Price     price     `json:"price"`
	WallS     float64   `json:"wall_s"`
	Runs      []outcome `json:"runs"`
	HogSpans  []hogSpan `json:"hog_spans"`
	Result    result    `json:"result"`
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// pickSet names a profile's pick and its set's size, e.g. 2×1 (3).
func pickSet(p report.ProfileDoc) string {
	m := pick(p)
	if m == nil {
		return "none"
	}
	return fmt.Sprintf("%g×%g (%d)", m.WebMult, m.DBMult, len(set(p)))
}

func wall(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(time.Second).String()
}

// markdown is the bench's output: its setting, one row per run (wall
// time, noise, load, each profile's pick with its set's size and whether
// it lies in the other run of its schedule's set) and the verdicts.
func markdown(d benchDoc) string {
	var b strings.Builder
	hog := "no hog"
	if d.Hog {
		hog = fmt.Sprintf("a CPU hog pinned to CPU %s beside the stack, on and off every %s", d.Grid.Core, d.HogPeriod)
	}
	fmt.Fprintf(&b, "grid: CPU %s × web %s × pool %s, %s, targets pinned to CPU %s; %s\n", d.Grid.CPUs, d.Grid.WebMult, d.Grid.DBMult,
		d.Grid.Load, d.Grid.Core, hog)
	how := "matched: the rounds whose price lies closest"
	if !d.Price.Matched {
		how = "-rounds given"
	}
	control := "no control"
	if d.Grid.ControlEvery > 0 {
		control = fmt.Sprintf("a control every %d cells", d.Grid.ControlEvery)
	}
	fmt.Fprintf(&b, "sequential: warm-up %s + %s a cell, %s; interleaved: warm-up %s, %d rounds of %s slices (%s)\n",
		d.Grid.Warmup, d.Grid.Duration, control, d.Grid.Warmup, d.Price.Rounds, d.Grid.Slice, how)
	fmt.Fprintf(&b, "sweep plan's price: sequential %s, interleaved %s; the four runs took %s\n\n",
		sweep.Round(d.Price.Sequential), sweep.Round(d.Price.Interleaved), wall(d.WallS))
	b.WriteString("| run | schedule | wall time | RPS band | p99 band | host load (1 min) | latency-first pick (set) | in the other's set | balanced | in the other's set | throughput-first | in the other's set |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	r := d.Result
	checks := map[string][]pairCheck{"seq-a": r.Sequential, "seq-b": r.Sequential, "int-a": r.Interleaved, "int-b": r.Interleaved}
	for _, o := range d.Runs {
		assumed := ""
		if !o.Doc.Noise.Measured {
			assumed = " (assumed)"
		}
		name := o.Name
		if o.Note != "" {
			name += " (a cell failed)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.1f %%%s | %.1f %%%s | %s |", name, o.Schedule, wall(o.WallS),
			100*o.Doc.Noise.RPS, assumed, 100*o.Doc.Noise.P99, assumed, benchcli.LoadRange(o.Loads))
		for i, k := range profiles {
			in := checks[o.Name][i].AInB
			if strings.HasSuffix(o.Name, "-b") {
				in = checks[o.Name][i].BInA
			}
			fmt.Fprintf(&b, " %s | %s |", pickSet(o.Doc.profile(k)), yesNo(in))
		}
		b.WriteString("\n")
	}
	n := len(profiles)
	fmt.Fprintf(&b, "\nagreement (each run's pick in the other's set, both ways): sequential %d of %d, interleaved %d of %d\n",
		r.SeqBothWays, n, r.IntBothWays, n)
	b.WriteString("set sizes (pairs) per profile, sequential a, b / interleaved a, b:")
	for _, s := range r.Sets {
		fmt.Fprintf(&b, " %s %d, %d / %d, %d;", s.Profile, s.Sequential[0], s.Sequential[1], s.Interleaved[0], s.Interleaved[1])
	}
	b.WriteString("\n")
	if d.Hog {
		fmt.Fprintf(&b, "with the hog (issue 39): interleaved agreement %d of %d both ways (wanted %d of %d); interleaved sets at most half the smaller sequential set or ≤ 2 pairs: %d of %d profiles\n",
			r.IntBothWays, n, n, n, r.Half, n)
	} else {
		fmt.Fprintf(&b, "without the hog (issue 39): interleaved sets no wider than the smaller sequential set: %d of %d profiles\n", r.NoWider, n)
	}
	return b.String()
}
