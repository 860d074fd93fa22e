package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/report"
)

// TestMatch: the interleaved runs' rounds are the ones whose sweep plan
// price lies closest to the sequential run's.
func TestMatch(t *testing.T) {
	t.Parallel()
	c, err := parse(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	seq, _, err := c.specs(2)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(seq.Cells()); n != 12 {
		t.Errorf("the default grid has %d cells, want 12", n)
	}
	p, err := c.match()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sequential %s, interleaved %d rounds %s", p.Sequential, p.Rounds, p.Interleaved)
	_, inter, _ := c.specs(p.Rounds)
	for _, r := range []int{p.Rounds - 1, p.Rounds + 1} {
		inter.Rounds = r
		gap := func(d time.Duration) time.Duration { return max(d-p.Sequential, p.Sequential-d) }
		if gap(inter.Estimate().Total) < gap(p.Interleaved) {
			t.Errorf("%d rounds price closer to the sequential run (%s) than the %d matched (%s)", r, inter.Estimate().Total, p.Rounds, p.Interleaved)
		}
	}
	c.rounds = 3
	if p, _ := c.match(); p.Rounds != 3 || p.Matched {
		t.Errorf("-rounds 3: %+v", p)
	}
}

func TestArgs(t *testing.T) {
	t.Parallel()
	c, err := parse([]string{"-core", "1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c.core = "1"
	got := strings.Join(c.args(runs[1], 7, "out/int-a"), " ")
	want := "run --config compose/demo/sweep.yaml --cpus 0.5,1 --web-mult 2,4,6 --db-mult 1,2 --load vus=20 --warmup 3s --duration 30s " +
		"--driver builtin --cpuset 1 --schedule interleaved --slice 5s --rounds 7 --out out/int-a"
	if got != want {
		t.Errorf("interleaved: %q\nwant %q", got, want)
	}
	if got := strings.Join(c.args(runs[0], 7, "out/seq-a"), " "); !strings.HasSuffix(got, "--cpuset 1 --control-every 10 --out out/seq-a") {
		t.Errorf("sequential: %q", got)
	}
}

// smokeRuns are the four runs of a make bench-interleave SMOKE=1
// (2026-12-05, a busy host, the hog every 10 s): each run's results.json
// cut to its recommendation and noise bands. The sequential runs
// measured no control (noise assumed: sets of the pick alone), the
// interleaved ones their rounds (bands over 100 %: sets of both pairs).
func smokeRuns(t *testing.T) []outcome {
	t.Helper()
	var outs []outcome
	for _, r := range runs {
		d, err := readRunDocFile(filepath.Join("testdata", r.Name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, outcome{runSpec: r, Doc: d, WallS: 80})
	}
	return outs
}

func TestCompareSmokeRuns(t *testing.T) {
	t.Parallel()
	outs := smokeRuns(t)
	r := compare(outs)
	if r.SeqBothWays != 3 || r.IntBothWays != 3 {
		t.Errorf("agreement: sequential %d, interleaved %d of 3; want 3 and 3 (every run picked 4×1, or 2×1 in a set of 2×1 and 4×1)",
			r.SeqBothWays, r.IntBothWays)
	}
	for _, s := range r.Sets {
		if s.Sequential != [2]int{1, 1} || s.Interleaved != [2]int{2, 2} {
			t.Errorf("%s: sets %v / %v, want [1 1] / [2 2]", s.Profile, s.Sequential, s.Interleaved)
		}
		if !s.Half || s.NoWider {
			t.Errorf("%s: half or ≤ 2 %v (want true: 2 pairs), no wider %v (want false: 2 > 1)", s.Profile, s.Half, s.NoWider)
		}
	}
	if r.Half != 3 || r.NoWider != 0 {
		t.Errorf("half %d, no wider %d; want 3, 0", r.Half, r.NoWider)
	}
	md := markdown(benchDoc{Hog: true, HogPeriod: "10s", Grid: gridDoc{Core: "1"}, Runs: outs, Result: r})
	for _, want := range []string{
		"| seq-a | sequential | 1m20s | 5.0 % (assumed) | 5.0 % (assumed) | not read | 4×1 (1) | yes | 4×1 (1) | yes | 4×1 (1) | yes |\n",
		"| int-b | interleaved | 1m20s | 295.4 % | 210.2 % | not read | 2×1 (2) | yes |",
		"sequential 3 of 3, interleaved 3 of 3",
		"latency 1, 1 / 2, 2;",
		"≤ 2 pairs: 3 of 3 profiles",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
}

// TestCompareDisagrees: a pick outside the other run's set fails that
// way only; a set of 3 against sequential sets of 4 is neither half
// nor 2 pairs; a run without a pick agrees with none.
func TestCompareDisagrees(t *testing.T) {
	t.Parallel()
	outs := smokeRuns(t)
	six := 6.0
	ib := &outs[3].Doc.Profile.Latency
	ib.WebMult = &six // int-b picks 6×1, outside int-a's {4×1, 2×1}
	ib.Likely = append(ib.Likely, report.MultDoc{WebMult: 6, DBMult: 1})
	wide := []report.MultDoc{{WebMult: 2, DBMult: 1}, {WebMult: 6, DBMult: 1}, {WebMult: 6, DBMult: 2}}
	for _, i := range []int{0, 2} { // both sequential sets of balanced: 4 pairs
		outs[i].Doc.Profile.Balanced.Equivalent = wide
	}
	outs[1].Doc.Profile.Balanced.Likely = []report.MultDoc{{WebMult: 6, DBMult: 1}} // int-a's: 3 pairs
	outs[1].Doc.Profile.Throughput = report.ProfileDoc{Note: "no cell qualified"}
	r := compare(outs)
	if c := r.Interleaved[0]; !c.AInB || c.BInA {
		t.Errorf("latency: a in b %v (want true: b's set now holds a's 2×1), b in a %v (want false: 6×1)", c.AInB, c.BInA)
	}
	if c := r.Interleaved[2]; c.AInB || c.BInA {
		t.Errorf("throughput without a pick in run a: %+v, want no both ways", c)
	}
	if r.IntBothWays != 1 {
		t.Errorf("interleaved both ways %d, want 1 (balanced)", r.IntBothWays)
	}
	if s := r.Sets[1]; s.Sequential != [2]int{4, 4} || s.Interleaved != [2]int{3, 2} || s.Half || !s.NoWider {
		t.Errorf("balanced: %+v, want sets [4 4] / [3 2], not half (3 > 2), no wider", s)
	}
	if s := r.Sets[2]; s.Interleaved != [2]int{0, 2} || s.Half {
		t.Errorf("throughput without a pick in run a: %+v, want sets [0 2] and not half (no set is no narrow set)", s)
	}
}

// TestRereport: -rereport hands each run of an earlier bench to sweep
// report again and prints the table from what that wrote, keeping the
// measured wall times; here "sweep" is a script that writes a run's
// results.json from testdata, as sweep report would.
func TestRereport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "sweep")
	body := "#!/bin/sh\n[ \"$1\" = report ] || exit 3\ncp " + data + "/$(basename \"$2\").json \"$2\"/results.json\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	var doc benchDoc
	for i, r := range runs {
		if err := os.MkdirAll(filepath.Join(dir, r.Name), 0o755); err != nil {
			t.Fatal(err)
		}
		doc.Runs = append(doc.Runs, outcome{runSpec: r, Dir: "elsewhere/" + r.Name, WallS: float64(400 + i)})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(t.Context(), []string{"-sweep", script, "-rereport", dir}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(filepath.Join(dir, "bench-rereport.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got benchDoc
	if err := json.Unmarshal(again, &got); err != nil {
		t.Fatal(err)
	}
	want, err := readRunDocFile(filepath.Join("testdata", "int-b.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Runs[3].WallS != 403 || pickSet(got.Runs[3].Doc.Profile.Latency) != pickSet(want.Profile.Latency) {
		t.Errorf("int-b: wall %v s, latency pick %s; want 403 s and %s", got.Runs[3].WallS, pickSet(got.Runs[3].Doc.Profile.Latency), pickSet(want.Profile.Latency))
	}
	if !strings.Contains(out.String(), "| int-b | interleaved | 6m43s |") {
		t.Errorf("table:\n%s", out.String())
	}
	if err := run(t.Context(), []string{"-sweep", "/bin/false", "-rereport", dir}, io.Discard, io.Discard); err == nil {
		t.Error("a report that fails: no error")
	}
}
