package sweep

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// rungsSpec is halving on 7 interleaved rounds of 1 s slices over the 4
// cells of one CPU limit: rungs after rounds 3 and 6.
func rungsSpec() Spec {
	s := roundsSpec()
	s.CPUs, s.DBMult, s.Rounds, s.Strategy = []float64{1}, []float64{2, 4}, 7, StrategyHalving
	s.Duration = Duration(10 * time.Second)
	return s
}

// hasSlice reports whether cell has a record of round k.
func hasSlice(dir, cell string, k int) bool {
	_, err := os.Stat(filepath.Join(results.CellDir(dir, cell, k), results.ResultFile))
	return err == nil
}

// roundsOf lists the rounds of cell that have a record, of max.
func roundsOf(dir, cell string, max int) []int {
	var out []int
	for k := 1; k <= max; k++ {
		if hasSlice(dir, cell, k) {
			out = append(out, k)
		}
	}
	return out
}

func TestRungs(t *testing.T) {
	t.Parallel()
	s := rungsSpec()
	if got := s.Rungs(); !slices.Equal(got, []int{3, 6}) {
		t.Errorf("Rungs of 7 rounds = %v, want [3 6]", got)
	}
	s.Rounds = 13
	if got := s.Rungs(); !slices.Equal(got, []int{3, 6, 12}) {
		t.Errorf("Rungs of 13 rounds = %v, want [3 6 12]", got)
	}
	if got := RungsText(s.Rungs()); got != "3, 6, 12" {
		t.Errorf("RungsText = %q, want 3, 6, 12", got)
	}
	s.Strategy = ""
	if got := s.Rungs(); got != nil {
		t.Errorf("Rungs of the grid = %v, want none", got)
	}
	if got := RungsText(s.Rungs()); got != "none" {
		t.Errorf("RungsText of no rungs = %q, want none", got)
	}
}

// TestHalvingRoundsDropAndStop: a rung that drops a target stops it at
// once; its slices so far stay its repetitions, it runs no later round,
// the others run every round with one target fewer in each; the run
// measures fewer slices than the grid would.
func TestHalvingRoundsDropAndStop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := rungsSpec()
	cells := spec.Cells()
	loser := cells[2].ID
	stack, driver := &fakeTargets{}, &sliceDriver{}
	var downAt int // slices measured when the loser was stopped
	asked := []int{}
	var log bytes.Buffer
	r := &Runner{Spec: spec, Dir: dir, Stack: stack, Driver: driver, Log: &log,
		Cut: func(g TargetGroup, k int) (Cut, error) {
			asked = append(asked, k)
			if k == 3 {
				return Cut{Drop: []string{loser}, Why: map[string]string{loser: "apart"}}, nil
			}
			if len(g.Cells) != 3 {
				t.Errorf("rung %d asked with %d cells in play, want 3", k, len(g.Cells))
			}
			return Cut{Note: "every interval overlaps the best's"}, nil
		}}
	stopped := func() bool { return slices.Contains(stack.down, loser) }
	driver.on = func(_ context.Context, n int, _ LoadRequest) error {
		if downAt == 0 && stopped() {
			downAt = n
		}
		return nil
	}
	sum, err := r.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []int{3, 6}) {
		t.Errorf("rungs asked after rounds %v, want [3 6]", asked)
	}
	if got := roundsOf(dir, loser, 7); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("the dropped target's slices: rounds %v, want 1-3 (kept, no later round)", got)
	}
	for _, c := range cells {
		if c.ID == loser {
			continue
		}
		if got := roundsOf(dir, c.ID, 7); len(got) != 7 {
			t.Errorf("%s: rounds %v, want all 7", c.ID, got)
		}
	}
	if downAt != 13 { // 12 slices of rounds 1-3, stopped before round 4's first
		t.Errorf("the dropped target stopped before slice %d, want 13 (right after the rung)", downAt)
	}
	for _, u := range driver.urls[12:] {
		if strings.HasSuffix(u, "/"+loser) {
			t.Errorf("a slice after the rung went to the dropped target")
		}
	}
	if rec := slice(t, dir, cells[0].ID, 4); rec.LoadSlice.Targets != 3 {
		t.Errorf("round 4 had %d targets, want 3", rec.LoadSlice.Targets)
	}
	grid := len(cells) * spec.MaxRounds()
	if len(sum.Records) != grid-4 || len(sum.Records) >= grid {
		t.Errorf("%d slices measured, want %d: the grid's %d less the dropped target's 4 rounds", len(sum.Records), grid-4, grid)
	}
	if !strings.Contains(log.String(), "after round 6 drops nothing (every interval overlaps the best's); the rounds go straight on") {
		t.Errorf("the rung that dropped nothing is not logged:\n%s", log.String())
	}
	if len(stack.running()) != 0 {
		t.Errorf("targets left running: %v", stack.running())
	}
}

