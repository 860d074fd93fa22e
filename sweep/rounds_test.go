package sweep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// fakeTargets is a stack that runs several targets at once, in memory:
// each answers at the answering URL (with the target's name as its path,
// so the driver's requests say which one the load went to).
type fakeTargets struct {
	fakeStack
	mu      sync.Mutex
	groups  [][]string // the cells of each StartTargets call
	targets map[string]*fakeTarget
	down    []string
	// failAt, from 1, makes StartTargets fail at that target of every
	// group, returning those it started before; refuse makes it refuse
	// every group with this error.
	failAt int
	refuse error
}

func (f *fakeTargets) StartTargets(_ context.Context, cfgs []TargetConfig) ([]Target, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refuse != nil {
		return nil, f.refuse
	}
	if f.targets == nil {
		f.targets = map[string]*fakeTarget{}
	}
	var cells []string
	out := make([]Target, len(cfgs))
	for i, cfg := range cfgs {
		if i+1 == f.failAt {
			f.groups = append(f.groups, cells)
			return out[:i], errors.New("port already allocated")
		}
		id := cfg.Labels[LabelCell]
		t := &fakeTarget{stack: f, cfg: cfg, started: time.Unix(int64(len(f.groups)), 0)}
		f.targets[id], out[i] = t, t
		cells = append(cells, id)
	}
	f.groups = append(f.groups, cells)
	return out, nil
}

// running lists the targets started and not removed.
func (f *fakeTargets) running() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, g := range f.groups {
		for _, id := range g {
			out = append(out, id)
		}
	}
	for _, id := range f.down {
		if i := slices.Index(out, id); i >= 0 {
			out = slices.Delete(out, i, i+1)
		}
	}
	return out
}

type fakeTarget struct {
	stack   *fakeTargets
	cfg     TargetConfig
	mu      sync.Mutex
	started time.Time
	watch   *fakeWatch
}

func (t *fakeTarget) URL() string                                    { return answering.URL + "/" + t.cfg.Labels[LabelCell] }
func (t *fakeTarget) WaitReady(context.Context, time.Duration) error { return nil }
func (t *fakeTarget) Logs(context.Context, int) (string, error)      { return "", nil }
func (t *fakeTarget) ReadBack(context.Context) (results.Applied, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return results.Applied{CPUs: t.cfg.CPUs, Env: t.cfg.Env, ContainerID: "t-" + t.cfg.Labels[LabelCell],
		ContainerStartedAt: t.started}, nil
}
func (t *fakeTarget) Watch(context.Context) (StackWatch, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.watch = &fakeWatch{changed: make(chan struct{})}
	return t.watch, nil
}
func (t *fakeTarget) Down(context.Context) error {
	t.stack.mu.Lock()
	defer t.stack.mu.Unlock()
	t.stack.down = append(t.stack.down, t.cfg.Labels[LabelCell])
	return nil
}

// restart restarts the target's process, as a kill the engine restarts
// does: its watch sees it, its start time moves on.
func (t *fakeTarget) restart() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.started = t.started.Add(time.Hour)
	t.watch.fire(results.StackEvent{Service: "app", Action: "restart", At: time.Now()})
}

// sliceDriver records the URL of every measured slice, and calls on(n,
// req) for the n-th (from 1) before it answers.
type sliceDriver struct {
	urls []string
	on   func(ctx context.Context, n int, req LoadRequest) error
}

func (d *sliceDriver) Name() string { return "fake" }
func (d *sliceDriver) Run(ctx context.Context, req LoadRequest) (results.Measurement, error) {
	if req.Warmup {
		return results.Measurement{}, nil
	}
	d.urls = append(d.urls, req.BaseURL)
	if d.on != nil {
		if err := d.on(ctx, len(d.urls), req); err != nil {
			return results.Measurement{}, err
		}
	}
	return results.Measurement{Requests: 100, RPS: 10, DurationS: req.Duration.Seconds(), LatencyMS: results.Latency{P99: 5}}, nil
}

