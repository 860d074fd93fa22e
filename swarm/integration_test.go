package swarm_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	dswarm "github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/internal/swarmfixture"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/metrics"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/swarm"
	"github.com/sweep-tool/sweep/sweep"
)

// demoFiles are the demo stack's compose files for a swarm without IPVS.
var demoFiles = []string{"../compose/demo/docker-compose.yaml", "../compose/demo/docker-compose.swarm.yaml"}

// TestSweepOnSwarm runs a real 4-cell sweep of the demo on the fixture,
// app on the app node and db on the db node, and checks every cell: ok,
// the CPU limit and env read back from the container on its node, the
// nodes recorded, the target's container sampled there; then Down leaves
// no service and no network of the run.
func TestSweepOnSwarm(t *testing.T) {
	sw := testenv.Swarm(t)
	app, db := sw.AppAndDB(t)
	runID := fmt.Sprintf("swarmtest%d", time.Now().UnixNano()%1e9)
	dir := t.TempDir()
	spec := demoSpec(fmt.Sprintf("http://%s:18080", app.Addr))
	st, err := swarm.New(t.Context(), swarm.Options{StackOptions: sweep.StackOptions{Files: demoFiles, Service: "app", RunID: runID, RunDir: dir, ReadyURL: spec.URL + spec.ReadyPath, SweptEnv: spec.SweptEnv()}, Place: map[string][]string{"app": {"node.id==" + app.ID}, "db": {"node.id==" + db.ID}}, Manager: sw.Manager})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := st.Down(ctx); err != nil {
			t.Errorf("down: %v", err)
		}
	})
	runner := &sweep.Runner{Spec: spec, RunID: runID, Dir: dir, Stack: st, Driver: builtin.New(builtin.Options{}),
		Log: os.Stderr, Monitor: &metrics.Monitor{Engine: st.Engine(), Containers: st.Containers, Target: "app", URL: spec.URL}}
	sum, err := runner.Run(t.Context())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(sum.Records) != 4 {
		t.Fatalf("%d records, want 4", len(sum.Records))
	}
	for _, rec := range sum.Records {
		checkCell(t, rec, app, db)
	}
	checkStoppedFirst(t, sw.Manager, st.Project()+"_app", len(sum.Records))
	checkDown(t, sw.Manager, runID)
}

// checkStoppedFirst fails unless each cell but the last left one task of
// the target that sweep stopped itself before the update (state
// complete: its container exited), rather than one the swarm shut down
// after its 2 s gossip delay, and the last cell's task runs.
func checkStoppedFirst(t *testing.T, mgr *client.Client, service string, cells int) {
	t.Helper()
	tasks, err := mgr.TaskList(t.Context(), dswarm.TaskListOptions{Filters: filters.NewArgs(filters.Arg("service", service))})
	if err != nil {
		t.Fatal(err)
	}
	states := map[dswarm.TaskState]int{}
	for _, task := range tasks {
		states[task.Status.State]++
	}
	if states[dswarm.TaskStateComplete] != cells-1 || states[dswarm.TaskStateRunning] != 1 || len(tasks) != cells {
		t.Errorf("the target's tasks by state: %v; want %d complete (stopped by sweep before each update) and 1 running", states, cells-1)
	}
}

// demoSpec is a 4-cell sweep of the demo with seconds-long phases.
func demoSpec(url string) sweep.Spec {
	return sweep.Spec{CPUs: []float64{0.5, 1}, WebMult: []float64{2, 4}, DBMult: []float64{2},
		Service: "app", WebEnv: "BOX_WEB_THREAD", PoolEnv: "BOX_DB_POOL_MAXIMUM_POOL_SIZE", NameEnv: "BOX_INSTANCE_NAME",
		URL: url, ReadyPath: "/health", ReadyTimeout: sweep.Duration(3 * time.Minute),
		Warmup: sweep.Duration(time.Second), Duration: sweep.Duration(3 * time.Second),
		Load: sweep.LoadSpec{VUs: 4}, Driver: "builtin", Repeat: 1, Order: "grid"}
}

// checkCell fails unless rec is ok with the cell's limit and env read
// back from the container, app and db on their nodes, the target sampled.
func checkCell(t *testing.T, rec results.Record, app, db swarmfixture.Node) {
	t.Helper()
	a := rec.Applied
	if rec.Status != results.StatusOK {
		t.Errorf("cell %s: %s: %s", rec.Cell.ID, rec.Status, rec.Reason)
	}
	if a.ReadFrom != "container" || a.CPUs != rec.Cell.CPUs {
		t.Errorf("cell %s: CPUs %v read from %q, want %v from the container", rec.Cell.ID, a.CPUs, a.ReadFrom, rec.Cell.CPUs)
	}
	want := map[string]string{"BOX_WEB_THREAD": fmt.Sprint(rec.Cell.WebThreads), "BOX_DB_POOL_MAXIMUM_POOL_SIZE": fmt.Sprint(rec.Cell.DBPool)}
	want["BOX_INSTANCE_NAME"] = rec.Cell.ID
	if !maps.Equal(a.Env, want) {
		t.Errorf("cell %s: env %v, want %v", rec.Cell.ID, a.Env, want)
	}
	if a.Nodes["app"].ID != app.ID || a.Nodes["db"].ID != db.ID {
		t.Errorf("cell %s: nodes %+v, want app on %s and db on %s", rec.Cell.ID, a.Nodes, app.ID, db.ID)
	}
	if rec.Resources["app"].CPUCoresMax <= 0 {
		t.Errorf("cell %s: no CPU use sampled for app: %+v", rec.Cell.ID, rec.Resources["app"])
	}
	if rec.Requests == 0 {
		t.Errorf("cell %s: no requests", rec.Cell.ID)
	}
}

// checkDown removes the run as sweep clean does (its leftovers, then
// CleanDead: the run directory's lock is free) and fails unless that
// leaves no service and no network of the run on the swarm.
func checkDown(t *testing.T, mgr *client.Client, runID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	left, err := swarm.Leftovers(ctx, mgr)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(left, func(l sweep.Leftover) bool { return l.ID == runID })
	if i < 0 || left[i].Containers != 2 || left[i].Dir == "" {
		t.Fatalf("leftovers %+v: want run %s with its 2 services and its directory", left, runID)
	}
	got, err := swarm.CleanDead(ctx, mgr, left[i], false)
	if err != nil || len(got.Services) != 2 || len(got.Networks) != 1 {
		t.Fatalf("clean: removed %+v, %v; want 2 services and the network", got, err)
	}
	f := filters.NewArgs(filters.Arg("label", sweep.LabelRun+"="+runID))
	svcs, err := mgr.ServiceList(ctx, dswarm.ServiceListOptions{Filters: f})
	if err != nil || len(svcs) > 0 {
		t.Errorf("after clean: %d services of the run (%v)", len(svcs), err)
	}
	nets, err := mgr.NetworkList(ctx, network.ListOptions{Filters: f})
	if err != nil || len(nets) > 0 {
		t.Errorf("after clean: %d networks of the run (%v)", len(nets), err)
	}
}
