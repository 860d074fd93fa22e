package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	dswarm "github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestSwarmRunEndToEnd runs the demo as a user would on the swarm
// fixture: sweep run --swarm with the app placed on the app node and the
// database on the db node, the URL and DSN at those nodes' addresses. Every
// cell must be ok with its CPU limit read back from the container on the
// app node, and the run must leave no service behind.
func TestSwarmRunEndToEnd(t *testing.T) {
	sw := testenv.Swarm(t)
	app, db := sw.AppAndDB(t)
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLI(t, swarmDemo(t, sw, out, []string{"docker-compose.yaml", "docker-compose.swarm.yaml"}, "--cpus", "0.5,1")...)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, stderr)
	}
	meta := readMeta(t, out)
	if len(meta.Cells) != 2 {
		t.Fatalf("%d cells, want 2", len(meta.Cells))
	}
	for _, cell := range meta.Cells {
		rec := readRecord(t, out, cell.ID)
		a := rec.Applied
		if rec.Status != results.StatusOK || a.CPUs != cell.CPUs || a.ReadFrom != "container" {
			t.Errorf("cell %s: %s (%s), %v CPUs read from %q", cell.ID, rec.Status, rec.Reason, a.CPUs, a.ReadFrom)
		}
		if a.Nodes["app"].ID != app.ID || a.Nodes["db"].ID != db.ID || rec.DB == nil {
			t.Errorf("cell %s: nodes %+v, db sampled %v; want app on %s, db on %s", cell.ID, a.Nodes, rec.DB != nil, app.ID, db.ID)
		}
	}
	left, err := sw.Manager.ServiceList(t.Context(), dswarm.ServiceListOptions{
		Filters: filters.NewArgs(filters.Arg("label", sweep.LabelRun+"="+meta.RunID))})
	if err != nil || len(left) > 0 {
		t.Errorf("after the run: %d services of it on the swarm (%v)", len(left), err)
	}
}

// swarmDemo is the argv of `sweep run --swarm` of the demo's compose
// files (in compose/demo) on the fixture, DOCKER_HOST its manager: the app
// and the database placed on the app and db nodes, the URL and DSN at
// those nodes' addresses, 2 × 2 multipliers, 1 s + 3 s; extra follows.
func swarmDemo(t *testing.T, sw *testenv.SwarmFixture, out string, files []string, extra ...string) []string {
	t.Helper()
	app, db := sw.AppAndDB(t)
	t.Setenv("DOCKER_HOST", sw.ManagerHost)
	demo := filepath.Join(repoRoot(t), "compose", "demo") + "/"
	args := []string{"run", "--config", demo + "sweep.yaml", "--swarm"}
	for _, f := range files {
		args = append(args, "--compose", demo+f)
	}
	args = append(args, "--place", "app=node.id=="+app.ID, "--place", "db=node.id=="+db.ID,
		"--url", fmt.Sprintf("http://%s:18080", app.Addr),
		"--db-dsn", fmt.Sprintf("postgres://sweep:sweep@%s:15432/sweep?sslmode=disable", db.Addr),
		"--web-mult", "2", "--db-mult", "2", "--warmup", "1s", "--duration", "3s", "--control-every", "0", "--out", out)
	return append(args, extra...)
}

