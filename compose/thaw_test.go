package compose

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/sweep"
)

// pauseEngine lists its paused containers for a status=paused filter and
// answers unpause as each container's script says.
type pauseEngine struct {
	engine.Engine
	mu       sync.Mutex
	paused   map[string]bool
	unpause  map[string]func(ctx context.Context) error // nil: unpauses
	unpaused []string
}

func (e *pauseEngine) ContainerList(_ context.Context, o container.ListOptions) ([]container.Summary, error) {
	if got := o.Filters.Get("status"); !slices.Equal(got, []string{"paused"}) || !o.All {
		return nil, fmt.Errorf("list with status %v, all %v; want only the paused ones", got, o.All)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []container.Summary
	for _, id := range slices.Sorted(maps.Keys(e.paused)) {
		if e.paused[id] {
			out = append(out, container.Summary{ID: id, Names: []string{"/" + id}})
		}
	}
	return out, nil
}

func (e *pauseEngine) ContainerUnpause(ctx context.Context, id string) error {
	if f := e.unpause[id]; f != nil {
		return f(ctx)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.paused[id] = false
	e.unpaused = append(e.unpaused, id)
	return nil
}

func (e *pauseEngine) ContainerInspect(_ context.Context, id string) (container.InspectResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{ID: id,
		State: &container.State{Paused: e.paused[id]}}}, nil
}

// TestThaw: paused containers are unpaused; one that another caller
// unpaused first is no error; one whose unpause the engine never answers
// fails in unpauseTimeout, named, and does not stop the others.
func TestThaw(t *testing.T) {
	old := unpauseTimeout
	unpauseTimeout = 200 * time.Millisecond
	t.Cleanup(func() { unpauseTimeout = old })
	var e *pauseEngine
	e = &pauseEngine{
		paused: map[string]bool{"app": true, "db": true, "raced": true, "stuck": true, "running": false},
		unpause: map[string]func(context.Context) error{
			"raced": func(context.Context) error {
				e.mu.Lock()
				defer e.mu.Unlock()
				e.paused["raced"] = false // someone else unpaused it first
				return errors.New("Container raced is not paused")
			},
			"stuck": func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() },
		},
	}
	start := time.Now()
	err := thaw(t.Context(), e, container.ListOptions{Filters: engine.LabelFilter("x=y")})
	took := time.Since(start)
	if want := []string{"app", "db"}; !slices.Equal(e.unpaused, want) {
		t.Errorf("unpaused %v, want %v", e.unpaused, want)
	}
	if err == nil || !strings.Contains(err.Error(), "unpause stuck: the engine did not answer") ||
		strings.Contains(err.Error(), "raced") {
		t.Errorf("err = %v, want only the stuck container named", err)
	}
	// the stuck unpause and the inspect after it, each bounded: at least
	// the one bound, and far under the 30 s default
	if took < unpauseTimeout || took > 10*time.Second {
		t.Errorf("thaw took %s with a %s bound", took, unpauseTimeout)
	}
}

// TestPausedContainersOnEngine pauses the target and the side service of
// a running stack: the next Apply recreates the target (unpausing it
// first) and leaves the side service alone, and Down removes the side
// service still paused, all well inside the test's bound instead of
// hanging on the engine.
func TestPausedContainersOnEngine(t *testing.T) {
	eng := testenv.Docker(t)
	cli := composeCLI(t)
	file := writeStack(t, testenv.GoImage(t, eng, "sweep-compose-test", "./testdata/httpd"))
	runID := newRunID(t)
	s, err := New(t.Context(), Options{StackOptions: sweep.StackOptions{Files: []string{file}, Service: "web", RunID: runID, SweptEnv: []string{"WEB_THREADS"}}, Engine: eng, CLI: cli})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { down(t, s, eng, runID) })
	cell := func(n string) sweep.TargetConfig {
		return sweep.TargetConfig{Dir: filepath.Join(t.TempDir(), "cell"), CPUs: 0.5,
			Env: map[string]string{"WEB_THREADS": n}, Labels: map[string]string{sweep.LabelCell: "c" + n}}
	}
	applyCell(t, s, cell("1"))
	web, side := serviceContainer(t, s, "web"), serviceContainer(t, s, "side")
	for _, id := range []string{web, side} {
		if err := eng.ContainerPause(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := s.Apply(ctx, cell("2")); err != nil {
		t.Fatalf("Apply after the target was paused: %v", err)
	}
	if err := s.WaitReady(ctx, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if id := serviceContainer(t, s, "web"); id == web {
		t.Errorf("the paused target %s was not recreated", web)
	}
	c, err := eng.ContainerInspect(ctx, side)
	if err != nil || !c.State.Paused {
		t.Errorf("side service: paused %v (%v), want still paused: only what compose recreates is unpaused",
			c.State != nil && c.State.Paused, err)
	}
	// down (the cleanup) removes the paused side service and checks that
	// nothing of the run is left
}
