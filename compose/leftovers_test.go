package compose

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// labelEngine holds containers in memory and answers the calls Leftovers
// and Cleanup make, honouring label and status filters; it has no
// networks or volumes.
type labelEngine struct {
	engine.Engine
	containers []container.Summary
	removed    []string
}

func (e *labelEngine) ContainerList(_ context.Context, o container.ListOptions) ([]container.Summary, error) {
	var out []container.Summary
	for _, c := range e.containers {
		match := !slices.Contains(e.removed, c.ID)
		for _, st := range o.Filters.Get("status") {
			match = match && c.State == st
		}
		for _, f := range o.Filters.Get("label") {
			k, v, hasValue := strings.Cut(f, "=")
			got, ok := c.Labels[k]
			match = match && ok && (!hasValue || got == v)
		}
		if match {
			out = append(out, c)
		}
	}
	return out, nil
}

func (e *labelEngine) ContainerRemove(_ context.Context, id string, _ container.RemoveOptions) error {
	e.removed = append(e.removed, id)
	return nil
}

func (e *labelEngine) NetworkList(context.Context, network.ListOptions) ([]network.Summary, error) {
	return nil, nil
}

func (e *labelEngine) VolumeList(context.Context, volume.ListOptions) (volume.ListResponse, error) {
	return volume.ListResponse{}, nil
}

// add puts a container of run l on the engine.
func (e *labelEngine) add(l sweep.RunLabels) {
	labels := map[string]string{sweep.LabelRun: l.ID}
	if l.Dir != "" {
		labels[sweep.LabelDir], labels[sweep.LabelHost] = l.Dir, l.Host
	}
	e.containers = append(e.containers, container.Summary{ID: "c-" + l.ID + "-" + string(rune('a'+len(e.containers))),
		Labels: labels})
}

// TestCleanDeadNeverTouchesALiveRun checks which runs CleanDead removes:
// those whose directory is gone or whose lock is stale (even naming a live
// PID), never one whose lock a live process holds, nor one it cannot judge
// (no sweep.dir label, another host) unless forced.
func TestCleanDeadNeverTouchesALiveRun(t *testing.T) {
	t.Parallel()
	host, _ := os.Hostname()
	tmp := t.TempDir()
	dir := func(name string) string {
		d := filepath.Join(tmp, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	live := dir("live")
	lock, _, err := results.AcquireLock(live)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Release() })
	stale := dir("stale")
	if err := os.WriteFile(filepath.Join(stale, results.LockFile), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng := &labelEngine{}
	for _, l := range []sweep.RunLabels{{ID: "live", Dir: live, Host: host}, {ID: "stale", Dir: stale, Host: host}, {ID: "finished", Dir: dir("finished"), Host: host},
		{ID: "gone", Dir: filepath.Join(tmp, "gone"), Host: host}, {ID: "old", Dir: "", Host: ""}, {ID: "elsewhere", Dir: live, Host: "other-host"}} {
		eng.add(l)
		eng.add(l)
	}
	eng.add(sweep.RunLabels{ID: "mixed", Dir: live, Host: host})
	eng.add(sweep.RunLabels{ID: "mixed", Dir: "", Host: ""})
	runs, err := Leftovers(t.Context(), eng)
	if err != nil || len(runs) != 7 {
		t.Fatalf("Leftovers = %+v, %v; want 7 runs", runs, err)
	}
	want := map[string]error{"live": sweep.ErrRunAlive, "stale": nil, "finished": nil, "gone": nil,
		"old": sweep.ErrRunUnknown, "elsewhere": sweep.ErrRunUnknown, "mixed": sweep.ErrRunUnknown}
	for _, l := range runs {
		before := len(eng.removed)
		got, err := CleanDead(t.Context(), eng, l, false)
		if !errors.Is(err, want[l.ID]) || (want[l.ID] == nil) != (len(got.Containers) == l.Containers) ||
			(want[l.ID] != nil && len(eng.removed) != before) {
			t.Errorf("run %s: removed %v, err %v; want err %v and all or none of its %d containers removed",
				l.ID, got.Containers, err, want[l.ID], l.Containers)
		}
	}
	if _, err := os.Stat(filepath.Join(stale, results.LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale lock taken for the cleaning is left behind (%v)", err)
	}
	if _, err := CleanDead(t.Context(), eng, sweep.Leftover{RunLabels: sweep.RunLabels{ID: "live", Dir: live, Host: host}, Containers: 2}, true); err != nil ||
		len(eng.removed) != 8 {
		t.Errorf("force: err %v, %d containers removed, want 8 (3 dead runs, then the live one)", err, len(eng.removed))
	}
}

// TestLeftoversInOrderAndContainerless: runs are listed by id; a run
// that left no containers (networks and volumes only, which the engine
// keeps while in use) is cleaned without the proof, even naming a live
// directory.
func TestLeftoversInOrderAndContainerless(t *testing.T) {
	t.Parallel()
	host, _ := os.Hostname()
	live := t.TempDir()
	lock, _, err := results.AcquireLock(live)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Release() })
	eng := &labelEngine{}
	for _, id := range []string{"c", "a", "b"} {
		eng.add(sweep.RunLabels{ID: id})
	}
	runs, err := Leftovers(t.Context(), eng)
	if err != nil || len(runs) != 3 || runs[0].ID != "a" || runs[1].ID != "b" || runs[2].ID != "c" {
		t.Fatalf("Leftovers = %+v, %v; want a, b, c", runs, err)
	}
	if _, err := CleanDead(t.Context(), eng, sweep.Leftover{RunLabels: sweep.RunLabels{ID: "netonly", Dir: live, Host: host}}, false); err != nil {
		t.Errorf("a run without containers: %v, want it cleaned without the proof", err)
	}
}
