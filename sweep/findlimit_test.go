package sweep

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// loadDriver records the VUs of each measured phase.
type loadDriver struct{ vus []int }

func (d *loadDriver) Name() string { return "fake" }
func (d *loadDriver) Run(_ context.Context, req LoadRequest) (results.Measurement, error) {
	if !req.Warmup {
		d.vus = append(d.vus, req.Load.VUs)
	}
	return results.Measurement{Requests: int64(req.Load.VUs) * 10}, nil
}

func TestSetupOnceMeasureAtSeveralLoads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stack, driver := &fakeStack{}, &loadDriver{}
	r := &Runner{Spec: testSpec(), Dir: dir, Stack: stack, Driver: driver}
	cell := r.Spec.Cells()[0]
	applied, err := r.Setup(t.Context(), cell, filepath.Join(dir, "target"))
	if err != nil {
		t.Fatal(err)
	}
	for _, vus := range []int{2, 8} {
		levelDir := filepath.Join(dir, "level", FormatNumber(float64(vus)))
		rec := r.MeasureAt(t.Context(), cell, applied, results.LoadInfo{Driver: "fake", Model: "closed", VUs: vus}, levelDir)
		if rec.Status != results.StatusOK || rec.Requests != int64(vus)*10 || rec.Load.VUs != vus {
			t.Errorf("vus %d: status %s requests %d load %+v", vus, rec.Status, rec.Requests, rec.Load)
		}
		saved, err := results.ReadRecord(filepath.Join(levelDir, results.ResultFile))
		if err != nil || saved.Load.VUs != vus {
			t.Errorf("vus %d: saved record %+v, %v", vus, saved.Load, err)
		}
	}
	if len(stack.applied) != 1 || len(driver.vus) != 2 {
		t.Errorf("applied %d times and measured %v; want 1 apply and 2 levels", len(stack.applied), driver.vus)
	}
}

func TestMeasureAtFailsWhenTheTargetWasReplaced(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := &Runner{Spec: testSpec(), Dir: dir, Stack: &fakeStack{}, Driver: &loadDriver{}}
	cell := r.Spec.Cells()[0]
	applied, err := r.Setup(t.Context(), cell, dir)
	if err != nil {
		t.Fatal(err)
	}
	applied.ContainerID = "gone"
	rec := r.MeasureAt(t.Context(), cell, applied, results.LoadInfo{VUs: 1}, filepath.Join(dir, "l1"))
	if rec.Status != results.StatusFailed {
		t.Errorf("status %s, want failed for a replaced container", rec.Status)
	}
}
