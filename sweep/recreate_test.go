package sweep_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sweep-tool/sweep/internal/memstack"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// recordDir is the folder, relative to the run, the job of rec was
// filed in.
func recordDir(rec results.Record) string {
	j := sweep.Job{Cell: sweep.Cell{ID: rec.Cell.ID}, Rep: rec.Repetition, Control: rec.Control, Seq: rec.ControlSeq}
	return filepath.ToSlash(j.Dir(""))
}

// checkRecreated holds the records recs, measured in this order on st
// after its first before applies, to a target applied for each: st's
// applies since are the records' folders, one each, in the same order,
// and each record was read back on the container its own apply created.
func checkRecreated(t *testing.T, run string, st *memstack.Stack, before int, recs []results.Record) {
	t.Helper()
	var got, want []string
	for _, a := range st.Applied[before:] {
		rel, _ := filepath.Rel(run, a)
		got = append(got, filepath.ToSlash(rel))
	}
	for _, rec := range recs {
		want = append(want, recordDir(rec))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("applied\n%s\nfor the jobs measured\n%s\nwant one apply per job", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, rec := range recs {
		_, phase := rec.PhasesS["apply"]
		if container := fmt.Sprint("c", before+i+1); !phase || rec.Applied.ContainerID != container {
			t.Errorf("%s: apply phase %v, measured on container %s; want its own container %s",
				recordDir(rec), phase, rec.Applied.ContainerID, container)
		}
	}
}

// order names the records as measured: K<seq> for a control, else the
// cell's position in cells and its repetition.
func order(cells []sweep.Cell, recs []results.Record) string {
	pos := map[string]int{}
	for i, c := range cells {
		pos[c.ID] = i + 1
	}
	var out []string
	for _, rec := range recs {
		if rec.Control > 0 {
			out = append(out, fmt.Sprint("K", rec.ControlSeq))
			continue
		}
		out = append(out, fmt.Sprintf("c%dr%d", pos[rec.Cell.ID], rec.Repetition))
	}
	return strings.Join(out, " ")
}

// recreating is a runner on a memstack of a grid run of the 4 cells of
// laneSpec, repeat times each, with its control cell (the first) every
// 2 jobs.
func recreating(t *testing.T, repeat int) (*sweep.Runner, *memstack.Stack) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(srv.Close)
	spec := laneSpec(srv.URL)
	spec.Repeat, spec.ControlEvery = repeat, 2
	dir := t.TempDir()
	st := &memstack.Stack{}
	d := laneDriver{rps: 100, mu: &sync.Mutex{}, seen: &[]string{}, run: dir}
	return &sweep.Runner{Spec: spec, Dir: dir, Stack: st, Driver: d}, st
}

// runAll runs r and checks that it measured every job ok in the order
// want names (see order).
func runAll(t *testing.T, r *sweep.Runner, want string) []results.Record {
	t.Helper()
	sum, err := r.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := order(r.Spec.Cells(), sum.Records); got != want {
		t.Fatalf("measured %s, want %s", got, want)
	}
	for _, rec := range sum.Records {
		if rec.Status != results.StatusOK {
			t.Fatalf("%s: %s %s", recordDir(rec), rec.Status, rec.Reason)
		}
	}
	return sum.Records
}

// TestEveryJobOnARecreatedTarget: the study's method regenerates the
// limits and recreates the target for every measured job, so none
// measures a target a job before it warmed up (a JIT, caches). A grid
// run with its control cell (the first) every 2 jobs and 2 repetitions
// back to back measures the control right before its own cell's r1,
// and each cell's r2 right after its r1: every one of those jobs, the
// controls too, is applied on a container of its own.
func TestEveryJobOnARecreatedTarget(t *testing.T) {
	t.Parallel()
	r, st := recreating(t, 2)
	recs := runAll(t, r, "K1 c1r1 c1r2 K2 c2r1 c2r2 K3 c3r1 c3r2 K4 c4r1 c4r2 K5")
	checkRecreated(t, r.Dir, st, 0, recs)
}

// TestNextRoundOnARecreatedTarget: a strategy's next round on the same
// runner (strategy/repeat and halving set Runner.Jobs and run again)
// measures its first job on a target applied for it, even when that is
// the control cell the run before ended with (here its r2).
func TestNextRoundOnARecreatedTarget(t *testing.T) {
	t.Parallel()
	r, st := recreating(t, 1)
	runAll(t, r, "K1 c1r1 c2r1 K2 c3r1 c4r1 K3")
	before := len(st.Applied)
	r.Jobs = []sweep.Job{{Cell: r.Spec.Cells()[0], Rep: 2}}
	checkRecreated(t, r.Dir, st, before, runAll(t, r, "c1r2"))
}
