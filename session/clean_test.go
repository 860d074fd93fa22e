package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/api/types/system"
	"github.com/docker/docker/api/types/volume"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// cleanFake is a swarm manager holding one service and one (running)
// container of a run; it notes what is removed, in order. The methods Clean does not
// reach are the nil interface's (a call panics).
type cleanFake struct {
	CleanEngine
	labels  map[string]string
	removed []string
}

func (f *cleanFake) Info(context.Context) (system.Info, error) {
	return system.Info{Swarm: swarm.Info{LocalNodeState: swarm.LocalNodeStateActive, ControlAvailable: true}}, nil
}

func (f *cleanFake) ServiceList(context.Context, swarm.ServiceListOptions) ([]swarm.Service, error) {
	if slices.Contains(f.removed, "service app") {
		return nil, nil
	}
	return []swarm.Service{{ID: "s1", Spec: swarm.ServiceSpec{Annotations: swarm.Annotations{Name: "app", Labels: f.labels}}}}, nil
}

func (f *cleanFake) ServiceRemove(context.Context, string) error {
	f.removed = append(f.removed, "service app")
	return nil
}

func (f *cleanFake) ContainerList(_ context.Context, o container.ListOptions) ([]container.Summary, error) {
	st := o.Filters.Get("status")
	if slices.Contains(f.removed, "container db") || (len(st) > 0 && !slices.Contains(st, container.StateRunning)) {
		return nil, nil
	}
	return []container.Summary{{ID: "c1", Names: []string{"/db"}, Labels: f.labels, State: container.StateRunning}}, nil
}

func (f *cleanFake) ContainerRemove(context.Context, string, container.RemoveOptions) error {
	f.removed = append(f.removed, "container db")
	return nil
}

func (f *cleanFake) TaskList(context.Context, swarm.TaskListOptions) ([]swarm.Task, error) {
	return nil, nil
}
func (f *cleanFake) NodeList(context.Context, swarm.NodeListOptions) ([]swarm.Node, error) {
	return nil, nil
}
func (f *cleanFake) NetworkList(context.Context, network.ListOptions) ([]network.Summary, error) {
	return nil, nil
}
func (f *cleanFake) VolumeList(context.Context, volume.ListOptions) (volume.ListResponse, error) {
	return volume.ListResponse{}, nil
}

// TestCleanRemovesServicesBeforeContainers holds Clean to sweep clean's
// rule: a dead run loses its swarm services first, then its containers;
// a named live run is bad input of {run} pointing to {force}, and nothing
// of it is removed.
func TestCleanRemovesServicesBeforeContainers(t *testing.T) {
	host, _ := os.Hostname()
	labels := func(dir string) map[string]string {
		return map[string]string{sweep.LabelRun: "r1", sweep.LabelDir: dir, sweep.LabelHost: host}
	}
	t.Run("dead", func(t *testing.T) {
		f := &cleanFake{labels: labels(filepath.Join(t.TempDir(), "gone"))}
		got, err := Clean(t.Context(), f, "", false, 0)
		if err != nil || len(got.Swarm) != 1 || len(got.Engine) != 1 ||
			!slices.Equal(f.removed, []string{"service app", "container db"}) {
			t.Fatalf("Clean = %+v, %v; removed %v; want the service, then the container", got, err, f.removed)
		}
	})
	t.Run("named and alive", func(t *testing.T) {
		dir := t.TempDir()
		lock, _, err := results.AcquireLock(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Release()
		f := &cleanFake{labels: labels(dir)}
		_, err = Clean(t.Context(), f, "r1", false, 0)
		if badField(err) != "run" || !strings.Contains(err.Error(), "{force}") || len(f.removed) > 0 {
			t.Fatalf("Clean of a live run = %v, removed %v; want bad input of {run} naming {force}, nothing removed", err, f.removed)
		}
	})
}

// wedgedClean is cleanFake on an engine whose container list never
// answers, as a dockerd wedged on a frozen container (issue 38).
type wedgedClean struct {
	*cleanFake
	quit    <-chan struct{}
	reached chan struct{} // closed when the list is first called
	once    *sync.Once
}

func (f wedgedClean) ContainerList(context.Context, container.ListOptions) ([]container.Summary, error) {
	f.once.Do(func() { close(f.reached) })
	<-f.quit
	return nil, nil
}

// TestCleanIsBounded: sweep clean over an engine that accepts a call and
// never answers ends at its bound with the call timeout naming
// {timeout}, having done the swarm's part, instead of waiting for a
// Ctrl-C.
func TestCleanIsBounded(t *testing.T) {
	quit := make(chan struct{})
	t.Cleanup(func() { close(quit) })
	host, _ := os.Hostname()
	f := wedgedClean{&cleanFake{labels: map[string]string{sweep.LabelRun: "r1", sweep.LabelDir: filepath.Join(t.TempDir(), "gone"), sweep.LabelHost: host}},
		quit, make(chan struct{}), &sync.Once{}}
	done := make(chan error, 1)
	go func() {
		_, err := Clean(t.Context(), f, "", false, 100*time.Millisecond)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, sweep.ErrCallTimeout) || !strings.Contains(err.Error(), "{timeout}") ||
			!strings.Contains(err.Error(), "clean of the engine's leftovers: no answer within 100ms") {
			t.Errorf("Clean over a wedged engine = %v; want the call timeout of the clean naming {timeout}", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Clean over a wedged engine had not returned 30 s after its 100 ms bound")
	}
	// The clean's goroutine is left blocked in the list; what it removed
	// before is read once it got there.
	<-f.reached
	if !slices.Equal(f.removed, []string{"service app"}) {
		t.Errorf("removed %v; want the swarm's service, removed before the engine stopped answering", f.removed)
	}
}