// TestHalvingRoundsNothingDropped: rungs that drop nothing cost nothing:
// every round runs for every target, the rungs logged, no target stopped
// early.
func TestHalvingRoundsNothingDropped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := rungsSpec()
	stack := &fakeTargets{}
	var log bytes.Buffer
	r := &Runner{Spec: spec, Dir: dir, Stack: stack, Driver: &sliceDriver{}, Log: &log,
		Cut: func(TargetGroup, int) (Cut, error) { return Cut{Note: "a tie"}, nil }}
	sum, err := r.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Records) != 4*7 {
		t.Errorf("%d slices, want the grid's 28", len(sum.Records))
	}
	if n := strings.Count(log.String(), "drops nothing (a tie)"); n != 2 {
		t.Errorf("%d rungs said they drop nothing, want 2:\n%s", n, log.String())
	}
	// a cut that would drop every target drops none
	dir2 := t.TempDir()
	r2 := &Runner{Spec: spec, Dir: dir2, Stack: &fakeTargets{}, Driver: &sliceDriver{},
		Cut: func(g TargetGroup, _ int) (Cut, error) {
			var all []string
			for _, c := range g.Cells {
				all = append(all, c.ID)
			}
			return Cut{Drop: all}, nil
		}}
	if sum, err := r2.Run(t.Context()); err != nil || len(sum.Records) != 28 {
		t.Errorf("a cut of every target: %d slices, %v; want 28, none dropped", len(sum.Records), err)
	}
}

