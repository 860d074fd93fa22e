package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// driftDoc is what the test reads of results.json.
type driftDoc struct {
	Noise struct {
		Measured bool    `json:"measured"`
		Controls int     `json:"controls"`
		RPSBand  float64 `json:"rps_band"`
		P99Band  float64 `json:"p99_band"`
	} `json:"noise_bands"`
	Drift *struct {
		Cells   []string `json:"cells"`
		Metrics []struct {
			Metric string  `json:"metric"`
			Kind   string  `json:"kind"`
			Change float64 `json:"change"`
		} `json:"metrics"`
	} `json:"drift"`
	Cells []struct {
		ID      string `json:"id"`
		Drifted bool   `json:"drifted"`
	} `json:"cells"`
}

// hog runs 4 × cores busy loops in a process group of their own, ended
// by timeout after at most limit and killed (the whole group) at the end
// of the test, whichever comes first.
func hog(t *testing.T, limit time.Duration) func() {
	t.Helper()
	loops := strings.Repeat("(while :; do :; done) & ", 4*runtime.NumCPU())
	cmd := exec.Command("timeout", strconv.Itoa(int(limit.Seconds())), "sh", "-c", loops+"wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the CPU hog: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	t.Cleanup(stop)
	return stop
}

// TestDriftFlaggedAndRerun: a 4-cell grid on the demo (2 s a cell) with
// its control measured before and after every cell (K1 c1 K2 c2 K3 c3 K4
// c4 K5); once the third control is written a CPU hog starts beside the
// stack. The report measures its noise from the five controls, flags the
// step and marks the cells measured from the last control before the hog
// on (c3, c4), the first two not; `rerun --drifted` then measures exactly
// the marked cells again, as their r2. The stack stays up between the two
// (--keep), which spares the rerun a start of the database.
func TestDriftFlaggedAndRerun(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "1")
	c.args = append(c.args, "--web-mult", "1,2,3,4", "--duration", "2s", "--control-every", "1", "--keep",
		"--retries", "1") // a busy host's hiccup (the database restarting under the first reset) is no drift
	pr := start(t, bin, c)
	meta := waitMeta(t, pr, out)
	if len(meta.Cells) != 4 {
		t.Fatalf("%d cells, want 4", len(meta.Cells))
	}
	third := filepath.Join(results.ControlSeqDir(out, meta.Cells[0].ID, 1, 3), results.ResultFile)
	waitFor(t, pr, "the third control's record", func() bool { return fileExists(third) })
	stop := hog(t, 2*time.Minute)
	code := pr.wait(t)
	stop()
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}
	doc := readDriftDoc(t, out)
	t.Logf("noise from %d controls: RPS band %.1f %%, p99 band %.1f %%", doc.Noise.Controls, 100*doc.Noise.RPSBand, 100*doc.Noise.P99Band)
	if !doc.Noise.Measured || doc.Noise.Controls != 5 {
		t.Errorf("noise %+v: want it measured from 5 controls", doc.Noise)
	}
	if doc.Drift == nil {
		t.Fatalf("no drift flagged; controls:\n%s", controlFigures(t, out, meta.Cells[0].ID))
	}
	t.Logf("drift %+v over %v; controls:\n%s", doc.Drift.Metrics, doc.Drift.Cells, controlFigures(t, out, meta.Cells[0].ID))
	drifted := doc.Drift.Cells
	for i, cell := range meta.Cells {
		switch {
		case i == 0 && slices.Contains(drifted, cell.ID):
			t.Errorf("%s, measured before the hog and between two controls at the start level, is marked drifted", cell.ID)
		case i >= 2 && !slices.Contains(drifted, cell.ID):
			t.Errorf("%s, measured beside the hog, is not marked drifted (%v)", cell.ID, drifted)
		}
	}
	for _, cell := range doc.Cells {
		if cell.Drifted != slices.Contains(drifted, cell.ID) {
			t.Errorf("results.json marks %s drifted %v, the drift names %v", cell.ID, cell.Drifted, drifted)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "report.md")); err != nil || !strings.Contains(string(b), "the host drifted") {
		t.Errorf("report.md does not flag the drift (%v)", err)
	}

	rerun := cmdline{args: []string{"rerun", "--drifted", out, "--db-dsn", p.dsn()}, env: c.env, out: out}
	if code, pr := runSweep(t, bin, rerun); code != exitOK {
		t.Fatalf("rerun --drifted: exit %d\nstderr:\n%s", code, pr.stderr.String())
	}
	for _, cell := range meta.Cells {
		again := fileExists(filepath.Join(results.CellDir(out, cell.ID, 2), results.ResultFile))
		if again != slices.Contains(drifted, cell.ID) {
			t.Errorf("%s: measured again %v, drifted %v", cell.ID, again, slices.Contains(drifted, cell.ID))
		}
	}
	removeRun(t, out)
	assertNoContainers(t, cli, meta.RunID)
}

func readDriftDoc(t *testing.T, out string) driftDoc {
	t.Helper()
	var doc driftDoc
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err != nil {
		t.Fatalf("results.json: %v", err)
	}
	return doc
}

// controlFigures lists the control measurements of cell id, for the log.
func controlFigures(t *testing.T, out, id string) string {
	t.Helper()
	var b strings.Builder
	for seq := 1; ; seq++ {
		rec, err := results.ReadRecord(filepath.Join(results.ControlSeqDir(out, id, 1, seq), results.ResultFile))
		if err != nil {
			return b.String()
		}
		b.WriteString(rec.StartedAt.Format("15:04:05") + " " + string(rec.Status) + " rps " +
			strconv.FormatFloat(rec.RPS, 'f', 1, 64) + " p99 " + strconv.FormatFloat(rec.LatencyMS.P99, 'f', 2, 64) + "\n")
	}
}
