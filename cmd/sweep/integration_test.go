package main

import (
	"encoding/csv"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestSweepRunEndToEnd runs a two-cell sweep on the demo stack and checks
// the run directory against the record contract, the configuration read
// back from Docker, the measurements, and that nothing is left running.
func TestSweepRunEndToEnd(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "0.5,1")
	code, pr := runSweep(t, bin, c)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}
	meta := readMeta(t, out)
	if len(meta.Cells) != 2 || meta.RunID == "" || !meta.DBSampled || meta.DSNHash != "" {
		t.Fatalf("sweep.json: run id %q, %d cells, db sampled %v, dsn hash %q (want none)", meta.RunID, len(meta.Cells),
			meta.DBSampled, meta.DSNHash)
	}
	checkComposeCLI(t, meta.Host.ComposeVersion)
	var overhead []string
	for _, cell := range meta.Cells {
		t.Run(cell.ID, func(t *testing.T) {
			rec := readRecord(t, out, cell.ID)
			checkRecord(t, rec, cell)
			checkSamples(t, results.CellDir(out, cell.ID, 1), rec.DurationS)
			override, err := os.ReadFile(filepath.Join(results.CellDir(out, cell.ID, 1), results.OverrideFile))
			if err != nil || !strings.Contains(string(override), cell.ID) || !strings.Contains(string(override), sweep.LabelRun) {
				t.Errorf("override.yaml should name the cell and carry the %s label (%v):\n%s", sweep.LabelRun, err, override)
			}
		})
		rec := readRecord(t, out, cell.ID)
		overhead = append(overhead, fmt.Sprintf("%s %.2f s (apply %.2f, ready %.2f, readback %.3f)", cell.ID,
			rec.PhasesS["apply"]+rec.PhasesS["ready"]+rec.PhasesS["readback"],
			rec.PhasesS["apply"], rec.PhasesS["ready"], rec.PhasesS["readback"]))
	}
	t.Logf("orchestration overhead per cell: %s", strings.Join(overhead, "; "))
	for _, f := range []string{"report.md", "report.html", "results.csv", results.LogFile} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty (%v)", f, err)
		}
	}
	assertNoSecret(t, out, pr.stdout.String()+pr.stderr.String())
	assertOneVoice(t, pr.stderr.String(), out, len(meta.Cells))
	assertNoContainers(t, cli, meta.RunID)
}

// checkComposeCLI checks that sweep.json names the compose CLI's version,
// and that it is the one SWEEP_COMPOSE_CLI asked for (CI runs this test
// under both).
func checkComposeCLI(t *testing.T, version string) {
	t.Helper()
	want := map[string]string{"v1": "1.", "v2": "2."}[os.Getenv(compose.CLIEnv)]
	if version == "" || !strings.HasPrefix(strings.TrimPrefix(version, "v"), want) {
		t.Errorf("sweep.json compose_version %q, want one starting %q (%s=%q)", version, want,
			compose.CLIEnv, os.Getenv(compose.CLIEnv))
	}
	t.Logf("compose CLI: %s", version)
}

// checkRecord checks one cell's result.json: status, the configuration
// read back from the container, the load figures and the metric blocks.
func checkRecord(t *testing.T, rec results.Record, cell results.CellInfo) {
	t.Helper()
	if rec.Status != results.StatusOK || rec.Cell.ID != cell.ID {
		t.Fatalf("status %s (%s) for %s", rec.Status, rec.Reason, rec.Cell.ID)
	}
	wantEnv := map[string]string{"BOX_WEB_THREAD": fmt.Sprint(cell.WebThreads),
		"BOX_DB_POOL_MAXIMUM_POOL_SIZE": fmt.Sprint(cell.DBPool), "BOX_INSTANCE_NAME": cell.ID}
	if rec.Applied.CPUs != cell.CPUs || !maps.Equal(rec.Applied.Env, wantEnv) || rec.Applied.ContainerID == "" {
		t.Errorf("applied %+v, want cpus %s and env %v", rec.Applied, sweep.FormatNumber(cell.CPUs), wantEnv)
	}
	if rec.RPS <= 0 || rec.Requests <= 0 || rec.LatencyMS.P99 <= 0 || rec.ErrorRate > 0.01 {
		t.Errorf("rps %.1f, requests %d, p99 %.2f ms, error rate %.3f", rec.RPS, rec.Requests, rec.LatencyMS.P99, rec.ErrorRate)
	}
	if rec.Load.Driver != "builtin" || rec.Load.VUs != 4 {
		t.Errorf("load %+v, want builtin with 4 VUs", rec.Load)
	}
	for _, phase := range []string{"apply", "ready", "readback", "reset", "warmup", "measure"} {
		if _, ok := rec.PhasesS[phase]; !ok {
			t.Errorf("phases_s has no %s: %v", phase, rec.PhasesS)
		}
	}
	if app, ok := rec.Resources["app"]; !ok || app.CPUCoresMean <= 0 {
		t.Errorf("resources.app %+v (present %v), want CPU use > 0", app, ok)
	}
	if _, ok := rec.Resources["db"]; !ok {
		t.Error("no resources.db")
	}
	checkDelivered(t, rec)
	if rec.DB == nil || rec.DB.MaxConnections != 200 || rec.DB.Sessions.TotalPeak < 1 {
		t.Errorf("db block %+v, want max_connections 200 (the demo's) and sessions seen", rec.DB)
	}
}