// roundsSpec is testSpec interleaved: 4 cells in 2 groups (one per CPU
// limit), 3 rounds of 1 s slices.
func roundsSpec() Spec {
	s := testSpec()
	s.Schedule, s.Rounds, s.Slice, s.Seed = ScheduleInterleaved, 3, Duration(time.Second), 5
	return s
}

// slice reads cell's record of round k.
func slice(t *testing.T, dir, cell string, k int) results.Record {
	t.Helper()
	rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, cell, k), results.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestInterleavedRunsEveryRound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stack, driver := &fakeTargets{}, &sliceDriver{}
	r := &Runner{Spec: roundsSpec(), Dir: dir, Stack: stack, Driver: driver}
	sum, err := r.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Records) != 12 || sum.Failed() != 0 {
		t.Fatalf("%d records, %d failed; want 12 ok", len(sum.Records), sum.Failed())
	}
	want := [][]string{{"cpu_1__web_1__db_2", "cpu_1__web_2__db_4"}, {"cpu_2__web_2__db_4", "cpu_2__web_4__db_8"}}
	if !slices.EqualFunc(stack.groups, want, slices.Equal) {
		t.Errorf("targets started %v, want %v", stack.groups, want)
	}
	if left := stack.running(); len(left) != 0 {
		t.Errorf("targets left running: %v", left)
	}
	groups := Groups(r.Spec.Cells(), r.Spec.PoolShape(1), 0)
	var urls []string
	for _, g := range groups {
		for k := 1; k <= 3; k++ {
			for i, job := range g.Round(5, k) {
				urls = append(urls, answering.URL+"/"+job.Cell.ID)
				rec := slice(t, dir, job.Cell.ID, k)
				s := rec.LoadSlice
				if rec.Status != results.StatusOK || s == nil || s.Group != g.Index || s.Round != k || s.Position != i+1 || s.Targets != 2 {
					t.Errorf("%s round %d: %s %s, slice %+v", job.Cell.ID, k, rec.Status, rec.Reason, s)
				}
				if other := g.Conns - job.Cell.DBPool; s != nil && s.IdleConns != other {
					t.Errorf("%s: idle connections %d, want the other target's pool %d", job.Cell.ID, s.IdleConns, other)
				}
			}
		}
	}
	if !slices.Equal(driver.urls, urls) {
		t.Errorf("slices went to\n%v\nwant the rounds' orders\n%v", driver.urls, urls)
	}
}

// TestInterleavedTargetKilledMidSlice: a target whose process restarts
// during its slice fails that slice and its later ones (its process is
// not the one read back); the other target's slices, the same rounds',
// go on.
func TestInterleavedTargetKilledMidSlice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stack := &fakeTargets{}
	spec := roundsSpec()
	spec.CPUs = []float64{1}
	killed := ""
	driver := &sliceDriver{on: func(ctx context.Context, n int, req LoadRequest) error {
		if n != 3 { // the first slice of round 2
			return nil
		}
		for id, tg := range stack.targets {
			if tg.URL() == req.BaseURL {
				killed = id
				tg.restart()
			}
		}
		<-ctx.Done() // the watch stops the load
		return ctx.Err()
	}}
	r := &Runner{Spec: spec, Dir: dir, Stack: stack, Driver: driver}
	sum, err := r.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed() != 2 {
		t.Errorf("%d slices failed, want the killed target's rounds 2 and 3", sum.Failed())
	}
	for _, c := range spec.Cells() {
		for k := 1; k <= 3; k++ {
			rec := slice(t, dir, c.ID, k)
			wantOK := c.ID != killed || k == 1
			if (rec.Status == results.StatusOK) != wantOK {
				t.Errorf("%s round %d: %s (%s); killed %s", c.ID, k, rec.Status, rec.Reason, killed)
			}
		}
	}
	if rec := slice(t, dir, killed, 2); len(rec.Events) != 1 || rec.Events[0].Action != "restart" {
		t.Errorf("the killed slice's events: %+v", rec.Events)
	}
	if len(stack.running()) != 0 {
		t.Errorf("targets left running: %v", stack.running())
	}
}

