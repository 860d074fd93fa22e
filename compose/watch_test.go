package compose

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

func TestDiffStates(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 1, 3, 0, 0, 0, time.UTC)
	now := t0.Add(time.Minute)
	run := func(svc string) cstate {
		return cstate{service: svc, running: true, status: container.StateRunning, startedAt: t0}
	}
	for _, tc := range []struct {
		name          string
		before, after states
		want          string
	}{
		{"nothing changed", states{"a": run("app"), "d": run("db")}, states{"a": run("app"), "d": run("db")}, ""},
		{"restarted in place", states{"a": run("app")},
			states{"a": func() cstate { c := run("app"); c.startedAt = t0.Add(5 * time.Second); return c }()},
			"app/target restart (restart count 0) +5s"},
		{"restart count", states{"d": run("db")},
			states{"d": func() cstate { c := run("db"); c.restarts = 1; return c }()}, "db restart (restart count 1) +0s"},
		{"stopped", states{"d": run("db")},
			states{"d": {service: "db", status: container.StateExited, exitCode: 137, startedAt: t0, finishedAt: t0.Add(2 * time.Second)}},
			"db die (exit code 137) +2s"},
		{"paused", states{"d": run("db")}, states{"d": func() cstate { c := run("db"); c.paused = true; return c }()}, "db pause +1m0s"},
		{"replaced", states{"a": run("app")}, states{"b": run("app")},
			"app/target appeared (container b) +0s, app/target gone (container a) +1m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := showEvents(diffStates(tc.before, tc.after, "app", now), t0); got != tc.want {
				t.Errorf("diffStates = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNotRunning(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 1, 3, 0, 0, 0, time.UTC)
	ss := states{
		"a": {service: "app", running: true},
		"m": {service: "migrate", status: container.StateExited},
		"d": {service: "db", running: true, paused: true},
		"p": {service: "pgbouncer", status: container.StateExited, exitCode: 1},
		"x": {service: "app", status: container.StateExited},
	}
	want := "app/target not-running (status exited, exit code 0) +0s, db paused +0s, " +
		"pgbouncer not-running (status exited, exit code 1) +0s"
	if got := showEvents(ss.notRunning("app", t0), t0); got != want {
		t.Errorf("notRunning = %q, want %q", got, want)
	}
}

// showEvents renders events for comparison: service (/target), action,
// detail and the offset from t0.
func showEvents(evs []results.StackEvent, t0 time.Time) string {
	parts := make([]string, 0, len(evs))
	for _, ev := range evs {
		s := ev.Service
		if ev.Target {
			s += "/target"
		}
		s += " " + ev.Action
		if ev.Detail != "" {
			s += " (" + ev.Detail + ")"
		}
		parts = append(parts, s+" +"+ev.At.Sub(t0).String())
	}
	return strings.Join(parts, ", ")
}

// streamEngine is a fakeEngine whose event stream a test feeds.
type streamEngine struct {
	fakeEngine
	msgs chan events.Message
	errs chan error
	opts events.ListOptions
}

func (e *streamEngine) Events(_ context.Context, o events.ListOptions) (<-chan events.Message, <-chan error) {
	e.opts = o
	return e.msgs, e.errs
}

func TestWatchOverFakeEngine(t *testing.T) {
	t.Parallel()
	running := &container.State{Status: container.StateRunning, Running: true, StartedAt: "2025-01-01T03:00:00Z"}
	eng := &streamEngine{fakeEngine: fakeEngine{states: []*container.State{running}},
		msgs: make(chan events.Message), errs: make(chan error, 1)}
	s := &Stack{eng: eng, project: "sweeptest", opts: Options{StackOptions: sweep.StackOptions{Service: "app"}}}
	w, err := s.Watch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if f := eng.opts.Filters; !f.ExactMatch("label", projectLabel+"=sweeptest") || !f.ExactMatch("event", "die") ||
		f.ExactMatch("event", "exec_start") || eng.opts.Since == "" {
		t.Errorf("events asked with %+v", eng.opts)
	}
	select {
	case <-w.Changed():
		t.Fatal("changed before any event")
	default:
	}
	at := time.Now()
	eng.msgs <- events.Message{Action: events.ActionDie, TimeNano: at.UnixNano(), Actor: events.Actor{
		ID: "0123456789abcdef", Attributes: map[string]string{serviceLabel: "app", "exitCode": "137"}}}
	select {
	case <-w.Changed():
	case <-time.After(5 * time.Second):
		t.Fatal("Changed not closed after a die event")
	}
	eng.errs <- errors.New("unexpected EOF")
	<-w.(*watch).done // the stream broke before Stop
	evs, err := w.Stop(t.Context())
	if err == nil || !strings.Contains(err.Error(), "engine event stream: unexpected EOF") {
		t.Errorf("Stop error %v, want the broken stream", err)
	}
	if len(evs) != 1 || evs[0].Action != "die" || !evs[0].Target || evs[0].Detail != "exit code 137" || !evs[0].At.Equal(at) {
		t.Errorf("events %+v, want the target's die with its exit code", evs)
	}
}

// checkWatch watches the running stack on the real engine: healthchecks
// and a quiet second are no change; a docker restart of the target and a
// pause of the other service are, with their times; a service paused as
// the watch starts is one at once.
func checkWatch(t *testing.T, s *Stack, eng *client.Client) {
	t.Helper()
	evs := watchWhile(t, s, func() { time.Sleep(1500 * time.Millisecond) })
	if len(evs) != 0 {
		t.Errorf("a quiet stack gave events %+v", evs)
	}
	web, side := serviceContainer(t, s, "web"), serviceContainer(t, s, "side")
	one := 1
	var began time.Time
	evs = watchWhile(t, s, func() {
		began = time.Now()
		if err := eng.ContainerRestart(t.Context(), web, container.StopOptions{Timeout: &one}); err != nil {
			t.Fatal(err)
		}
	})
	if got := actions(evs); !strings.Contains(got, "web/target die") || !strings.Contains(got, "web/target start") {
		t.Errorf("docker restart of the target gave %q, want its die and start", got)
	} else if d := evs[0].At.Sub(began); d < -time.Second || d > 20*time.Second { // a 1 s stop timeout, and a loaded engine's time
		t.Errorf("the first event is at %s from the restart call", d)
	}
	evs = watchWhile(t, s, func() {
		if err := eng.ContainerPause(t.Context(), side); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		if err := eng.ContainerUnpause(t.Context(), side); err != nil {
			t.Fatal(err)
		}
	})
	if got := actions(evs); got != "side pause, side unpause" {
		t.Errorf("pause of side gave %q, want its pause and unpause", got)
	}
	if err := eng.ContainerPause(t.Context(), side); err != nil {
		t.Fatal(err)
	}
	evs = watchWhile(t, s, func() {})
	if err := eng.ContainerUnpause(t.Context(), side); err != nil {
		t.Fatal(err)
	}
	if got := actions(evs); got != "side paused" {
		t.Errorf("side paused at the start gave %q", got)
	}
}

// watchWhile watches the stack while do runs and returns what Stop saw;
// a change must be signalled before Stop returns it.
func watchWhile(t *testing.T, s *Stack, do func()) []results.StackEvent {
	t.Helper()
	w, err := s.Watch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	do()
	time.Sleep(200 * time.Millisecond)
	evs, err := w.Stop(t.Context())
	if err != nil {
		t.Errorf("Stop: %v", err)
	}
	select {
	case <-w.Changed():
		if len(evs) == 0 {
			t.Error("Changed closed but Stop returned no event")
		}
	default:
		if len(evs) > 0 {
			t.Errorf("Stop returned %d events but Changed was not closed", len(evs))
		}
	}
	return evs
}

// actions renders events as "service[/target] action", comma-separated.
func actions(evs []results.StackEvent) string {
	parts := make([]string, 0, len(evs))
	for _, ev := range evs {
		s := ev.Service
		if ev.Target {
			s += "/target"
		}
		parts = append(parts, s+" "+ev.Action)
	}
	return strings.Join(parts, ", ")
}