// checkDelivered checks the proof of delivery of an ok demo cell: both
// byte counts from the target container's network counters, and what it
// received above the bound (the requests plus the database's replies).
func checkDelivered(t *testing.T, rec results.Record) {
	t.Helper()
	d := rec.Delivery
	if d == nil || d.Method != results.DeliveryNetwork || d.SentBytes <= 0 || d.SentBytes != rec.BytesSent ||
		d.Ratio < sweep.MinDeliveryRatio || d.Ratio != float64(d.ReceivedBytes)/float64(d.SentBytes) {
		t.Errorf("delivery %+v (bytes sent %d), want network counters and a ratio of at least %g", d, rec.BytesSent, sweep.MinDeliveryRatio)
		return
	}
	t.Logf("%s: received/sent %.3f (%d / %d bytes over %.2f s)", rec.Cell.ID, d.Ratio, d.ReceivedBytes, d.SentBytes, d.WindowS)
}

// checkSamples checks samples.csv: the contract's header and about one row
// per measured second.
func checkSamples(t *testing.T, dir string, measuredS float64) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, results.SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("samples.csv: %v (%d rows)", err, len(rows))
	}
	if got := strings.Join(rows[0], ","); got != strings.Join(results.SamplesHeader, ",") {
		t.Errorf("samples.csv header %q", got)
	}
	// the driver's last partial second is in the totals only
	if n := len(rows) - 1; float64(n) < measuredS-1.01 || float64(n) > measuredS+1 {
		t.Errorf("samples.csv has %d rows for %.1f measured seconds", n, measuredS)
	}
}

// assertNoSecret fails when the demo DSN's password appears in clear in
// any file of the run directory (sweep.log included) or in output. The
// demo's user and database share the password's spelling, so the search
// is for the password in a DSN's positions.
func assertNoSecret(t *testing.T, dir, output string) {
	t.Helper()
	leaks := []string{":" + demoPassword + "@", "password=" + demoPassword}
	check := func(where, text string) {
		for _, l := range leaks {
			if strings.Contains(text, l) {
				t.Errorf("%s holds the DSN password (%q)", where, l)
			}
		}
	}
	check("the output", output)
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		check(path, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRunBadInputNeedingEngine checks the refusals that need the engine:
// nothing is started and no run directory is made.
func TestRunBadInputNeedingEngine(t *testing.T) {
	bin, cli := demo(t)
	info, err := cli.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		extra []string
		want  []string
	}{
		{"cpus above the engine", []string{"--cpus", "64"}, []string{"--cpus", fmt.Sprintf("%d CPUs", info.NCPU)}},
		{"unknown service", []string{"--service", "nosuch"}, []string{"--service", "nosuch", "app", "db"}},
		{"cpuset beyond the engine", []string{"--cpuset", "0,64"}, []string{"--cpuset", "CPU 64", fmt.Sprintf("%d CPUs", info.NCPU)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
			c := demoRun(t, p, out, "0.5")
			c.args = append(c.args, tc.extra...)
			code, pr := runSweep(t, bin, c)
			stderr := pr.stderr.String()
			if code != exitBadInput {
				t.Fatalf("exit %d, want 2\nstderr:\n%s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if fileExists(out) {
				t.Errorf("the run directory %s was created", out)
			}
			assertNothingPublished(t, cli, p)
		})
	}
}

// assertNothingPublished fails when a sweep container publishes one of
// the test's ports: the run id of a refused run is unknown, its ports are
// not.
func assertNothingPublished(t *testing.T, cli *client.Client, p ports) {
	t.Helper()
	for _, c := range containers(t, cli, sweep.LabelRun) {
		for _, port := range c.Ports {
			if int(port.PublicPort) == p.app || int(port.PublicPort) == p.pg {
				t.Errorf("container %s (%s) publishes the test's port %d", c.Names, c.State, port.PublicPort)
			}
		}
	}
}