// TestInterleavedInterruptedResumes: Ctrl-C in the middle of a round
// leaves no target running; the resume runs that round again whole and
// the rounds after it, not the finished ones.
func TestInterleavedInterruptedResumes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := roundsSpec()
	spec.CPUs = []float64{1}
	ctx, cancel := context.WithCancel(t.Context())
	stack := &fakeTargets{}
	driver := &sliceDriver{on: func(ctx context.Context, n int, _ LoadRequest) error {
		if n == 4 { // the second slice of round 2
			cancel()
			return ctx.Err()
		}
		return nil
	}}
	r := &Runner{Spec: spec, Dir: dir, Stack: stack, Driver: driver}
	if _, err := r.Run(ctx); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Run = %v, want ErrInterrupted", err)
	}
	if len(stack.running()) != 0 {
		t.Errorf("targets left running after Ctrl-C: %v", stack.running())
	}
	second := Groups(spec.Cells(), spec.PoolShape(1), 0)[0].Round(5, 2)[1].Cell.ID
	if rec := slice(t, dir, second, 2); rec.Status != results.StatusInterrupted {
		t.Errorf("the interrupted slice: %s", rec.Status)
	}
	before := slice(t, dir, spec.Cells()[0].ID, 1).StartedAt
	again := &sliceDriver{}
	r2 := &Runner{Spec: spec, Dir: dir, Stack: &fakeTargets{}, Driver: again}
	sum, err := r2.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Records) != 4 || sum.Skipped != 3 || len(again.urls) != 4 {
		t.Errorf("resume: %d records, %d skipped, %d slices; want rounds 2 and 3 whole (4), round 1 (2) and round 2's first (1) done before",
			len(sum.Records), sum.Skipped, len(again.urls))
	}
	for _, c := range spec.Cells() {
		for k := 1; k <= 3; k++ {
			if rec := slice(t, dir, c.ID, k); rec.Status != results.StatusOK {
				t.Errorf("%s round %d after the resume: %s", c.ID, k, rec.Status)
			}
		}
	}
	if after := slice(t, dir, spec.Cells()[0].ID, 1).StartedAt; !after.Equal(before) {
		t.Error("the resume ran round 1 again")
	}
}

// TestInterleavedGuardRefusesBeforeAnyTarget: a cell whose pool alone is
// over the connection limit stops the run before a target starts, as in
// a sequential run; nothing is recorded.
func TestInterleavedGuardRefusesBeforeAnyTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stack := &fakeTargets{}
	r := &Runner{Spec: roundsSpec(), Dir: dir, Stack: stack, Driver: &sliceDriver{},
		Limits: limitsOf(ConnLimits{MaxConnections: 10, SuperuserReserved: 3, InUse: 1})} // 6 allowed; pool 8 is over
	_, err := r.Run(t.Context())
	var over *OverLimitError
	if !errors.As(err, &over) || !errors.Is(err, ErrBadInput) || len(over.Cells) != 1 {
		t.Fatalf("Run = %v, want the guard's refusal of one cell", err)
	}
	if len(stack.groups) != 0 {
		t.Errorf("targets started: %v", stack.groups)
	}
	if _, err := os.Stat(filepath.Join(dir, results.CellsDir)); !os.IsNotExist(err) {
		t.Errorf("records written: %v", err)
	}
}

// TestInterleavedGroupsFitTheLimit: targets whose pools together are over
// the connection limit run in groups that fit; a cell over it alone is
// skipped with --over-limit skip, every round's slice recorded so.
func TestInterleavedGroupsFitTheLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stack := &fakeTargets{}
	spec := roundsSpec()
	spec.OverLimit = OverLimitSkip
	r := &Runner{Spec: spec, Dir: dir, Stack: stack, Driver: &sliceDriver{},
		Limits: limitsOf(ConnLimits{MaxConnections: 11, SuperuserReserved: 3, InUse: 1})} // 7 allowed
	if _, err := r.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"cpu_1__web_1__db_2", "cpu_1__web_2__db_4"}, {"cpu_2__web_2__db_4"}}
	if !slices.EqualFunc(stack.groups, want, slices.Equal) {
		t.Errorf("targets started %v, want %v", stack.groups, want)
	}
	for k := 1; k <= 3; k++ {
		if rec := slice(t, dir, "cpu_2__web_4__db_8", k); rec.Status != results.StatusSkipped {
			t.Errorf("round %d of the cell over the limit: %s", k, rec.Status)
		}
		if rec := slice(t, dir, "cpu_2__web_2__db_4", k); rec.LoadSlice.Targets != 1 || rec.LoadSlice.IdleConns != 0 {
			t.Errorf("round %d of the lone target: %+v", k, rec.LoadSlice)
		}
	}
}