// TestSwarmParallelEndToEnd runs two cells with --parallel 2 on the
// fixture, URL and DSN templated with {node}: each lane's stack runs on
// a node of its own, the first cell is measured on both at once (the
// control, filed as control1 and control2 apart from its r1), every
// record names its lane's node, the report says which node measured
// which cell, and no service is left. More lanes than the
// swarm has nodes is refused first, naming --parallel, with nothing
// created.
func TestSwarmParallelEndToEnd(t *testing.T) {
	sw := testenv.Swarm(t)
	if len(sw.Nodes) < 3 {
		t.Skip("the fixture has fewer than 3 nodes")
	}
	t.Setenv("DOCKER_HOST", sw.ManagerHost)
	demo := "../../compose/demo/"
	args := func(out string, n int) []string {
		return []string{"run", "--config", demo + "sweep.yaml", "--swarm", "--parallel", fmt.Sprint(n),
			"--compose", demo + "docker-compose.yaml", "--compose", demo + "docker-compose.swarm.yaml",
			"--url", "http://{node}:18080", "--db-dsn", "postgres://sweep:sweep@{node}:15432/sweep?sslmode=disable",
			"--cpus", "0.5,1", "--web-mult", "2", "--db-mult", "2", "--warmup", "1s", "--duration", "3s", "--out", out}
	}
	tooMany := filepath.Join(t.TempDir(), "many")
	code, _, stderr := runCLI(t, args(tooMany, len(sw.Nodes)+1)...)
	if code != exitBadInput || !strings.Contains(stderr, "--parallel") {
		t.Errorf("--parallel %d on %d nodes: exit %d, want 2 naming --parallel\nstderr:\n%s", len(sw.Nodes)+1, len(sw.Nodes), code, stderr)
	}
	if _, err := os.Stat(tooMany); err == nil {
		t.Errorf("bad input left %s behind", tooMany)
	}
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, args(out, 2)...)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, stderr)
	}
	meta := readMeta(t, out)
	first := meta.Cells[0].ID
	nodes := map[string]bool{}
	for dir, rec := range laneRecords(t, out, meta) {
		a := rec.Applied
		if rec.Status != results.StatusOK || a.ReadFrom != "container" || a.Nodes["app"].ID == "" || a.Nodes["db"].ID != a.Nodes["app"].ID {
			t.Errorf("%s: %s (%s), read from %q, nodes %+v; want ok, app and db on the lane's node", dir, rec.Status, rec.Reason, a.ReadFrom, a.Nodes)
		}
		nodes[a.Nodes["app"].ID] = true
	}
	if len(nodes) != 2 {
		t.Errorf("the target ran on %d node(s), want 2 (one per lane)", len(nodes))
	}
	if _, err := os.Stat(filepath.Join(out, "cells", first, "r2")); err == nil {
		t.Errorf("%s has an r2: the control is no repetition", first)
	}
	if !strings.Contains(stderr, "control cell "+first+" on lane 2") || !strings.Contains(stdout, "measured "+first+" control") {
		t.Errorf("want the control on lane 2 in stderr and the nodes' cells in the report\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	left, err := sw.Manager.ServiceList(t.Context(), dswarm.ServiceListOptions{
		Filters: filters.NewArgs(filters.Arg("label", sweep.LabelRun+"="+meta.RunID))})
	if err != nil || len(left) > 0 {
		t.Errorf("after the run: %d services of it on the swarm (%v)", len(left), err)
	}
}

