package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/filters"
	dswarm "github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestSwarmK6OnTheLoadNode sweeps the demo on the swarm fixture with the
// load placed on the load node and --driver k6 with a user's script:
// each phase an install service from the load image writing sweep into
// a volume on that node, then a service from the k6 image (the k6 on
// this host's PATH packaged by images.sh k6; the test skips without
// one) running it. Every cell must be ok, recorded as k6's with the
// user's script at sweep's VUs (the script's own 10 gave way), its load
// on the load node, k6's summaries and log kept in the cell's directory
// as a local k6 leaves them, and the run must leave no service and no
// volume on any node.
func TestSwarmK6OnTheLoadNode(t *testing.T) {
	testenv.K6(t)
	sw := testenv.Swarm(t)
	if len(sw.Nodes) < 3 {
		t.Skip("the fixture has fewer than 3 nodes")
	}
	loadNode := sw.Node(t, "load")
	root := repoRoot(t)
	// this tree's sweep (its install leaves the volume open to k6's user)
	var k6Image, driveImage string
	for _, kv := range testenv.Images(t, root, "drive", "k6") {
		switch k, v, _ := strings.Cut(kv, "="); k {
		case "SWEEP_DEMO_K6_IMAGE":
			k6Image = v
		case "SWEEP_DEMO_DRIVE_IMAGE":
			driveImage = v
		}
	}
	local, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	sw.LoadImage(t, local, k6Image, loadNode)
	sw.LoadImage(t, local, driveImage, loadNode)
	script := filepath.Join(t.TempDir(), "patient.js")
	if err := os.WriteFile(script, []byte(patientScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLI(t, swarmDemo(t, sw, out, []string{"docker-compose.yaml", "docker-compose.swarm.yaml"},
		"--cpus", "0.5,1", "--web-mult", "2", "--duration", "5s", "--warmup", "2s", "--load", "vus=4",
		"--place", "load=node.id=="+loadNode.ID, "--load-image", driveImage,
		"--driver", "k6", "--script", script, "--k6-image", k6Image)...)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, stderr)
	}
	meta := readMeta(t, out)
	if len(meta.Cells) != 2 || meta.Host.Driver != "k6" {
		t.Fatalf("%d cells, driver %q; want 2 and k6", len(meta.Cells), meta.Host.Driver)
	}
	t.Logf("sweep.json: driver %s, k6 %q", meta.Host.Driver, meta.Host.K6Version)
	for _, cell := range meta.Cells {
		rec := readRecord(t, out, cell.ID)
		t.Logf("cell %s: %s, %.0f requests/s, p99 %.1f ms, %d requests, %d VUs, load on %+v, the load's CPU %+v, %s",
			cell.ID, rec.Status, rec.RPS, rec.LatencyMS.P99, rec.Requests, rec.VUsMax, rec.Measurement.LoadNode, rec.Driver, rec.K6Version)
		if rec.Status != results.StatusOK || rec.Load.Driver != "k6" || rec.Load.Script == nil || rec.Load.Script.Name != "patient.js" {
			t.Errorf("cell %s: %s (%s), load %+v; want ok, k6 running patient.js", cell.ID, rec.Status, rec.Reason, rec.Load)
			continue
		}
		if rec.Requests == 0 || rec.ErrorRate != 0 || rec.VUsMax != 4 || rec.Measurement.LoadNode == nil || rec.Measurement.LoadNode.ID != loadNode.ID {
			t.Errorf("cell %s: %d requests, error rate %v, %d VUs, load on %+v; want 4 VUs' requests without errors from %s",
				cell.ID, rec.Requests, rec.ErrorRate, rec.VUsMax, rec.Measurement.LoadNode, loadNode.ID)
		}
		if !strings.HasPrefix(rec.K6Version, "k6 v") {
			t.Errorf("cell %s: k6 version %q, want the load node's k6's", cell.ID, rec.K6Version)
		}
		if rec.Driver == nil || rec.Driver.CPUPerRequestUS <= 0 {
			t.Errorf("cell %s: driver %+v; want the load service's CPU per request", cell.ID, rec.Driver)
		}
		dir := results.CellDir(out, cell.ID, 1)
		for _, name := range []string{"driver-summary.json", "warmup-summary.json", "k6.log"} {
			if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 {
				t.Errorf("cell %s: %s: %v; want k6's file kept", cell.ID, name, err)
			}
		}
	}
	run := filters.NewArgs(filters.Arg("label", sweep.LabelRun+"="+meta.RunID))
	left, err := sw.Manager.ServiceList(t.Context(), dswarm.ServiceListOptions{Filters: run})
	if err != nil || len(left) > 0 {
		t.Errorf("after the run: %d services of it on the swarm (%v)", len(left), err)
	}
	for _, n := range sw.Nodes {
		vols, err := sw.Client(t, n).VolumeList(t.Context(), volume.ListOptions{Filters: run})
		if err != nil || len(vols.Volumes) > 0 {
			t.Errorf("after the run: %d volumes of it on node %d (%v)", len(vols.Volumes), n.Index, err)
		}
	}
}
