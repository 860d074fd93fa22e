package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestStackChangesFailCells changes the demo stack under a running sweep
// with the engine's own commands, one change per cell, each about a second
// into the measured phase: a docker restart of the target (its container
// id stays the same), a docker pause of the target for 3 s (sweep
// unpauses it before it recreates it; the test's own unpause is bounded),
// and a restart of the database service. Each cell is failed with what changed and when,
// the change is in result.json's events, the target's log tail is kept,
// and the run exits 1 with nothing left running.
func TestStackChangesFailCells(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "0.5,1,2")
	c.args = append(c.args, "--duration", "8s")
	pr := start(t, bin, c)
	meta := waitMeta(t, pr, out)
	one := 1
	changes := []struct {
		what   string
		do     func(target string)
		reason []string
	}{
		{"docker restart of the target", func(target string) {
			if err := cli.ContainerRestart(t.Context(), target, container.StopOptions{Timeout: &one}); err != nil {
				t.Error(err)
			}
		}, []string{"app (the target) exited", "s into the measured phase"}},
		{"docker pause of the target", func(target string) {
			if err := cli.ContainerPause(t.Context(), target); err != nil {
				t.Error(err)
			}
			time.Sleep(3 * time.Second)
			// The failed cell may be over and sweep may have unpaused and
			// recreated its target by now. Bounded: an engine that does not
			// answer fails the test here, naming the container, instead of
			// hanging the package until its timeout.
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			err := cli.ContainerUnpause(ctx, target)
			switch {
			case ctx.Err() != nil:
				t.Errorf("unpause %s: the engine did not answer in 30 s: %v", target, err)
			case err != nil:
				t.Logf("unpause: %v", err)
			}
		}, []string{"app (the target) was paused", "s into the measured phase"}},
		{"restart of the database", func(string) {
			db := serviceOf(t, cli, meta.RunID, "db")
			if err := cli.ContainerRestart(t.Context(), db, container.StopOptions{Timeout: &one}); err != nil {
				t.Error(err)
			}
		}, []string{"db exited", "s into the measured phase"}},
	}
	for i, ch := range changes {
		cell := meta.Cells[i].ID
		target := waitMeasuring(t, pr, cli, out, cell)
		t.Logf("%s: %s", cell, ch.what)
		ch.do(target)
	}
	if code := pr.wait(t); code != exitFailure {
		t.Errorf("exit %d, want 1\nstderr:\n%s", code, pr.stderr.String())
	}
	for i, ch := range changes {
		cell := meta.Cells[i].ID
		rec := readRecord(t, out, cell)
		t.Logf("%s (%s): %s: %s; phases %v", cell, ch.what, rec.Status, rec.Reason, rec.PhasesS)
		for _, w := range ch.reason {
			if rec.Status != results.StatusFailed || !strings.Contains(rec.Reason, w) {
				t.Errorf("%s: %s (%q), want failed saying %q", ch.what, rec.Status, rec.Reason, w)
			}
		}
		if len(rec.Events) == 0 || rec.Events[0].Phase != "measure" || rec.Events[0].T <= 0 {
			t.Errorf("%s: events %+v, want the change in the measured phase", ch.what, rec.Events)
		}
		logTail, err := os.ReadFile(filepath.Join(results.CellDir(out, cell, 1), results.TargetLog))
		if err != nil || len(bytes.TrimSpace(logTail)) == 0 {
			t.Errorf("%s: target.log missing or empty (%v)", ch.what, err)
		}
	}
	assertNoContainers(t, cli, meta.RunID)
}

// serviceOf returns the container of a service of the run's stack.
func serviceOf(t *testing.T, cli *client.Client, runID, service string) string {
	t.Helper()
	list := containers(t, cli, sweep.LabelRun+"="+runID, "com.docker.compose.service="+service)
	if len(list) != 1 {
		t.Fatalf("%d containers of service %s in run %s, want 1", len(list), service, runID)
	}
	return list[0].ID
}