// TestSwarmFaultAndCtrlC runs `sweep run --swarm --parallel 2` with the
// load as one-shot services on the fixture's load node, as a user would,
// and meets it with two real events: the target's container on lane 1's
// node is killed during its first measured phase, the control's (the
// control must fail, naming the target), then Ctrl-C (SIGINT to the process group) during a
// measured phase of lane 2 must end the run with 130 and leave no
// service, container or network of the run on any node.
func TestSwarmFaultAndCtrlC(t *testing.T) {
	sw := testenv.Swarm(t)
	bin, _ := demo(t)
	if len(sw.Nodes) < 3 {
		t.Skip("the fixture has fewer than 3 nodes")
	}
	loadNode := sw.Node(t, "load")
	img := sw.NodeImage(t, loadNode, "sweep-drive")
	demoDir := filepath.Join(repoRoot(t), "compose", "demo")
	out := filepath.Join(t.TempDir(), "run")
	c := cmdline{out: out, env: []string{"DOCKER_HOST=" + sw.ManagerHost}, args: []string{"run",
		"--config", filepath.Join(demoDir, "sweep.yaml"), "--swarm", "--parallel", "2",
		"--compose", filepath.Join(demoDir, "docker-compose.yaml"), "--compose", filepath.Join(demoDir, "docker-compose.swarm.yaml"),
		"--url", "http://{node}:18080", "--db-dsn", "postgres://sweep:sweep@{node}:15432/sweep?sslmode=disable",
		"--place", "load=node.id==" + loadNode.ID, "--load-image", img, "--driver", "builtin",
		"--cpus", "0.5,1", "--web-mult", "2", "--db-mult", "2", "--warmup", "1s", "--duration", "8s", "--out", out}}
	p := start(t, bin, c)
	meta := waitMeta(t, p, out)
	project := sweep.ProjectName(meta.RunID)
	measuring := func(lane string) bool {
		list, err := sw.Manager.ServiceList(t.Context(), dswarm.ServiceListOptions{Filters: filters.NewArgs(
			filters.Arg("label", sweep.LabelRun+"="+meta.RunID), filters.Arg("label", "sweep.load=measure"))})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range list {
			if strings.HasPrefix(s.Spec.Name, project+lane) {
				return true
			}
		}
		return false
	}
	waitFor(t, p, "lane 1's measured phase", func() bool { return measuring("l1") })
	time.Sleep(2 * time.Second)
	killed := ""
	for _, n := range sw.Nodes {
		cli := sw.Client(t, n)
		for _, ct := range containers(t, cli, sweep.LabelRun+"="+meta.RunID, "com.docker.swarm.service.name="+project+"l1_app") {
			if ct.State == "running" {
				if err := cli.ContainerKill(t.Context(), ct.ID, "KILL"); err != nil {
					t.Fatal(err)
				}
				killed = ct.ID
			}
		}
	}
	if killed == "" {
		t.Fatal("no running target container of lane 1 on any node")
	}
	first := meta.Cells[0].ID
	control := filepath.Join(results.ControlDir(out, first, 1), results.ResultFile)
	waitFor(t, p, "lane 1's control record", func() bool { return fileExists(control) })
	if rec, err := results.ReadRecord(control); err != nil || rec.Status != results.StatusFailed || !strings.Contains(rec.Reason, "app") {
		t.Errorf("lane 1's control of %s with its target killed: %s (%s) %v, want failed naming app", first, rec.Status, rec.Reason, err)
	}
	waitFor(t, p, "lane 2's measured phase", func() bool { return measuring("l2") })
	time.Sleep(time.Second)
	p.signal(syscall.SIGINT)
	if code := p.wait(t); code != exitInterrupted {
		t.Errorf("exit %d after SIGINT, want 130\nstderr:\n%s", code, p.stderr.String())
	}
	assertSwarmClean(t, sw, meta.RunID, "after Ctrl-C")
}

// assertSwarmClean fails when a service, network or container (on any
// node) of run runID is left on the swarm, when saying after what.
func assertSwarmClean(t *testing.T, sw *testenv.SwarmFixture, runID, when string) {
	t.Helper()
	run := filters.NewArgs(filters.Arg("label", sweep.LabelRun+"="+runID))
	if left, err := sw.Manager.ServiceList(t.Context(), dswarm.ServiceListOptions{Filters: run}); err != nil || len(left) > 0 {
		t.Errorf("%s: %d services of the run on the swarm (%v)", when, len(left), err)
	}
	if left, err := sw.Manager.NetworkList(t.Context(), network.ListOptions{Filters: run}); err != nil || len(left) > 0 {
		t.Errorf("%s: %d networks of the run on the swarm (%v)", when, len(left), err)
	}
	for _, n := range sw.Nodes {
		for _, ct := range containers(t, sw.Client(t, n), sweep.LabelRun+"="+runID) {
			t.Errorf("%s: container %s (%s) of the run left on node %d", when, ct.Names, ct.State, n.Index)
		}
	}
}

