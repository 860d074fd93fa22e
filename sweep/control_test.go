package sweep

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// labels names a schedule's jobs: the cell's position in the plan (c1,
// c2, …) or K<seq> for a control.
func labels(jobs []Job) string {
	var out []string
	for _, j := range jobs {
		if j.Control > 0 {
			out = append(out, fmt.Sprint("K", j.Seq))
			continue
		}
		out = append(out, j.Cell.ID)
	}
	return strings.Join(out, " ")
}

func TestWithControlsPositions(t *testing.T) {
	t.Parallel()
	jobs := func(n int) []Job {
		out := make([]Job, n)
		for i := range out {
			out[i] = Job{Cell: Cell{ID: fmt.Sprint("c", i+1)}, Rep: 1}
		}
		return out
	}
	control := func(seq int) Job { return Job{Cell: Cell{ID: "ref"}, Control: 1, Seq: seq} }
	for _, tc := range []struct {
		name         string
		n, every, at int
		want         string
	}{
		{"nothing to do takes no control", 0, 3, 1, ""},
		{"one job: before it and twice after, three all the same", 1, 3, 1, "K1 c1 K2 K3"},
		{"two jobs: first, middle, last", 2, 10, 1, "K1 c1 K2 c2 K3"},
		{"every 2 of 4: the last one is the end", 4, 2, 1, "K1 c1 c2 K2 c3 c4 K3"},
		{"every 2 of 5: a short last stretch still ends with one", 5, 2, 1, "K1 c1 c2 K2 c3 c4 K3 c5 K4"},
		{"every 1", 3, 1, 1, "K1 c1 K2 c2 K3 c3 K4"},
		{"fewer jobs than every: one in the middle too", 3, 10, 1, "K1 c1 c2 K2 c3 K3"},
		{"a small grid: three, the middle one halfway", 8, 10, 1, "K1 c1 c2 c3 c4 K2 c5 c6 c7 c8 K3"},
		{"25 jobs every 10: three stretches of nearly equal length", 25, 10, 1,
			"K1 c1 c2 c3 c4 c5 c6 c7 c8 c9 K2 c10 c11 c12 c13 c14 c15 c16 c17 K3 c18 c19 c20 c21 c22 c23 c24 c25 K4"},
		{"numbered on after earlier controls", 3, 2, 4, "K4 c1 c2 K5 c3 K6"},
		{"off", 3, 0, 1, "c1 c2 c3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := labels(WithControls(jobs(tc.n), tc.every, tc.at, control))
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			spec := Spec{ControlEvery: tc.every}
			if n := strings.Count(got, "K"); n != spec.ControlCount(tc.n) {
				t.Errorf("%d controls scheduled, ControlCount (what sweep plan prices) says %d", n, spec.ControlCount(tc.n))
			}
		})
	}
}

// TestControlCountAndCost holds the default to the arithmetic its doc
// comment states: within 5 % of a 20- and a 100-job grid at the CLI's
// defaults, and 2 + M/N controls at most.
func TestControlCountAndCost(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.ControlEvery = DefaultControlEvery
	spec.Warmup, spec.Duration = Duration(30*time.Second), Duration(5*time.Minute)
	for _, tc := range []struct {
		name       string
		jobs, want int
	}{
		{"1 job: still three", 1, 3},
		{"5 jobs: still three", 5, 3},
		{"20 jobs", 20, 3},
		{"21 jobs", 21, 4},
		{"100 jobs", 100, 11},
		{"none", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := spec.ControlCount(tc.jobs)
			if got != tc.want {
				t.Errorf("%d controls, want %d", got, tc.want)
			}
			if tc.jobs < 20 {
				return
			}
			cell := CellOverhead + spec.Warmup.Std() + spec.Duration.Std()
			control := CellOverhead + spec.Warmup.Std() + RunControlDuration(spec.Duration.Std())
			if share := float64(got) * control.Seconds() / (float64(tc.jobs) * cell.Seconds()); share > 0.05 {
				t.Errorf("the controls take %.1f %% of the grid, more than 5 %%", 100*share)
			}
		})
	}
	for _, s := range []Spec{
		{ControlEvery: 10, Strategy: StrategyHalving},
		{ControlEvery: 10, Parallel: 2},
		{ControlEvery: 10, Parallel: 1},
		{ControlEvery: 10, FindLimit: &FindLimit{}},
		{ControlEvery: 0},
	} {
		if n := s.ControlCount(20); n != 0 {
			t.Errorf("%+v measures %d controls, want none", s, n)
		}
	}
}

// controlRecords reads the run's control folders of cell id, in order.
func controlRecords(t *testing.T, dir, id string) []results.Record {
	t.Helper()
	var out []results.Record
	for seq := 1; ; seq++ {
		rec, err := results.ReadRecord(filepath.Join(results.ControlSeqDir(dir, id, 1, seq), results.ResultFile))
		if err != nil {
			return out
		}
		out = append(out, rec)
	}
}

