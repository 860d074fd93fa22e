package sweep

// The interleaved schedule (Spec.Schedule "interleaved"). For each CPU
// limit every distinct target of that limit runs at once, each its own
// container with the cell's settings; after each is warmed up, R rounds
// give every target one slice of load (Spec.Slice) in a fresh random order
// while the others idle. A slow change of the host then shifts every
// target of a round alike, and the report compares the cells round by
// round (report's paired statistic). This file is the pure core: the
// fields, their checks, the groups of targets that run together, the
// rounds' orders and the price.

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// Schedules of a run: how the cells share the host's time.
const (
	// ScheduleSequential (Spec.Schedule "") runs one target at a time,
	// each cell's warm-up and measured phase in turn.
	ScheduleSequential = "sequential"
	// ScheduleInterleaved runs every target of a CPU limit at once and
	// gives each a slice of load per round, in a random order.
	ScheduleInterleaved = "interleaved"
)

// DefaultSlice is the length of one slice of load when Spec.Slice is not
// given: long enough for a p99 of a few thousand requests, short enough
// for a round of twenty targets to stay under six minutes.
const DefaultSlice = 15 * time.Second

// MinRounds is the fewest rounds an interleaved run measures: an interval
// across rounds needs two.
const MinRounds = 2

// MaxRoundsCap bounds Spec.Rounds.
const MaxRoundsCap = 1000

// ParseSchedule checks a schedule's name and returns it as Spec.Schedule
// holds it: "" for the sequential default, so a spec without it is the
// spec it was.
func ParseSchedule(flag, name string) (string, error) {
	return parseOneOf(flag, name, ScheduleSequential, ScheduleInterleaved)
}

// ParseRounds reads a --rounds value: auto, or a number of rounds from
// MinRounds. auto returns 0 and true.
func ParseRounds(flag, text string) (int, bool, error) {
	text = strings.TrimSpace(text)
	if text == "auto" {
		return 0, true, nil
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < MinRounds || n > MaxRoundsCap {
		return 0, false, BadInput(flag, "%q is not auto or a number of rounds from %d to %d", text, MinRounds, MaxRoundsCap)
	}
	return n, false, nil
}

// Interleaved reports whether s runs the interleaved schedule.
func (s Spec) Interleaved() bool { return s.Schedule == ScheduleInterleaved }

// SliceLength is the length of one slice of load: Spec.Slice, else
// DefaultSlice, never longer than the measured phase.
func (s Spec) SliceLength() time.Duration {
	d := s.Slice.Std()
	if d <= 0 {
		d = DefaultSlice
	}
	return min(d, s.Duration.Std())
}

// MaxRounds is how many rounds an interleaved run measures at most: the
// given number, or with rounds auto as many slices as fit into the
// measured phase's duration (so each cell gets at most Duration of load,
// as in the sequential run), MinRounds at least; auto rounds stop sooner
// once the picks' intervals are apart (Runner.EnoughRounds).
func (s Spec) MaxRounds() int {
	if !s.RoundsAuto {
		return s.Rounds
	}
	slice := s.SliceLength()
	if slice <= 0 {
		return MinRounds
	}
	return max(MinRounds, int((s.Duration.Std()+slice-1)/slice))
}

// validateSchedule checks the schedule and what goes with it: the slice
// and rounds only with the interleaved schedule, which measures one
// load per target on one stack, the rounds its
// repetitions and its noise.
func (s Spec) validateSchedule() error {
	if s.Schedule != "" && s.Schedule != ScheduleInterleaved {
		_, err := ParseSchedule("schedule", s.Schedule)
		return err
	}
	if !s.Interleaved() {
		switch {
		case s.Slice != 0:
			return BadInput("slice", "is the length of an interleaved schedule's slices; give {schedule} %s too", ScheduleInterleaved)
		case s.Rounds != 0 || s.RoundsAuto:
			return BadInput("rounds", "counts an interleaved schedule's rounds; give {schedule} %s too", ScheduleInterleaved)
		}
		return nil
	}
	checks := []struct {
		bad  bool
		flag string
		msg  string
	}{
		{s.Slice < 0 || s.Slice > s.Duration, "slice", "must be above 0 and at most the measured phase's {duration}"},
		{s.RoundsAuto == (s.Rounds != 0), "rounds", "give auto or a number of rounds"},
		{!s.RoundsAuto && (s.Rounds < MinRounds || s.Rounds > MaxRoundsCap), "rounds",
			fmt.Sprintf("must be auto or from %d to %d", MinRounds, MaxRoundsCap)},
		{s.Repeat != 1 || s.RepeatAuto, "repeat", "an interleaved schedule repeats every cell once a round; give {rounds} instead"},
		{s.Strategy == StrategyHalving && s.MaxRounds() <= FirstRung, "rounds",
			fmt.Sprintf("halving on interleaved rounds drops targets after round %d at the earliest; give more {rounds} (or a longer {duration} with auto), or drop {strategy}", FirstRung)},
		{s.FindLimit != nil, "find_limit", "searches one target's limit at a time; drop it with {schedule} interleaved"},
		{s.Parallel > 0, "parallel", "lanes run one target per node; drop it with {schedule} interleaved"},
		{s.Precision > 0, "precision", "the rounds, not the steady-state rule, say how long a cell is measured; drop it with {schedule} interleaved"},
		{s.Order != "" && s.Order != OrderGrid, "order", "orders a sequential run; an interleaved one draws each round's order from {seed}"},
		{s.Control != "", "control", "the rounds are an interleaved run's noise, no control cell runs; drop it"},
		{len(s.Variants) > 0, "variants", "each variant is a stack of its own; an interleaved run starts its targets on one stack"},
		{s.PoolTarget().Service != "", "pool_env", "a pool in another service is one setting for every target; an interleaved run needs the pool in the target"},
	}
	for _, c := range checks {
		if c.bad {
			return BadInput(c.flag, "%s", c.msg)
		}
	}
	for _, a := range s.Axes {
		if a.Service != "" {
			return BadInput("axes", "%s sets another service, which every target of an interleaved run shares; give axes of the target only", a.Key())
		}
	}
	return nil
}

// TargetGroup is the targets of one CPU limit (and one slice of the extra
// axes) that run at once: every distinct cell of that limit, or, when
// their pools together ask for more connections than the database
// allows, a part of them (see Groups).
type TargetGroup struct {
	// Index numbers the groups of a run from 1, in plan order.
	Index int
	CPUs  float64
	// Slice is the cells' values of the extra axes (CellInfo.Slice).
	Slice string
	Cells []Cell
	// Conns is the connections the group's pools open together, held
	// idle while another target has the load.
	Conns int
	// Part and Parts, when Parts > 1, say that the connection limit split
	// the limit's targets: this group is part Part of Parts.
	Part, Parts int
}

// Groups splits cells (in plan order) into the groups of targets that
// run at once: one per CPU limit and slice, each split into consecutive
// parts whose pools (shape.Conns) fit into allowed connections together
// (allowed ≤ 0: no limit known, no split). A cell whose pool alone is over
// the limit gets a group of its own: the connection-limit guard
// (CheckConnLimits) refuses, skips or flags it as in a sequential run.
func Groups(cells []Cell, shape PoolShape, allowed int) []TargetGroup {
	type key struct {
		cpus  float64
		slice string
	}
	var keys []key
	byKey := map[key][]Cell{}
	for _, c := range cells {
		k := key{c.CPUs, c.Info().Slice()}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], c)
	}
	var out []TargetGroup
	for _, k := range keys {
		var parts []TargetGroup
		for _, c := range byKey[k] {
			need := shape.Conns(c.DBPool, c.WebThreads)
			n := len(parts)
			if n == 0 || allowed > 0 && parts[n-1].Conns+need > allowed {
				parts = append(parts, TargetGroup{CPUs: k.cpus, Slice: k.slice})
				n++
			}
			parts[n-1].Cells = append(parts[n-1].Cells, c)
			parts[n-1].Conns += need
		}
		for i := range parts {
			if len(parts) > 1 {
				parts[i].Part, parts[i].Parts = i+1, len(parts)
			}
			parts[i].Index = len(out) + 1
			out = append(out, parts[i])
		}
	}
	return out
}