// TestSwarmMeshDSNIsNamed runs the demo on the fixture without its swarm
// override: the database publishes 15432 through the routing mesh
// (ingress), which the fixture's nodes cannot serve (no IPVS). Before,
// sweep waited out the ready timeout (2 minutes) and said only that the
// database did not answer. Now, the database's task healthy, it waits at
// most 10 s and says the routing mesh does not answer and how to publish
// instead (mode: host, the override file): exit 2 naming --db-dsn, and no
// service of the run left.
func TestSwarmMeshDSNIsNamed(t *testing.T) {
	sw := testenv.Swarm(t)
	out := filepath.Join(t.TempDir(), "run")
	began := time.Now()
	// 23 s on the fixture once, most of it the stack's start: a ready
	// timeout of 5 minutes lets the bound leave a loaded host six times
	// that and still tell the mesh's hint from the wait running out.
	code, _, stderr := runCLI(t, swarmDemo(t, sw, out, []string{"docker-compose.yaml"}, "--cpus", "0.5", "--ready-timeout", "5m")...)
	took := time.Since(began)
	t.Logf("exit %d after %s\n%s", code, took.Round(100*time.Millisecond), stderr)
	if code != exitBadInput || took > 150*time.Second {
		t.Fatalf("exit %d after %s, want 2 well within the 5 minutes of --ready-timeout\nstderr:\n%s", code, took, stderr)
	}
	for _, want := range []string{"--db-dsn: ", "within 10s", "service db is healthy", "routing mesh", "mode: host",
		"docker-compose.swarm.yaml"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	meta := readMeta(t, out)
	if _, err := os.Stat(filepath.Join(out, results.CellsDir)); !os.IsNotExist(err) {
		t.Errorf("%s exists: a cell was recorded (%v)", filepath.Join(out, results.CellsDir), err)
	}
	left, err := sw.Manager.ServiceList(t.Context(), dswarm.ServiceListOptions{
		Filters: filters.NewArgs(filters.Arg("label", sweep.LabelRun+"="+meta.RunID))})
	if err != nil || len(left) > 0 {
		t.Errorf("after the run: %d services of it on the swarm (%v)", len(left), err)
	}
}

// TestSwarmLoopbackDSNIsRefused: the fixture's nodes are not this host,
// so a DSN at 127.0.0.1 can never reach the database the swarm runs;
// before, the run waited out the ready timeout at the first DSN check.
// Now it is bad input before anything starts: exit 2 within seconds
// naming --db-dsn and the nodes' addresses, no service of the run made.
func TestSwarmLoopbackDSNIsRefused(t *testing.T) {
	sw := testenv.Swarm(t)
	out := filepath.Join(t.TempDir(), "run")
	began := time.Now()
	code, _, stderr := runCLI(t, swarmDemo(t, sw, out, []string{"docker-compose.yaml", "docker-compose.swarm.yaml"},
		"--db-dsn", "postgres://sweep:sweep@127.0.0.1:15432/sweep?sslmode=disable", "--ready-timeout", "2m")...)
	took := time.Since(began)
	t.Logf("exit %d after %s\n%s", code, took.Round(100*time.Millisecond), stderr)
	if code != exitBadInput || took > 30*time.Second {
		t.Fatalf("exit %d after %s, want 2 at once\nstderr:\n%s", code, took, stderr)
	}
	for _, want := range []string{"--db-dsn: ", "127.0.0.1 is this host", "not a node of the swarm"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "sweep:sweep@") {
		t.Errorf("stderr shows the DSN's password:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(out, results.CellsDir)); !os.IsNotExist(err) {
		t.Errorf("%s exists: a cell was recorded (%v)", filepath.Join(out, results.CellsDir), err)
	}
	left, err := sw.Manager.ServiceList(t.Context(), dswarm.ServiceListOptions{Filters: filters.NewArgs(filters.Arg("label", sweep.LabelRun))})
	if err != nil {
		t.Fatal(err)
	}
	for _, svc := range left {
		if strings.HasPrefix(svc.Spec.Labels[sweep.LabelDir], out) {
			t.Errorf("service %s of the refused run left on the swarm", svc.Spec.Name)
		}
	}
}

// laneRecords reads the records of a two-lane run of two cells or more:
// the first cell's two controls and its r1, and the second cell's r1,
// by their directory under cells/.
func laneRecords(t *testing.T, out string, meta results.Meta) map[string]results.Record {
	t.Helper()
	first := meta.Cells[0].ID
	recs := map[string]results.Record{}
	for _, dir := range []string{first + "/control1", first + "/control2", first + "/r1", meta.Cells[1].ID + "/r1"} {
		rec, err := results.ReadRecord(filepath.Join(out, "cells", dir, results.ResultFile))
		if err != nil {
			t.Fatal(err)
		}
		recs[dir] = rec
	}
	return recs
}