// TestInterleavedNeedsTargets: a backend that runs one target at a time
// refuses the schedule as bad input naming it.
func TestInterleavedNeedsTargets(t *testing.T) {
	t.Parallel()
	r := &Runner{Spec: roundsSpec(), Dir: t.TempDir(), Stack: &fakeStack{}, Driver: &sliceDriver{}}
	if _, err := r.Run(t.Context()); badField(err) != "schedule" {
		t.Errorf("Run = %v, want bad input of schedule", err)
	}
}

// TestInterleavedTargetsThatDoNotStart: targets that could not start
// fail their group's slices, what did start is removed again, and the
// next group goes on.
func TestInterleavedTargetsThatDoNotStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stack := &fakeTargets{failAt: 2}
	r := &Runner{Spec: roundsSpec(), Dir: dir, Stack: stack, Driver: &sliceDriver{}}
	sum, err := r.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed() != 12 || len(stack.running()) != 0 {
		t.Errorf("%d of 12 slices failed, left running %v", sum.Failed(), stack.running())
	}
	if rec := slice(t, dir, "cpu_2__web_4__db_8", 3); !strings.Contains(rec.Reason, "port already allocated") {
		t.Errorf("reason %q", rec.Reason)
	}
}

// TestInterleavedRoundsAutoStop: with rounds auto a group's rounds stop
// once EnoughRounds says so (never before MinRounds), and a resume owes
// none after.
func TestInterleavedRoundsAutoStop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := roundsSpec()
	spec.CPUs, spec.Rounds, spec.RoundsAuto = []float64{1}, 0, true
	spec.Duration = Duration(5 * time.Second) // 5 rounds of 1 s at most
	asked := 0
	r := &Runner{Spec: spec, Dir: dir, Stack: &fakeTargets{}, Driver: &sliceDriver{},
		EnoughRounds: func(TargetGroup) bool { asked++; return asked == 2 }}
	sum, err := r.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Records) != 6 || asked != 2 {
		t.Errorf("%d slices, asked %d times; want 3 rounds of 2 (asked after rounds 2 and 3)", len(sum.Records), asked)
	}
	if _, err := os.Stat(filepath.Join(results.CellDir(dir, spec.Cells()[0].ID, 4), results.ResultFile)); !os.IsNotExist(err) {
		t.Errorf("round 4 ran (%v)", err)
	}
	again := &sliceDriver{}
	r2 := &Runner{Spec: spec, Dir: dir, Stack: &fakeTargets{}, Driver: again}
	if _, err := r2.Run(t.Context()); err != nil || len(again.urls) != 0 {
		t.Errorf("resume: %v, %d slices; want none owed", err, len(again.urls))
	}
}

// TestInterleavedPlatformRefuses: a group the platform refuses as bad
// input (its targets' memory over the engine's) stops the run as bad
// input, nothing measured.
func TestInterleavedPlatformRefuses(t *testing.T) {
	t.Parallel()
	r := &Runner{Spec: roundsSpec(), Dir: t.TempDir(), Stack: &fakeTargets{refuse: BadInput("memory", "too much")},
		Driver: &sliceDriver{}}
	sum, err := r.Run(t.Context())
	if badField(err) != "memory" || len(sum.Records) != 0 {
		t.Errorf("Run = %d records, %v; want bad input of memory and none", len(sum.Records), err)
	}
}
