package sweep

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

func TestCheckLoadRan(t *testing.T) {
	t.Parallel()
	closed := results.LoadInfo{Model: "closed", VUs: 20}
	open := results.LoadInfo{Model: "open", Rate: 20, VUs: 20, MaxVUs: 100}
	for _, tc := range []struct {
		name string
		want results.LoadInfo
		m    results.Measurement
		diff string // "" when the load ran as recorded
	}{
		{"closed as recorded", closed, results.Measurement{VUsMax: 20, DurationS: 10.02}, ""},
		{"graceful stop runs longer", closed, results.Measurement{VUsMax: 20, DurationS: 14.9}, ""},
		{"driver reports no VUs", closed, results.Measurement{DurationS: 10}, ""},
		{"nothing reported", closed, results.Measurement{}, ""},
		// what a script without options did before: k6's 1 VU, 1 iteration
		{"one VU, one iteration", closed, results.Measurement{VUsMax: 1, Iterations: 1, DurationS: 0.05},
			"1 VUs ran, the record states 20; the phase ran 0.05 s of the 10s asked"},
		{"more VUs", closed, results.Measurement{VUsMax: 30, DurationS: 10}, "30 VUs ran, the record states 20"},
		{"open grew within its bound", open, results.Measurement{VUsMax: 64, DurationS: 10}, ""},
		{"open above its bound", open, results.Measurement{VUsMax: 101, DurationS: 10}, "101 VUs ran, above the open model's bound of 100"},
		{"exactly 90 %", closed, results.Measurement{VUsMax: 20, DurationS: 9}, ""},
		{"far shorter", open, results.Measurement{VUsMax: 20, DurationS: 8.9}, "the phase ran 8.90 s of the 10s asked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := checkLoadRan(tc.want, 10*time.Second, tc.m)
			if tc.diff == "" {
				if err != nil {
					t.Errorf("error %v, want none", err)
				}
				return
			}
			if !errors.Is(err, ErrLoadDiffers) || !strings.HasSuffix(err.Error(), ": "+tc.diff) {
				t.Errorf("error %v, want ErrLoadDiffers: %s", err, tc.diff)
			}
		})
	}
}

// oneVUDriver reports what k6 ran for a script without options before
// sweep steered it: 1 VU, 1 iteration, over in a moment.
type oneVUDriver struct{ fakeDriver }

func (d *oneVUDriver) Run(ctx context.Context, req LoadRequest) (results.Measurement, error) {
	m, err := d.fakeDriver.Run(ctx, req)
	m.VUsMax, m.Iterations, m.DurationS = 1, 1, 0.04
	return m, err
}

// TestRunnerFailsALoadThatDiffers: such a cell is failed with the reason,
// not recorded ok under the load it did not run.
func TestRunnerFailsALoadThatDiffers(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.CPUs, spec.WebMult = []float64{1}, []float64{1}
	dir := t.TempDir()
	r := &Runner{Spec: spec, Dir: dir, Stack: &fakeStack{}, Driver: &oneVUDriver{}}
	sum, err := r.Run(t.Context())
	if err != nil || len(sum.Records) != 1 {
		t.Fatalf("run: %v, %d records", err, len(sum.Records))
	}
	rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, spec.Cells()[0].ID, 1), results.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != results.StatusFailed || !strings.Contains(rec.Reason, "1 VUs ran, the record states 3") ||
		rec.VUsMax != 1 || rec.Load.VUs != 3 {
		t.Errorf("status %s (%s), vus_max %d, load %+v; want failed naming 1 of 3 VUs", rec.Status, rec.Reason, rec.VUsMax, rec.Load)
	}
}

// TestDroppedWarningNamesTheCause: from the VUs the driver had and how
// long iterations took, the warning says whether the pre-allocated VUs,
// the VU bound or the target ran out.
func TestDroppedWarningNamesTheCause(t *testing.T) {
	t.Parallel()
	load := results.LoadInfo{Model: "open", Rate: 20, VUs: 2, MaxVUs: 100}
	fast := &results.Latency{Avg: 180, Min: 120, P50: 170}
	for _, tc := range []struct {
		name string
		load results.LoadInfo
		m    results.Measurement
		want string // after "N iterations were dropped: the open model's rate was not offered in full"
	}{
		{"none", load, results.Measurement{VUsMax: 2, IterationMS: fast}, ""},
		{"pre-allocated too few", load, results.Measurement{DroppedIterations: 3, VUsMax: 5, IterationMS: fast},
			": too few pre-allocated VUs: it started with 2 and added VUs up to 5 of its bound 100 while the phase ran, " +
				"and the iterations due meanwhile had no VU; 20/s × 180.0 ms per iteration needs about 4 VUs"},
		// e2 of the k6 fixtures: 5000/s with at most 2 VUs, iterations of about 1 ms
		{"bound reached", results.LoadInfo{Model: "open", Rate: 5000, VUs: 2, MaxVUs: 2},
			results.Measurement{DroppedIterations: 36584, VUsMax: 2, IterationMS: &results.Latency{Avg: 1.22, Min: 0.35, P50: 1.07}},
			": the VU bound max-vus (2) was reached: 5000/s × 1.2 ms per iteration needs about 7 VUs"},
		{"target saturated", load, results.Measurement{DroppedIterations: 40, VUsMax: 100,
			IterationMS: &results.Latency{Avg: 4900, Min: 150, P50: 5000}},
			": the target is saturated: iterations took 5000.0 ms (median), 33× the fastest (150.0 ms), so the 100 VUs it had " +
				"(of its bound 100) were busy waiting on it; more VUs would only queue more"},
		// a real demo cell (1 CPU, 2 web threads) at 20/s: k6 grew to 28 VUs while iterations queued at the target
		{"saturated before the bound", load, results.Measurement{DroppedIterations: 9, VUsMax: 28,
			IterationMS: &results.Latency{Avg: 979.6, Min: 52.4, P50: 1018.2}},
			": the target is saturated: iterations took 1018.2 ms (median), 19× the fastest (52.4 ms), so the 28 VUs it had " +
				"(of its bound 100) were busy waiting on it; more VUs would only queue more"},
		{"driver does not say", load, results.Measurement{DroppedIterations: 7},
			" (raise --max-vus, or the target is saturated)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := droppedWarning(tc.load, tc.m)
			want := ""
			if tc.want != "" {
				want = fmt.Sprintf("%d iterations were dropped: the open model's rate was not offered in full", tc.m.DroppedIterations) + tc.want
			}
			if got != want {
				t.Errorf("warning\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func TestDroppedIterationsWarning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		dropped int64
		want    []string
	}{
		{"none dropped", 0, nil},
		{"one dropped", 1, []string{"1 iterations were dropped: the open model's rate was not offered in full " +
			"(raise --max-vus, or the target is saturated)"}},
		{"many dropped", 1234, []string{"1234 iterations were dropped: the open model's rate was not offered in full " +
			"(raise --max-vus, or the target is saturated)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			spec.CPUs, spec.WebMult = []float64{1}, []float64{1}
			d := measuredDriver{results.Measurement{Requests: 10, RPS: 5, DroppedIterations: tc.dropped}}
			sum, err := (&Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: d}).Run(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			rec := sum.Records[0]
			if rec.Status != results.StatusOK || !reflect.DeepEqual(rec.Warnings, tc.want) {
				t.Errorf("status %s warnings %q, want ok with %q", rec.Status, rec.Warnings, tc.want)
			}
		})
	}
}