// Split says, when the connection limit split the groups, which CPU
// limits ran in how many parts; "" when none was split.
func Split(groups []TargetGroup, allowed int) string {
	var parts []string
	for _, g := range groups {
		if g.Part == 1 {
			what := FormatNumber(g.CPUs) + " CPUs"
			if g.Slice != "" {
				what += " (" + g.Slice + ")"
			}
			parts = append(parts, fmt.Sprintf("%s in %d groups", what, g.Parts))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("the targets' pools together ask for more than the %d connections allowed, so they run in groups that fit: %s; "+
		"cells of different groups are not paired round by round", allowed, strings.Join(parts, ", "))
}

// RoundOrder is the order in which round (from 1) of group (its Index)
// gives its n targets their slices: a permutation of 0..n-1 drawn from
// seed, the group and the round alone, so a resumed run replays the order
// its sweep.json's seed drew.
func RoundOrder(seed uint64, group, round, n int) []int {
	r := rand.New(rand.NewPCG(seed, uint64(group)<<32|uint64(round)))
	return r.Perm(n)
}

// Round is round k (from 1) of group g as jobs in the order the targets
// get their slices: job i is the cell's k-th repetition (cells/<id>/r<k>),
// its record's LoadSlice saying where it stood.
func (g TargetGroup) Round(seed uint64, k int) []Job {
	order := RoundOrder(seed, g.Index, k, len(g.Cells))
	jobs := make([]Job, len(order))
	for i, o := range order {
		jobs[i] = Job{Cell: g.Cells[o], Rep: k, Slice: &results.LoadSlice{
			Group: g.Index, Round: k, Position: i + 1, Targets: len(g.Cells)}}
	}
	return jobs
}

// interleavedEstimate prices an interleaved run of s's cells: per target
// its start (CellOverhead), its warm-up and up to MaxRounds slices, and
// the stack's start and stop once. Every target gets at most the measured
// phase's duration of load with rounds auto, so the run costs the same
// wall time as the sequential run of the same grid, less its control
// cells, which it does not measure.
func (s Spec) interleavedEstimate(cells int) Estimate {
	rounds := s.MaxRounds()
	e := Estimate{Jobs: cells, Levels: 1, Rounds: rounds, Slices: cells * rounds}
	e.PerJob = CellOverhead + s.Warmup.Std() + time.Duration(rounds)*s.SliceLength()
	e.Total = time.Duration(cells)*e.PerJob + StackOverhead
	return e
}