// TestRunnerControlsAndResume: a grid run measures its control cell at
// the start, every N jobs and at the end, filed apart from the cells; a
// run interrupted mid-way keeps the controls it measured and its resume
// numbers the next ones on, brackets its own stretch with a control, and
// measures the same control cell even when the schedule changed.
func TestRunnerControlsAndResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := testSpec()
	spec.ControlEvery = 2
	ctx, cancel := context.WithCancel(t.Context())
	// measured runs: K1 c1 c2 K2 c3 (interrupted)
	stack := &fakeStack{}
	r := &Runner{Spec: spec, Dir: dir, Stack: stack, Driver: &fakeDriver{cancel: cancel, at: 5}}
	sum, err := r.Run(ctx)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	mid, _ := spec.MiddleCell()
	ref, cells := mid.ID, spec.Cells()
	if ref != "cpu_2__web_4__db_8" {
		t.Fatalf("the control is %s, want the grid's middle cpu_2__web_4__db_8", ref)
	}
	if got := controlRecords(t, dir, ref); len(got) != 2 || got[0].ControlSeq != 1 || got[1].Control != 1 {
		t.Fatalf("controls after the interruption: %+v", got)
	}
	if sum.Records[0].Control != 1 || sum.Records[0].Cell.ID != ref || sum.Records[0].Repetition != 0 {
		t.Errorf("the first job is not the control of %s: %+v", ref, sum.Records[0])
	}
	// the control's target recreated for it and for the job after it,
	// as every job's is
	if want := []string{ref, cells[0].ID, cells[1].ID, ref, cells[2].ID}; !slices.Equal(stack.applied, want) {
		t.Errorf("applied %v, want %v", stack.applied, want)
	}

	spec.Order, spec.Seed = OrderShuffle, 7 // another first cell: the control stays
	r2 := &Runner{Spec: spec, Dir: dir, Stack: &fakeStack{}, Driver: &fakeDriver{}}
	sum2, err := r2.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rec := range sum2.Records {
		if rec.Control > 0 {
			got = append(got, fmt.Sprintf("%s K%d", rec.Cell.ID, rec.ControlSeq))
		}
	}
	// 2 cells left, every 2: one before them, one between, one after
	if want := []string{ref + " K3", ref + " K4", ref + " K5"}; !slices.Equal(got, want) {
		t.Errorf("the resume measured controls %v, want %v", got, want)
	}
	if sum2.Skipped != 2+2 {
		t.Errorf("the resume skipped %d jobs, want 2 cells and 2 controls", sum2.Skipped)
	}
	if n := len(controlRecords(t, dir, ref)); n != 5 {
		t.Errorf("%d controls on disk, want 5", n)
	}
	for _, c := range spec.Cells() {
		rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, c.ID, 1), results.ResultFile))
		if err != nil || rec.Status != results.StatusOK || rec.Control != 0 {
			t.Errorf("cell %s: %v %+v", c.ID, err, rec.Status)
		}
	}
}

func TestControlCellMustBeACell(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.ControlEvery, spec.Control = 2, "cpu_9__web_9__db_9"
	var bad *BadInputError
	if err := spec.Validate(); !errors.As(err, &bad) || bad.Field != "control" {
		t.Errorf("err = %v, want bad input of control", err)
	}
	spec.ControlEvery = -1
	spec.Control = ""
	if err := spec.Validate(); !errors.As(err, &bad) || bad.Field != "control_every" {
		t.Errorf("err = %v, want bad input of control_every", err)
	}
}

// failingControl fails the control cell's measurements (Job.Seq > 0).
type failingControl struct{ fakeDriver }

func (d *failingControl) Run(ctx context.Context, req LoadRequest) (results.Measurement, error) {
	if !req.Warmup && strings.HasSuffix(req.Dir, ".1") {
		return results.Measurement{}, errors.New("the control's database went away")
	}
	return d.fakeDriver.Run(ctx, req)
}

// TestFailedControlIsNoFailedCell: a control that fails is recorded as
// failed, but the run's cells are what --max-failures and the exit count.
func TestFailedControlIsNoFailedCell(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.ControlEvery, spec.MaxFailures = 2, 1
	r := &Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: &failingControl{}}
	sum, err := r.Run(t.Context())
	if err != nil {
		t.Fatalf("err = %v: a failed control stopped the run", err)
	}
	if sum.Failed() != 0 || sum.Records[0].Status != results.StatusFailed || sum.Records[0].ControlSeq != 1 {
		t.Errorf("failed %d, first record %s control %d", sum.Failed(), sum.Records[0].Status, sum.Records[0].ControlSeq)
	}
}

// TestMiddleCell: the default control is the cell at every axis's middle
// value (sorted, index n/2), whatever order the lists were given in.
func TestMiddleCell(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cpus, web, db []float64
		want          string
	}{
		{[]float64{1, 2}, []float64{1, 2, 4, 6, 8}, []float64{1, 2}, "cpu_2__web_8__db_16"},
		{[]float64{8, 2, 6, 4}, []float64{3, 1, 2.5, 1.5, 2}, []float64{1.5, 3, 2, 2.5}, "cpu_6__web_12__db_30"},
		{[]float64{4}, []float64{1}, []float64{2}, "cpu_4__web_4__db_8"},
	} {
		s := testSpec()
		s.CPUs, s.WebMult, s.DBMult = tc.cpus, tc.web, tc.db
		if c, ok := s.MiddleCell(); !ok || c.ID != tc.want {
			t.Errorf("%v × %v × %v: middle %q %v, want %q", tc.cpus, tc.web, tc.db, c.ID, ok, tc.want)
		}
	}
}
