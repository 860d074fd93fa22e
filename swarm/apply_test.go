package swarm

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/sweep"
)

// hangEngine is a node engine whose ContainerStop never answers before
// its context ends.
type hangEngine struct {
	engine.Engine
	stopped chan error
}

func (h hangEngine) ContainerStop(ctx context.Context, _ string, _ container.StopOptions) error {
	<-ctx.Done()
	h.stopped <- ctx.Err()
	return ctx.Err()
}

// TestStopFirstBounded: a node engine that does not answer the stop
// holds stopFirst no longer than the stop grace period and
// stopFirstSlack; the update then stops the task as the swarm does.
// Not parallel: it shortens stopFirstSlack.
func TestStopFirstBounded(t *testing.T) {
	was := stopFirstSlack
	stopFirstSlack = 200 * time.Millisecond
	t.Cleanup(func() { stopFirstSlack = was })
	f := &fakeManager{tasks: map[string][]swarm.Task{}}
	s := fakeStack(f)
	grace := 100 * time.Millisecond
	spec := s.specs["app"]
	spec.TaskTemplate = swarm.TaskSpec{RestartPolicy: &swarm.RestartPolicy{Condition: swarm.RestartPolicyConditionNone},
		ContainerSpec: &swarm.ContainerSpec{StopGracePeriod: &grace}}
	s.specs["app"] = spec
	f.set("sapp", swarm.Task{ID: "t1", NodeID: "n1", DesiredState: swarm.TaskStateRunning,
		Status: swarm.TaskStatus{State: swarm.TaskStateRunning, ContainerStatus: &swarm.ContainerStatus{ContainerID: "c1"}}})
	eng := hangEngine{stopped: make(chan error, 1)}
	s.nodes.byID["n1"] = &node{engine: eng}
	start := time.Now()
	s.stopFirst(t.Context(), "app")
	// Far under the default slack of 15 s, with room for a loaded host.
	if took := time.Since(start); took < 300*time.Millisecond || took > 10*time.Second {
		t.Errorf("stopFirst took %s, want the 100 ms grace and 200 ms slack", took)
	}
	if err := <-eng.stopped; err != context.DeadlineExceeded {
		t.Errorf("the stop ended with %v, want its deadline", err)
	}
}

// seqManager is a manager whose service "sapp" is at version ver and
// refuses the first refusals updates as out of sequence, as SwarmKit
// does when the service changed since the version an update names
// (here: the version moves on with each refusal, as when the manager
// marks an earlier rolling update completed).
type seqManager struct {
	*fakeManager
	ver      uint64
	refusals int
	err      error // what a refusal says
	sent     []uint64
	force    []uint64
}

func (m *seqManager) ServiceInspectWithRaw(context.Context, string, swarm.ServiceInspectOptions) (swarm.Service, []byte, error) {
	svc := swarm.Service{Spec: swarm.ServiceSpec{Annotations: swarm.Annotations{Name: "sweept_app"}}}
	svc.Version.Index = m.ver
	svc.Spec.TaskTemplate.ForceUpdate = m.ver
	return svc, nil, nil
}

func (m *seqManager) ServiceUpdate(_ context.Context, _ string, v swarm.Version, spec swarm.ServiceSpec, _ swarm.ServiceUpdateOptions) (swarm.ServiceUpdateResponse, error) {
	m.sent = append(m.sent, v.Index)
	m.force = append(m.force, spec.TaskTemplate.ForceUpdate)
	if m.refusals > 0 {
		m.refusals--
		m.ver++
		return swarm.ServiceUpdateResponse{}, m.err
	}
	return swarm.ServiceUpdateResponse{}, nil
}

func seqStack(m *seqManager) *Stack {
	s := fakeStack(m.fakeManager)
	s.mgr = m
	s.specs["app"] = swarm.ServiceSpec{TaskTemplate: swarm.TaskSpec{ContainerSpec: &swarm.ContainerSpec{},
		Resources: &swarm.ResourceRequirements{Limits: &swarm.Limit{}}}}
	return s
}

// An update the manager refuses as out of sequence is sent again with the
// version read afresh; other refusals, and more than updateAttempts, end
// the cell's apply with the manager's error.
func TestUpdateRetriesOutOfSequence(t *testing.T) {
	defer func(b time.Duration) { updateBackoff = b }(updateBackoff)
	updateBackoff = time.Millisecond
	outOfSeq := errors.New("Error response from daemon: rpc error: code = Unknown desc = update out of sequence")
	cfg := sweep.TargetConfig{CPUs: 0.5, Env: map[string]string{"W": "2"}}

	m := &seqManager{fakeManager: &fakeManager{}, ver: 7, refusals: 2, err: outOfSeq}
	if err := seqStack(m).update(t.Context(), "app", cfg); err != nil {
		t.Fatalf("update after two refusals: %v", err)
	}
	if !slices.Equal(m.sent, []uint64{7, 8, 9}) || !slices.Equal(m.force, []uint64{8, 9, 10}) {
		t.Errorf("versions sent %v, force-update counters %v; want 7 8 9 and 8 9 10", m.sent, m.force)
	}

	m = &seqManager{fakeManager: &fakeManager{}, ver: 1, refusals: updateAttempts, err: outOfSeq}
	err := seqStack(m).update(t.Context(), "app", cfg)
	if !errors.Is(err, outOfSeq) || len(m.sent) != updateAttempts {
		t.Errorf("always out of sequence: %v after %d updates, want the manager's error after %d", err, len(m.sent), updateAttempts)
	}

	other := errors.New("rpc error: code = InvalidArgument desc = bad spec")
	m = &seqManager{fakeManager: &fakeManager{}, ver: 1, refusals: 1, err: other}
	if err := seqStack(m).update(t.Context(), "app", cfg); !errors.Is(err, other) || len(m.sent) != 1 {
		t.Errorf("another refusal: %v after %d updates, want it at once", err, len(m.sent))
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	m = &seqManager{fakeManager: &fakeManager{}, ver: 1, refusals: 1, err: outOfSeq}
	if err := seqStack(m).update(ctx, "app", cfg); !errors.Is(err, context.Canceled) || len(m.sent) != 1 {
		t.Errorf("cancelled while backing off: %v after %d updates", err, len(m.sent))
	}
}
