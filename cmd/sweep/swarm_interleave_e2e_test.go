package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	dswarm "github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/internal/swarmfixture"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// swarmInterleaved is the demo on the swarm fixture (swarmDemo: the app
// placed on the app node, the database on the db node) on the
// interleaved schedule: two targets at 0.5 CPU (web 1 pool 2, web 2
// pool 4), three rounds of 3 s slices.
func swarmInterleaved(t *testing.T, sw *testenv.SwarmFixture, out string) cmdline {
	t.Helper()
	args := swarmDemo(t, sw, out, []string{"docker-compose.yaml", "docker-compose.swarm.yaml"},
		"--cpus", "0.5", "--web-mult", "2,4", "--schedule", "interleaved", "--slice", "3s", "--rounds", "3", "--duration", "9s")
	return cmdline{args: args, env: []string{"DOCKER_HOST=" + sw.ManagerHost}, out: out}
}

// startSwarmInterleaved starts swarmInterleaved (a long test, on the
// fixture) and waits for its sweep.json.
func startSwarmInterleaved(t *testing.T) (*testenv.SwarmFixture, swarmfixture.Node, string, *proc, results.Meta) {
	t.Helper()
	sw := testenv.Swarm(t)
	longTest(t, "70 s")
	bin, _ := demo(t)
	app, _ := sw.AppAndDB(t)
	out := filepath.Join(t.TempDir(), "run")
	p := start(t, bin, swarmInterleaved(t, sw, out))
	meta := waitMeta(t, p, out)
	if len(meta.Cells) != 2 {
		t.Fatalf("%d cells, want 2", len(meta.Cells))
	}
	return sw, app, out, p, meta
}

// targetServices checks that each of cells' targets is a service of the
// run of its own (named after it, sweep.target its cell) with one running
// task on node app, and that the stack has no service of the target's
// own name.
func targetServices(t *testing.T, sw *testenv.SwarmFixture, meta results.Meta, app swarmfixture.Node) {
	t.Helper()
	ctx := t.Context()
	list, err := sw.Manager.ServiceList(ctx, dswarm.ServiceListOptions{Filters: filters.NewArgs(
		filters.Arg("label", sweep.LabelRun+"="+meta.RunID))})
	if err != nil {
		t.Fatal(err)
	}
	var cells []string
	for _, svc := range list {
		if svc.Spec.Name == sweep.ProjectName(meta.RunID)+"_app" {
			t.Errorf("the stack's own target service %s runs beside the targets", svc.Spec.Name)
		}
		cell := svc.Spec.Labels[sweep.LabelTarget]
		if cell == "" {
			continue
		}
		cells = append(cells, cell)
		tasks, err := sw.Manager.TaskList(ctx, dswarm.TaskListOptions{Filters: filters.NewArgs(filters.Arg("service", svc.ID),
			filters.Arg("desired-state", "running"))})
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != 1 || tasks[0].Status.State != dswarm.TaskStateRunning || tasks[0].NodeID != app.ID {
			t.Errorf("target %s (service %s): %d running tasks, want 1 on the app node %s", cell, svc.Spec.Name, len(tasks), app.ID)
		}
		t.Logf("target %s: service %s, ports %+v", cell, svc.Spec.Name, svc.Endpoint.Ports)
	}
	slices.Sort(cells)
	var want []string
	for _, c := range meta.Cells {
		want = append(want, c.ID)
	}
	slices.Sort(want)
	if !slices.Equal(cells, want) {
		t.Errorf("target services of cells %v, want one each of %v", cells, want)
	}
}

