package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/api/types/system"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/session"
	"github.com/sweep-tool/sweep/sweep"
)

// TestCleanSparesALiveRun runs `sweep clean` while another sweep run is
// measuring on the demo stack: an empty `--run` is bad input, `--run ID` refuses
// the live run, and cleaning every run skips it; the live run's containers
// survive and it finishes its grid. Once it has ended (--keep leaves its
// stack up), `sweep clean --run ID` removes the stack.
//
// Cleaning every run is called in process on a view of the engine that
// shows only this test's run: the same code as the command without
// --run, which must not remove the dead leftovers of other people's runs
// on a shared engine.
func TestCleanSparesALiveRun(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "0.5,1")
	c.args = append(c.args, "--keep")
	live := start(t, bin, c)
	meta := waitMeta(t, live, out)
	waitMeasuring(t, live, cli, out, meta.Cells[0].ID)
	runLabel := sweep.LabelRun + "=" + meta.RunID
	before := containerIDs(t, cli, runLabel)

	code, empty := runSweep(t, bin, cmdline{args: []string{"clean", "--run", ""}})
	if code != exitBadInput || !strings.Contains(empty.stderr.String(), "--run") {
		t.Errorf("clean --run '': exit %d, want 2 naming --run:\n%s", code, empty.stderr.String())
	}
	code, named := runSweep(t, bin, cmdline{args: []string{"clean", "--run", meta.RunID}})
	if stderr := named.stderr.String(); code != exitBadInput || !strings.Contains(stderr, "alive") ||
		!strings.Contains(stderr, filepath.Join(out, "sweep.lock")) || !strings.Contains(stderr, "--force") {
		t.Errorf("clean --run of the live run: exit %d, want 2 saying it is alive, naming its lock and --force:\n%s", code, stderr)
	}
	var all bytes.Buffer
	if err := clean(t.Context(), &all, onlyRun{cli, meta.RunID}, "", false, 0); err != nil ||
		!strings.Contains(all.String(), "run "+meta.RunID+": skipped: the run is alive") {
		t.Errorf("clean of every run: %v, want the live run listed as skipped:\n%s", err, all.String())
	}
	if after := containerIDs(t, cli, runLabel); !slices.Equal(after, before) {
		t.Fatalf("the live run's containers changed while clean ran: %v → %v", before, after)
	}

	if code := live.wait(t); code != exitOK {
		t.Fatalf("the live run: exit %d, want 0\nstderr:\n%s", code, live.stderr.String())
	}
	for _, cell := range meta.Cells {
		if rec := readRecord(t, out, cell.ID); rec.Status != results.StatusOK {
			t.Errorf("cell %s of the live run: %s (%s)", cell.ID, rec.Status, rec.Reason)
		}
	}
	if len(containers(t, cli, runLabel)) == 0 {
		t.Fatal("--keep left no stack for clean to remove")
	}
	code, ended := runSweep(t, bin, cmdline{args: []string{"clean", "--run", meta.RunID}})
	if code != exitOK || !strings.Contains(ended.stdout.String(), "run "+meta.RunID+": removed") {
		t.Errorf("clean --run of the ended run: exit %d, want 0 and a removal:\n%s%s", code, ended.stdout.String(), ended.stderr.String())
	}
	assertNoContainers(t, cli, meta.RunID)
}

// TestCleanNamesTheRunFlag: a --run that can name no run is bad input of
// --run, the flag the user gave, not of a library field. The engine is
// one with nothing of sweep on it and no swarm.
func TestCleanNamesTheRunFlag(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"!!", "--", "_"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			err := clean(t.Context(), io.Discard, emptyEngine{}, id, false, 0)
			msg := message(err)
			if exitCode(err) != exitBadInput || !strings.HasPrefix(msg, "--run: ") || strings.Contains(msg, "--run-id") {
				t.Errorf("clean --run %q: exit %d, %q; want 2 naming --run", id, exitCode(err), msg)
			}
		})
	}
}

// emptyEngine is an engine that is no swarm manager and holds no
// container; the calls clean does not reach are the nil interface's.
type emptyEngine struct{ session.CleanEngine }

func (emptyEngine) Info(context.Context) (system.Info, error) { return system.Info{}, nil }

func (emptyEngine) ContainerList(context.Context, container.ListOptions) ([]container.Summary, error) {
	return nil, nil
}

// onlyRun is the engine as `sweep clean` sees it, restricted to the
// containers (and, were the engine a swarm manager, the services) of one
// run.
type onlyRun struct {
	*client.Client
	runID string
}

func (e onlyRun) ContainerList(ctx context.Context, o container.ListOptions) ([]container.Summary, error) {
	o.Filters = o.Filters.Clone()
	o.Filters.Add("label", sweep.LabelRun+"="+e.runID)
	return e.Client.ContainerList(ctx, o)
}

func (e onlyRun) ServiceList(ctx context.Context, o swarm.ServiceListOptions) ([]swarm.Service, error) {
	o.Filters = o.Filters.Clone()
	o.Filters.Add("label", sweep.LabelRun+"="+e.runID)
	return e.Client.ServiceList(ctx, o)
}

var _ session.CleanEngine = onlyRun{}

// containerIDs lists the ids of the containers with these labels, sorted.
func containerIDs(t *testing.T, cli *client.Client, labels ...string) []string {
	t.Helper()
	var ids []string
	for _, c := range containers(t, cli, labels...) {
		ids = append(ids, c.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestCleanTimeoutMustBePositive: a clean with no bound is bad input of
// --timeout, before any engine is asked.
func TestCleanTimeoutMustBePositive(t *testing.T) {
	code, _, stderr := runCLIEnv(t, sweep.Env{"DOCKER_HOST=unix:///nonexistent.sock"}, "clean", "--timeout", "0s")
	if code != exitBadInput || !strings.Contains(stderr, "--timeout") {
		t.Errorf("clean --timeout 0s: exit %d, %q; want 2 naming --timeout", code, stderr)
	}
}

// TestCleanTimeoutNamesItsFlag: the clean's call timeout, as the user
// reads it, names the flag that sets it.
func TestCleanTimeoutNamesItsFlag(t *testing.T) {
	err := clean(t.Context(), io.Discard, wedgedEngine{}, "", false, 50*time.Millisecond)
	if msg := message(err); !errors.Is(err, sweep.ErrCallTimeout) || !strings.Contains(msg, "(the clean's bound, --timeout)") {
		t.Errorf("clean over a wedged engine: %q; want its call timeout naming --timeout", msg)
	}
}

// wedgedEngine is an engine that is no swarm manager and whose container
// list never answers until its context ends.
type wedgedEngine struct{ emptyEngine }

func (wedgedEngine) ContainerList(ctx context.Context, _ container.ListOptions) ([]container.Summary, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
