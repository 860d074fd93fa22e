package compose

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/results"
)

// cstate is what one look at one container found.
type cstate struct {
	service               string
	running, paused       bool
	status                container.ContainerState
	health                container.HealthStatus // "" without a healthcheck
	exitCode              int
	oom                   bool
	restarts              int
	startedAt, finishedAt time.Time
}

// states are the stack's containers by id.
type states map[string]cstate

// scope is what a watch looks at: the containers with label (KEY=VALUE,
// one-off containers left out), each the service service names; name
// names them in errors.
type scope struct {
	name    string
	label   string
	service func(labels map[string]string) string
}

// projectScope is the stack's compose project, its services by their
// compose label.
func (s *Stack) projectScope() scope {
	return scope{name: s.project, label: projectLabel + "=" + s.project,
		service: func(l map[string]string) string { return l[serviceLabel] }}
}

// look inspects every container of the project (one-off containers left
// out).
func (s *Stack) look(ctx context.Context) (states, error) { return s.lookIn(ctx, s.projectScope()) }

// lookIn inspects every container of sc.
func (s *Stack) lookIn(ctx context.Context, sc scope) (states, error) {
	list, err := s.eng.ContainerList(ctx, container.ListOptions{All: true, Filters: engine.LabelFilter(
		sc.label, oneoffLabel+"=False")})
	if err != nil {
		return nil, fmt.Errorf("list containers of %s: %w", sc.name, err)
	}
	out := make(states, len(list))
	for _, c := range list {
		in, err := s.eng.ContainerInspect(ctx, c.ID)
		if err != nil {
			return nil, fmt.Errorf("inspect %s: %w", sc.service(c.Labels), err)
		}
		st := cstate{service: sc.service(c.Labels)}
		if in.ContainerJSONBase != nil {
			st.restarts = in.RestartCount
		}
		if b := in.ContainerJSONBase; b != nil && b.State != nil {
			st.running, st.paused, st.status = b.State.Running, b.State.Paused, b.State.Status
			st.exitCode, st.oom = b.State.ExitCode, b.State.OOMKilled
			if h := b.State.Health; h != nil {
				st.health = h.Status
			}
			st.startedAt, _ = time.Parse(time.RFC3339Nano, b.State.StartedAt)
			st.finishedAt, _ = time.Parse(time.RFC3339Nano, b.State.FinishedAt)
		}
		out[c.ID] = st
	}
	return out, nil
}

// notRunning lists, as events at at, the containers that are paused or
// not running: a one-shot service that exited with code 0 is done, not
// down, unless it is the target.
func (ss states) notRunning(target string, at time.Time) []results.StackEvent {
	var out []results.StackEvent
	for _, st := range ss {
		ev := results.StackEvent{Service: st.service, Target: st.service == target, At: at}
		switch {
		case st.paused:
			ev.Action = "paused"
		case st.running:
			continue
		case st.status == container.StateExited && st.exitCode == 0 && !ev.Target:
			continue
		default:
			ev.Action, ev.Detail = "not-running", fmt.Sprintf("status %s, exit code %d", st.status, st.exitCode)
		}
		out = append(out, ev)
	}
	return sortEvents(out)
}

// diffStates lists the changes between two looks: containers gone,
// appeared or replaced, restarted (a new start time or restart count),
// stopped, paused or OOM-killed since. now stands for when a change whose
// time the state does not keep was found.
func diffStates(before, after states, target string, now time.Time) []results.StackEvent {
	var out []results.StackEvent
	ev := func(svc, action, detail string, at time.Time) {
		out = append(out, results.StackEvent{Service: svc, Target: svc == target, Action: action, Detail: detail, At: at})
	}
	for id, b := range before {
		a, ok := after[id]
		switch {
		case !ok:
			ev(b.service, "gone", "container "+short(id), now)
		case !a.startedAt.Equal(b.startedAt) || a.restarts != b.restarts:
			ev(a.service, "restart", fmt.Sprintf("restart count %d", a.restarts), a.startedAt)
		case b.running && !a.running:
			ev(a.service, "die", fmt.Sprintf("exit code %d", a.exitCode), a.finishedAt)
		case !b.paused && a.paused:
			ev(a.service, "pause", "", now)
		case !b.oom && a.oom:
			ev(a.service, "oom", "", a.finishedAt)
		}
	}
	for id, a := range after {
		if _, ok := before[id]; !ok {
			ev(a.service, "appeared", "container "+short(id), a.startedAt)
		}
	}
	return sortEvents(out)
}

func sortEvents(evs []results.StackEvent) []results.StackEvent {
	slices.SortStableFunc(evs, func(a, b results.StackEvent) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.Service, b.Service)
	})
	return evs
}

// short is a container id as docker ps shows it.
func short(id string) string { return id[:min(12, len(id))] }
