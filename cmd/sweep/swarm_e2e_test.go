package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/docker/docker/api/types/filters"
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
	app, okA := sw.ByRole("app")
	db, okD := sw.ByRole("db")
	if !okA || !okD {
		t.Skip("the fixture has no app and db roles (SWARM_NODES >= 2)")
	}
	t.Setenv("DOCKER_HOST", sw.ManagerHost)
	out := filepath.Join(t.TempDir(), "run")
	demo := "../../compose/demo/"
	code, _, stderr := runCLI(t, "run", "--config", demo+"sweep.yaml", "--swarm",
		"--compose", demo+"docker-compose.yaml", "--compose", demo+"docker-compose.swarm.yaml",
		"--place", "app=node.id=="+app.ID, "--place", "db=node.id=="+db.ID,
		"--url", fmt.Sprintf("http://%s:18080", app.Addr),
		"--db-dsn", fmt.Sprintf("postgres://sweep:sweep@%s:15432/sweep?sslmode=disable", db.Addr),
		"--cpus", "0.5,1", "--web-mult", "2", "--db-mult", "2", "--warmup", "1s", "--duration", "3s", "--out", out)
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