// TestSwarmInterleavedEndToEnd runs the demo interleaved on the swarm
// fixture: while the group runs each target is a service of its own on
// the app node, the run ends ok with every slice ok, its CPU limit read
// back from the container on the app node, and nothing of the run is
// left on the swarm.
func TestSwarmInterleavedEndToEnd(t *testing.T) {
	sw, app, out, p, meta := startSwarmInterleaved(t)
	waitFor(t, p, "round 1's first slice", func() bool { return measuring(out, 1, "") != "" })
	targetServices(t, sw, meta, app)
	if code := p.wait(t); code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, p.stderr.String())
	}
	for _, cell := range meta.Cells {
		for k := 1; k <= 3; k++ {
			rec := sliceRecord(t, out, cell.ID, k)
			a := rec.Applied
			if rec.Status != results.StatusOK || rec.LoadSlice == nil || a.CPUs != cell.CPUs || a.ReadFrom != "container" ||
				a.Nodes["app"].ID != app.ID {
				t.Errorf("%s round %d: %s (%s), %v CPUs read from %q, nodes %+v", cell.ID, k, rec.Status, rec.Reason, a.CPUs, a.ReadFrom, a.Nodes)
			}
			t.Logf("%s round %d: %.0f rps, p99 %.1f ms", cell.ID, k, rec.RPS, rec.LatencyMS.P99)
		}
	}
	assertSwarmClean(t, sw, meta.RunID, "after the run")
	assertJSONParses(t, out)
}

// TestSwarmInterleavedTargetKilled runs the demo interleaved on the swarm
// fixture and kills the container of the target whose slice opens round
// 3, mid-slice: that slice fails, naming the target; the target's slices
// of rounds 1 and 2 and the other target's slices of every round,
// round 3's after the kill among them, are ok; the run exits 1 (a
// failed slice) and leaves nothing on the swarm.
func TestSwarmInterleavedTargetKilled(t *testing.T) {
	sw, app, out, p, meta := startSwarmInterleaved(t)
	var killed string
	waitFor(t, p, "round 3's first slice", func() bool { killed = measuring(out, 3, ""); return killed != "" })
	time.Sleep(time.Second)
	cli := sw.Client(t, app)
	list := slices.DeleteFunc(containers(t, cli, sweep.LabelRun+"="+meta.RunID, sweep.LabelTarget+"="+killed),
		func(c container.Summary) bool { return c.State != "running" })
	if len(list) != 1 {
		t.Fatalf("%d running containers of the target of %s on the app node, want 1", len(list), killed)
	}
	if err := cli.ContainerKill(t.Context(), list[0].ID, "KILL"); err != nil {
		t.Fatal(err)
	}
	killedAt := time.Now()
	assertTargetKilled(t, p, out, meta, killed, killedAt)
	assertSwarmClean(t, sw, meta.RunID, "after the run")
}

// assertTargetKilled waits for the run of a test that killed the target
// of cell killed in round 3 at killedAt, mid-slice, and checks that it
// exits 1 (a failed slice), that slice failed naming the target (app),
// and every other slice of its three rounds is ok, the other targets'
// slices of round 3 started after the kill among them.
func assertTargetKilled(t *testing.T, p *proc, out string, meta results.Meta, killed string, killedAt time.Time) {
	t.Helper()
	code := p.wait(t)
	t.Logf("exit %d\nstderr:\n%s", code, p.stderr.String())
	if code != exitFailure {
		t.Errorf("exit %d, want 1 (a failed slice)", code)
	}
	for _, cell := range meta.Cells {
		for k := 1; k <= 3; k++ {
			rec := sliceRecord(t, out, cell.ID, k)
			t.Logf("%s round %d: %s %s, %.0f rps", cell.ID, k, rec.Status, rec.Reason, rec.RPS)
			switch {
			case cell.ID == killed && k == 3:
				if rec.Status != results.StatusFailed || rec.LoadSlice == nil || !strings.Contains(rec.Reason, "app") {
					t.Errorf("the killed target's slice: %s (%s), want failed naming app", rec.Status, rec.Reason)
				}
			case rec.Status != results.StatusOK:
				t.Errorf("%s round %d: %s (%s), want ok", cell.ID, k, rec.Status, rec.Reason)
			case cell.ID != killed && k == 3 && !rec.StartedAt.After(killedAt):
				t.Errorf("the other target's slice of round 3 started %s, before the kill at %s", rec.StartedAt, killedAt)
			}
		}
	}
}
