package sweep

// The runner of the interleaved schedule (interleave.go has its pure
// parts). Once the stack's services are up and the connection limits
// read, each group of targets (Groups: a CPU limit's cells, split where
// their pools together are over the limit) is started at once through
// the backend's Targets, each target waited for, read back and checked,
// the database reset once and every target warmed up in turn; then each
// round gives every target one slice of load in the round's order
// (TargetGroup.Round) while the others idle, and the group's targets are
// removed before the next group starts. A slice is measured as a cell's
// repetition is (the target read back again, the watch, the samplers, the
// proof of delivery, the error bound), on its target: a target that
// restarted fails its own slices, never the round. A round is the unit of
// a resume: a round some of whose slices have no finished record runs
// again whole, on a group started anew.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// runInterleaved runs every group's rounds that are not done. Its errors
// are Run's.
func (r *Runner) runInterleaved(ctx context.Context) (Summary, error) {
	var sum Summary
	ts, ok := r.Stack.(Targets)
	if !ok {
		return sum, BadInput("schedule", "%s needs a backend that runs several targets at once; this one runs the sequential schedule only", ScheduleInterleaved)
	}
	cells, rounds := r.Spec.Cells(), r.Spec.MaxRounds()
	var todo []TargetGroup
	for _, g := range Groups(cells, r.Spec.PoolShape(r.Replicas), 0) {
		if len(r.owedRounds(g, rounds)) > 0 {
			todo = append(todo, g)
		}
	}
	done := 0
	for _, c := range cells {
		for k := 1; k <= rounds; k++ {
			if r.doneSlice(c, k) {
				done++
			}
		}
	}
	sum.Skipped = done
	if r.Progress != nil {
		r.Progress.Begin(len(cells)*rounds, done)
	}
	r.logf("interleaved: %d targets × %d rounds, %d slices already done", len(cells), rounds, done)
	if len(todo) == 0 {
		return sum, nil
	}
	r.current = r.Stack
	r.pending = Schedule(cells, 1, OrderGrid, 0) // what the connection-limit guard checks
	first := Job{Cell: cells[0], Rep: 1}
	start := r.newRecord(first.Cell, 1)
	if err := r.startDeps(ctx, first, r.Stack, r.targetConfig(first.Cell, results.GroupDir(r.Dir, 1)), &start); err != nil {
		switch {
		case r.abort != nil:
			return sum, r.abort
		case ctx.Err() != nil:
			return sum, ErrInterrupted
		}
		return sum, err
	}
	groups := r.limitGroups(cells)
	if err := r.skipOverLimit(ctx, cells, rounds, &sum); err != nil {
		return sum, err
	}
	for _, g := range groups {
		if len(r.owedRounds(g, rounds)) == 0 {
			continue
		}
		if err := r.runGroup(ctx, ts, g, rounds, &sum); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// limitGroups are the groups of cells that fit the connection limit read
// at the first start (none read: one group per CPU limit and slice),
// without the cells the guard skips; the split is logged, and the cells
// skipped recorded so for every round.
func (r *Runner) limitGroups(cells []Cell) []TargetGroup {
	allowed := 0
	if r.limits != nil {
		allowed, _ = r.limits.Allowed()
	}
	run := slices.DeleteFunc(slices.Clone(cells), func(c Cell) bool {
		_, over := r.overLimit[c.ID]
		return over && r.Spec.OverLimit == OverLimitSkip
	})
	groups := Groups(run, r.Spec.PoolShape(r.Replicas), allowed)
	if msg := Split(groups, allowed); msg != "" {
		r.logf("%s", msg)
	}
	return groups
}

// skipOverLimit records the slices of every cell the guard skips as
// skipped, each round's.
func (r *Runner) skipOverLimit(ctx context.Context, cells []Cell, rounds int, sum *Summary) error {
	if r.Spec.OverLimit != OverLimitSkip {
		return nil
	}
	for _, c := range cells {
		o, over := r.overLimit[c.ID]
		for k := 1; over && k <= rounds; k++ {
			if r.doneSlice(c, k) {
				continue
			}
			job := Job{Cell: c, Rep: k}
			rec := r.newRecord(c, k)
			dir := job.Dir(r.Dir)
			if err := results.MakeDir(dir); err != nil {
				rec = r.finish(ctx, &rec, dir, err)
			} else {
				rec = r.finish(ctx, &rec, dir, errSkipped{o})
			}
			sum.Records = append(sum.Records, rec)
			if r.lost != nil {
				return r.lost
			}
		}
	}
	return nil
}

// owedRounds are the rounds of g (of rounds) some slice of which has no
// finished record, up to the round after which it stopped (rounds auto),
// each round's slices those of the targets no recorded rung dropped
// before it (a rungs file it cannot read counts as none: runGroup says
// what is wrong with it).
func (r *Runner) owedRounds(g TargetGroup, rounds int) []int {
	if stop := r.stoppedAfter(g); stop > 0 {
		rounds = min(rounds, stop)
	}
	cuts, _ := r.readCuts(g)
	shape := r.Spec.PoolShape(r.Replicas)
	var owed []int
	for k := 1; k <= rounds; k++ {
		if slices.ContainsFunc(inPlay(g, cuts, k, shape).Cells, func(c Cell) bool { return !r.doneSlice(c, k) }) {
			owed = append(owed, k)
		}
	}
	return owed
}

// doneSlice reports whether cell's slice of round k has a finished record.
func (r *Runner) doneSlice(c Cell, k int) bool {
	return done(results.CellDir(r.Dir, c.ID, k), r.RetryFailed)
}

// groupTarget is one started target of a group: what was read back of
// it, or why its slices fail.
type groupTarget struct {
	Target
	cfg     TargetConfig
	applied results.Applied
	broken  error
}

// runGroup starts g's targets still in play, readies and warms them up,
// runs the rounds owed of rounds (with halving, deciding each rung and
// stopping the targets it drops) and removes the targets again (also
// after Ctrl-C).
func (r *Runner) runGroup(ctx context.Context, ts Targets, g TargetGroup, rounds int, sum *Summary) error {
	dir := results.GroupDir(r.Dir, g.Index)
	if err := results.MakeDir(dir); err != nil {
		return err
	}
	cuts, err := r.settleCuts(g, rounds)
	if err != nil {
		return err
	}
	owed := r.owedRounds(g, rounds)
	if len(owed) == 0 {
		return nil
	}
	shape := r.Spec.PoolShape(r.Replicas)
	start := inPlay(g, cuts, owed[0], shape)
	r.logf("group %d: %s CPUs, %d targets (%d connections), rounds %v", g.Index, FormatNumber(g.CPUs), len(start.Cells), start.Conns, owed)
	targets := make([]*groupTarget, len(start.Cells))
	cfgs := make([]TargetConfig, len(start.Cells))
	for i, c := range start.Cells {
		cfgs[i] = r.targetConfig(c, dir)
		targets[i] = &groupTarget{cfg: cfgs[i]}
	}
	started, err := BoundedGet(ctx, r.call("start targets", 0, OfCallTimeout), func(ctx context.Context) ([]Target, error) {
		return ts.StartTargets(ctx, cfgs)
	})
	live := slices.Clone(started) // nil where a rung stopped the target
	defer func() { r.downTargets(ctx, slices.DeleteFunc(live, func(t Target) bool { return t == nil })) }()
	if err == nil && len(started) != len(cfgs) {
		err = fmt.Errorf("%d targets started for %d cells", len(started), len(cfgs))
	}
	if err != nil {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		if errors.Is(err, ErrBadInput) { // the plan asks what the platform cannot give
			r.logf("group %d: %v", g.Index, err)
			return err
		}
		for _, t := range targets {
			t.broken = fmt.Errorf("start targets: %w", err)
		}
	} else {
		for i, t := range started {
			targets[i].Target = t
		}
		r.readyTargets(ctx, start, targets)
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		if r.TargetsUp != nil && !r.targetsUp {
			r.targetsUp = true
			if err := r.TargetsUp(ctx); err != nil {
				r.logf("group %d: %v", g.Index, err)
			}
		}
	}
	for _, k := range owed {
		play := inPlay(g, cuts, k, shape)
		for _, job := range play.Round(r.Spec.Seed, k) {
			i := slices.IndexFunc(start.Cells, func(c Cell) bool { return c.ID == job.Cell.ID })
			job.Slice.IdleConns = play.Conns - shape.Conns(job.Cell.DBPool, job.Cell.WebThreads)
			job.Fidelity = &Fidelity{Duration: r.Spec.SliceLength()}
			rec := r.runSlice(ctx, job, targets[i])
			sum.Records = append(sum.Records, rec)
			if r.Progress != nil {
				r.Progress.Done(job, rec)
			}
			if err := r.afterJob(ctx, rec, sum); err != nil {
				return err
			}
		}
		r.logf("group %d: round %d done", g.Index, k)
		if r.enough(g, k) {
			return r.stopRounds(g, k, "the picks' intervals are apart")
		}
		if !slices.Contains(r.rungs(g), k) {
			continue
		}
		if cuts, err = r.cutAfter(g, play, k, cuts); err != nil {
			return err
		}
		for _, id := range cuts[len(cuts)-1].Drop {
			i := slices.IndexFunc(start.Cells, func(c Cell) bool { return c.ID == id })
			if i < len(live) && live[i] != nil {
				r.downTargets(ctx, live[i:i+1]) // its memory and connections go back to the host
				live[i] = nil
			}
		}
		if left := len(inPlay(g, cuts, k+1, shape).Cells); left <= 1 && k < rounds {
			// a round of one target pairs with nothing: the pick is apart
			return r.stopRounds(g, k, "one target is left in play, apart from every other")
		}
	}
	return nil
}

// RoundsFile, in a group's folder (results.GroupDir), says after which
// round its rounds stopped with rounds auto: a resume owes none after it.
const RoundsFile = "rounds.json"

// roundsStop is RoundsFile's content.
type roundsStop struct {
	StoppedAfter int    `json:"stopped_after"`
	Why          string `json:"why"`
}

// enough reports whether g's rounds stop after round k: rounds auto,
// from MinRounds on, a group the connection limit did not split, when
// EnoughRounds says so.
func (r *Runner) enough(g TargetGroup, k int) bool {
	return r.Spec.RoundsAuto && r.EnoughRounds != nil && k >= MinRounds && g.Parts <= 1 && k < r.Spec.MaxRounds() &&
		r.EnoughRounds(g)
}

// stopRounds records that g's rounds stopped after round k, and why.
func (r *Runner) stopRounds(g TargetGroup, k int, why string) error {
	r.logf("group %d: %s after round %d; its rounds stop", g.Index, why, k)
	return results.WriteJSONAtomic(filepath.Join(results.GroupDir(r.Dir, g.Index), RoundsFile),
		roundsStop{StoppedAfter: k, Why: why})
}

// stoppedAfter is the round after which g's rounds stopped (0: they did
// not).
func (r *Runner) stoppedAfter(g TargetGroup) int {
	if !r.Spec.RoundsAuto && !r.Spec.HalvingRounds() {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(results.GroupDir(r.Dir, g.Index), RoundsFile))
	var stop roundsStop
	if err != nil || json.Unmarshal(b, &stop) != nil {
		return 0
	}
	return stop.StoppedAfter
}

// readyTargets waits for each target, reads it back and checks it,
// sends its URL one request, resets the database once and warms each
// target up in turn; a target that fails any of these is broken (its
// slices fail), the others go on.
func (r *Runner) readyTargets(ctx context.Context, g TargetGroup, targets []*groupTarget) {
	ready := r.Spec.ReadyTimeout.Std()
	for _, t := range targets {
		t.broken = r.readyTarget(ctx, t, ready)
	}
	if r.Reset != nil && ctx.Err() == nil {
		if err := Bounded(ctx, r.call("db reset", 0, OfCallTimeout), r.Reset); err != nil {
			for _, t := range targets {
				t.broken = firstErr(t.broken, fmt.Errorf("db reset: %w", err))
			}
		}
	}
	if r.Spec.Warmup <= 0 {
		return
	}
	for i, t := range targets {
		if t.broken != nil || ctx.Err() != nil {
			continue
		}
		cell := g.Cells[i]
		r.logf("%s: warm-up for %s", cell.ID, r.Spec.Warmup.Std())
		req := LoadRequest{BaseURL: t.URL(), Load: r.Spec.LoadFor(cell, r.Driver.Name()), Dir: t.cfg.Dir,
			Warmup: true, Duration: r.Spec.Warmup.Std()}
		if _, err := r.runLoad(ctx, "warm-up load", req); err != nil {
			t.broken = fmt.Errorf("warm-up: %w", err)
		}
	}
}

// readyTarget waits until t is ready, reads it back and checks what the
// engine applied, and sends its URL one request.
func (r *Runner) readyTarget(ctx context.Context, t *groupTarget, ready time.Duration) error {
	err := Bounded(ctx, r.call("ready wait", ready, OfReadyTimeout), func(ctx context.Context) error { return t.WaitReady(ctx, ready) })
	if err != nil {
		return fmt.Errorf("ready: %w", err)
	}
	t.applied, err = BoundedGet(ctx, r.call("read back", 0, OfCallTimeout), t.ReadBack)
	t.applied.ServiceEnv = t.cfg.ServiceEnv
	if err == nil {
		err = checkApplied(t.cfg, t.applied, r.sweptEnv())
	}
	if err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	probe := Probe
	if p, ok := t.Target.(URLProber); ok { // reached inside a cluster, as the load reaches it
		probe = p.ProbeURL
	}
	err = Bounded(ctx, r.call("URL probe", 0, OfCallTimeout), func(ctx context.Context) error { return probe(ctx, t.URL()) })
	if err != nil {
		return fmt.Errorf("the target's URL %s: %w", t.URL(), err)
	}
	return nil
}

// firstErr is the first error that is not nil.
func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// downTargets removes the targets, also after Ctrl-C.
func (r *Runner) downTargets(ctx context.Context, targets []Target) {
	for _, t := range targets {
		if err := Bounded(context.WithoutCancel(ctx), DownCall(r.Spec.Service), t.Down); err != nil {
			r.logf("remove a target: %v", err)
		}
	}
}

// runSlice measures job's slice on t as measure does a cell (without the
// warm-up, which the group had, and the database reset, done once per
// group) and writes its record.
func (r *Runner) runSlice(ctx context.Context, job Job, t *groupTarget) results.Record {
	dir := job.Dir(r.Dir)
	rec := r.newRecord(job.Cell, job.Rep)
	rec.LoadSlice, rec.Applied = job.Slice, t.applied
	r.logf("%s %s: slice %d of round %d", job.Cell.ID, job.Label(), job.Slice.Position, job.Slice.Round)
	if err := results.MakeDir(dir); err != nil {
		return r.finish(ctx, &rec, dir, err)
	}
	if t.broken != nil {
		return r.finish(ctx, &rec, dir, t.broken)
	}
	if err := r.overLimitCell(job.Cell, &rec); err != nil {
		return r.finish(ctx, &rec, dir, err)
	}
	restore := r.onTarget(t)
	defer restore()
	return r.finish(ctx, &rec, dir, r.measure(ctx, job, dir, &rec))
}

// onTarget points the runner's stack, URL and samplers at t for one
// slice; the function it returns points them back.
func (r *Runner) onTarget(t *groupTarget) func() {
	current, url, monitor := r.current, r.url, r.Monitor
	r.current, r.url, r.Monitor = targetStack{t.Target}, t.URL(), nil
	if r.TargetMonitor != nil {
		r.Monitor = r.TargetMonitor(t.Target)
	}
	return func() { r.current, r.url, r.Monitor = current, url, monitor }
}

// errNotPerSlice is what a target asked to start as a stack says.
var errNotPerSlice = errors.New("a target of an interleaved group is started with its group")

// targetStack is one target as the runner's Stack during its slice.
type targetStack struct{ Target }

func (targetStack) StartDeps(context.Context, TargetConfig, time.Duration) error {
	return errNotPerSlice
}
func (targetStack) Apply(context.Context, TargetConfig) error { return errNotPerSlice }