// TestHalvingRoundsResumeMidRung: a run stopped in round 5, after rung 3
// dropped a target, resumes with the targets still in play only, runs
// the rounds owed (5 whole, 6, 7) and does not decide rung 3 again; a
// rung whose decision was lost with the stop (its rounds done, its file
// gone) is decided before any target starts.
func TestHalvingRoundsResumeMidRung(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := rungsSpec()
	cells := spec.Cells()
	loser := cells[1].ID
	drop := func(_ TargetGroup, k int) (Cut, error) {
		if k == 3 {
			return Cut{Drop: []string{loser}, Why: map[string]string{loser: "apart"}}, nil
		}
		return Cut{Note: "a tie"}, nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	driver := &sliceDriver{on: func(ctx context.Context, n int, _ LoadRequest) error {
		if n == 12+3+2 { // round 5's second slice
			cancel()
			return ctx.Err()
		}
		return nil
	}}
	stack := &fakeTargets{}
	r := &Runner{Spec: spec, Dir: dir, Stack: stack, Driver: driver, Cut: drop}
	if _, err := r.Run(ctx); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Run = %v, want ErrInterrupted", err)
	}
	if len(stack.running()) != 0 {
		t.Errorf("targets left running after Ctrl-C: %v", stack.running())
	}
	again, stack2 := &sliceDriver{}, &fakeTargets{}
	r2 := &Runner{Spec: spec, Dir: dir, Stack: stack2, Driver: again,
		Cut: func(g TargetGroup, k int) (Cut, error) {
			if k == 3 {
				t.Error("rung 3 decided again on the resume")
			}
			return drop(g, k)
		}}
	sum, err := r2.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(stack2.groups) != 1 || slices.Contains(stack2.groups[0], loser) || len(stack2.groups[0]) != 3 {
		t.Errorf("the resume started %v; want the 3 targets still in play", stack2.groups)
	}
	if len(sum.Records) != 9 || len(again.urls) != 9 {
		t.Errorf("resume: %d records, %d slices; want rounds 5-7 of 3 targets (9)", len(sum.Records), len(again.urls))
	}
	if got := roundsOf(dir, loser, 7); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("the dropped target: rounds %v, want 1-3", got)
	}
	for _, c := range cells {
		for k := 1; c.ID != loser && k <= 7; k++ {
			if rec := slice(t, dir, c.ID, k); rec.Status != results.StatusOK {
				t.Errorf("%s round %d: %s", c.ID, k, rec.Status)
			}
		}
	}

	// the decision lost: rounds 1-3 done, no rungs file
	dir3 := t.TempDir()
	ctx3, cancel3 := context.WithCancel(t.Context())
	stop := &sliceDriver{on: func(ctx context.Context, n int, _ LoadRequest) error {
		if n == 13 {
			cancel3()
			return ctx.Err()
		}
		return nil
	}}
	r3 := &Runner{Spec: spec, Dir: dir3, Stack: &fakeTargets{}, Driver: stop, Cut: drop}
	if _, err := r3.Run(ctx3); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Run = %v, want ErrInterrupted", err)
	}
	if err := os.Remove(filepath.Join(results.GroupDir(dir3, 1), RungsFile)); err != nil {
		t.Fatal(err)
	}
	stack4 := &fakeTargets{}
	decided := 0
	r4 := &Runner{Spec: spec, Dir: dir3, Stack: stack4, Driver: &sliceDriver{},
		Cut: func(g TargetGroup, k int) (Cut, error) {
			if k == 3 {
				decided++
				if len(stack4.groups) != 0 {
					t.Error("rung 3 decided after the targets started")
				}
			}
			return drop(g, k)
		}}
	if _, err := r4.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if decided != 1 || slices.Contains(stack4.groups[0], loser) {
		t.Errorf("lost rung: decided %d times, started %v; want once, before the 3 targets in play started", decided, stack4.groups)
	}
}

// TestHalvingRoundsStopWithOneLeft: a rung that leaves one target in play
// ends the group's rounds (a round of one pairs with nothing), and a
// resume owes none.
func TestHalvingRoundsStopWithOneLeft(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := rungsSpec()
	cells := spec.Cells()
	var log bytes.Buffer
	r := &Runner{Spec: spec, Dir: dir, Stack: &fakeTargets{}, Driver: &sliceDriver{}, Log: &log,
		Cut: func(TargetGroup, int) (Cut, error) {
			return Cut{Drop: []string{cells[0].ID, cells[1].ID, cells[3].ID}}, nil
		}}
	sum, err := r.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Records) != 12 || hasSlice(dir, cells[2].ID, 4) {
		t.Errorf("%d slices (round 4 of the one left: %v); want rounds 1-3 of 4 targets, none after",
			len(sum.Records), hasSlice(dir, cells[2].ID, 4))
	}
	if !strings.Contains(log.String(), "one target is left in play") {
		t.Errorf("the stop is not logged:\n%s", log.String())
	}
	again := &sliceDriver{}
	r2 := &Runner{Spec: spec, Dir: dir, Stack: &fakeTargets{}, Driver: again}
	if _, err := r2.Run(t.Context()); err != nil || len(again.urls) != 0 {
		t.Errorf("resume: %v, %d slices; want none owed", err, len(again.urls))
	}
}
