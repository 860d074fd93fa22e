package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/limit"
	"github.com/sweep-tool/sweep/sweep"
	"github.com/sweep-tool/sweep/sweep/pressure"
)

// levelStack applies configs in memory and reports them back as applied.
type levelStack struct{ last sweep.TargetConfig }

func (s *levelStack) Apply(_ context.Context, cfg sweep.TargetConfig) error { s.last = cfg; return nil }
func (s *levelStack) WaitReady(context.Context, time.Duration) error        { return nil }
func (s *levelStack) ReadBack(context.Context) (results.Applied, error) {
	return results.Applied{CPUs: s.last.CPUs, Env: s.last.Env, ContainerID: "c-" + s.last.Labels[sweep.LabelCell]}, nil
}
func (s *levelStack) Logs(context.Context, int) (string, error)                          { return "", nil }
func (s *levelStack) Down(context.Context) error                                         { return nil }
func (s *levelStack) StartDeps(context.Context, sweep.TargetConfig, time.Duration) error { return nil }
func (s *levelStack) Watch(context.Context) (sweep.StackWatch, error) {
	return quietWatch{}, nil
}

// quietWatch is a watch that sees no change.
type quietWatch struct{}

func (quietWatch) Changed() <-chan struct{}                           { return nil }
func (quietWatch) Stop(context.Context) ([]results.StackEvent, error) { return nil, nil }

// levelDriver answers with a p99 of one millisecond per VU; the cells
// whose id contains crash fail every run, and the cancel-th measured run
// cancels the context.
type levelDriver struct {
	crash  string
	cancel func()
	at     int
	runs   int
}

func (d *levelDriver) Name() string { return "fake" }
func (d *levelDriver) Run(ctx context.Context, req sweep.LoadRequest) (results.Measurement, error) {
	if req.Warmup {
		return results.Measurement{}, nil
	}
	d.runs++
	switch {
	case d.cancel != nil && d.runs == d.at:
		d.cancel()
		return results.Measurement{}, ctx.Err()
	case d.crash != "" && strings.Contains(req.Dir, d.crash):
		return results.Measurement{}, errors.New("connection refused")
	}
	vus := req.Load.VUs
	return results.Measurement{Requests: int64(100 * vus), RPS: float64(10 * vus), DurationS: 1,
		LatencyMS: results.Latency{P50: float64(vus) / 2, P99: float64(vus)}}, nil
}

// searchRun runs a two-cell --find-limit sweep on fakes: p99<=20ms with
// a p99 of 1 ms per VU puts every cell's safe limit at 20 VUs.
func searchRun(t *testing.T, ctx context.Context, d *levelDriver) (string, sweep.Summary, error) {
	t.Helper()
	target := httptest.NewServer(http.NotFoundHandler()) // answers the runner's probe of the URL
	t.Cleanup(target.Close)
	spec := sweep.Spec{CPUs: []float64{1}, WebMult: []float64{1, 2}, DBMult: []float64{2}, Service: "app",
		WebEnv: "W", PoolEnv: "P", URL: target.URL, ReadyPath: "/health", ReadyTimeout: sweep.Duration(time.Second),
		Duration: sweep.Duration(time.Second), Load: sweep.LoadSpec{VUs: 3}, Driver: "builtin", Repeat: 1, Order: sweep.OrderGrid,
		FindLimit: &sweep.FindLimit{SLO: "p99<=20ms", Start: 4, Max: 1000, Factor: 2, MaxSteps: 8, DBService: "db"}}
	cs, err := newCellSearch(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// A quiet host: the runner would read this machine's CPU pressure,
	// and on a loaded host (a CI beside other tests) the failing level's
	// bottleneck came out host-cpu instead of none.
	quiet := func() (pressure.Reading, error) { return pressure.Reading{Total: time.Second}, nil }
	runner := &sweep.Runner{Spec: spec, RunID: "t", Dir: dir, Stack: &levelStack{}, Driver: d, Pressure: quiet}
	runner.Measure = cs.hook(runner, "t", &bytes.Buffer{})
	sum, err := runner.Run(ctx)
	return dir, sum, err
}

func TestFindLimitPerCell(t *testing.T) {
	t.Parallel()
	dir, sum, err := searchRun(t, t.Context(), &levelDriver{crash: "web_2"})
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]results.Record{}
	for _, r := range sum.Records {
		recs[r.Cell.ID] = r
	}
	ok := recs["cpu_1__web_1__db_2"]
	want := results.SafeLimit{Model: "vus", Level: 20, FailsAt: 21, Bottleneck: "none", SLO: "p99<=20ms", Steps: 8}
	if ok.Status != results.StatusOK || ok.SafeLimit == nil || *ok.SafeLimit != want {
		t.Fatalf("searching cell: status %s (%s), safe limit %+v; want ok with %+v", ok.Status, ok.Reason, ok.SafeLimit, want)
	}
	if ok.Load.VUs != 20 || ok.RPS != 200 || ok.PhasesS["search"] <= 0 || ok.PhasesS["apply"] < 0 {
		t.Errorf("the record keeps load %+v, rps %g, phases %v; want the figures of vus=20", ok.Load, ok.RPS, ok.PhasesS)
	}
	file := readLimitFile(t, filepath.Join(results.CellDir(dir, ok.Cell.ID, 1), limit.FileName))
	if file.Status != "done" || len(file.Levels) != 8 || file.SafeLimit == nil || file.SafeLimit.Level != 20 {
		t.Errorf("limit.json: status %s, %d levels, safe limit %+v; want done, 8 levels, 20", file.Status, len(file.Levels), file.SafeLimit)
	}
	if _, err := os.Stat(filepath.Join(results.CellDir(dir, ok.Cell.ID, 1), "levels", "vus-21", results.ResultFile)); err != nil {
		t.Errorf("level record: %v", err)
	}
	crashed := recs["cpu_1__web_2__db_4"]
	if crashed.Status != results.StatusFailed || !strings.Contains(crashed.Reason, "vus=4") || crashed.SafeLimit == nil ||
		crashed.SafeLimit.Level != 0 || crashed.SafeLimit.Bottleneck != "errors" {
		t.Errorf("crashing cell: status %s reason %q safe limit %+v; want failed at vus=4 with errors",
			crashed.Status, crashed.Reason, crashed.SafeLimit)
	}
}

func TestFindLimitInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	dir, sum, err := searchRun(t, ctx, &levelDriver{cancel: cancel, at: 3})
	if !errors.Is(err, sweep.ErrInterrupted) || len(sum.Records) != 1 || sum.Records[0].Status != results.StatusInterrupted {
		t.Fatalf("err %v, records %+v; want one interrupted cell", err, sum.Records)
	}
	file := readLimitFile(t, filepath.Join(results.CellDir(dir, sum.Records[0].Cell.ID, 1), limit.FileName))
	if file.Status != "interrupted" || len(file.Levels) != 2 {
		t.Errorf("limit.json: status %s with %d levels; want interrupted with the 2 levels measured", file.Status, len(file.Levels))
	}
}

func readLimitFile(t *testing.T, path string) limit.File {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec limit.File
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rec
}
