package swarm

import (
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/swarm"
)

func runningTask(id, node string) swarm.Task {
	return swarm.Task{ID: id, NodeID: node, DesiredState: swarm.TaskStateRunning,
		Status: swarm.TaskStatus{State: swarm.TaskStateRunning, ContainerStatus: &swarm.ContainerStatus{ContainerID: "c" + id}}}
}

func TestWatchSeesATaskEnd(t *testing.T) {
	t.Parallel()
	f := &fakeManager{tasks: map[string][]swarm.Task{}}
	f.set("sapp", runningTask("a1", "n1"))
	f.set("sdb", runningTask("d1", "n1"))
	w, err := fakeStack(f).Watch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	died := runningTask("d1", "n1")
	died.Status.State, died.Status.Err = swarm.TaskStateFailed, "task: non-zero exit (137)"
	f.set("sdb", died, swarm.Task{ID: "d2", DesiredState: swarm.TaskStateRunning, Status: swarm.TaskStatus{State: swarm.TaskStatePending}})
	select {
	case <-w.Changed():
	case <-time.After(5 * time.Second):
		t.Fatal("the watch did not see the database's task fail")
	}
	events, err := w.Stop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || events[0].Service != "db" || events[0].Target {
		t.Fatalf("events %+v, want db's task gone and its replacement", events)
	}
	got := events[0].Action + " " + events[0].Detail + " | " + events[1].Action
	if !strings.Contains(got, "die task d1: state failed") || !strings.Contains(got, "non-zero exit (137)") || !strings.Contains(got, "appeared") {
		t.Errorf("events say %q", got)
	}
}

func TestWatchQuiet(t *testing.T) {
	t.Parallel()
	f := &fakeManager{tasks: map[string][]swarm.Task{}}
	f.set("sapp", runningTask("a1", "n1"))
	f.set("sdb", runningTask("d1", "n1"), swarm.Task{ID: "d0", DesiredState: swarm.TaskStateShutdown,
		Status: swarm.TaskStatus{State: swarm.TaskStateShutdown}})
	w, err := fakeStack(f).Watch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * watchEvery)
	if events, err := w.Stop(t.Context()); err != nil || len(events) != 0 {
		t.Errorf("a stack that stayed the same: events %+v, %v", events, err)
	}
}

func TestWatchTargetNotRunning(t *testing.T) {
	t.Parallel()
	f := &fakeManager{tasks: map[string][]swarm.Task{}}
	f.set("sdb", runningTask("d1", "n1"))
	w, err := fakeStack(f).Watch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	events, _ := w.Stop(t.Context())
	if len(events) != 1 || events[0].Service != "app" || !events[0].Target || events[0].Action != "not-running" {
		t.Errorf("events %+v, want the target not running", events)
	}
}

func TestLogsAndReadBackFromTask(t *testing.T) {
	t.Parallel()
	f := &fakeManager{tasks: map[string][]swarm.Task{}, logs: "panic: pool exhausted\n"}
	app := runningTask("a1", "n1")
	app.Spec = swarm.TaskSpec{ContainerSpec: &swarm.ContainerSpec{Env: []string{"W=4", "X=1"}},
		Resources: &swarm.ResourceRequirements{Limits: &swarm.Limit{NanoCPUs: 1_500_000_000}}}
	f.set("sapp", app)
	f.set("sdb", runningTask("d1", "n1"))
	st := fakeStack(f)
	a, err := st.ReadBack(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if a.CPUs != 1.5 || a.Env["W"] != "4" || len(a.Env) != 1 || a.ContainerID != "ca1" {
		t.Errorf("read back %+v from the task", a)
	}
	if !strings.HasPrefix(a.ReadFrom, "task: ") || !strings.Contains(a.ReadFrom, EngineLabel) {
		t.Errorf("read_from %q, want why the container was not reached", a.ReadFrom)
	}
	if a.Nodes["app"].Hostname != "host1" || a.Nodes["db"].ID != "n1" {
		t.Errorf("nodes %+v", a.Nodes)
	}
	logs, err := st.Logs(t.Context(), 50)
	if err != nil || !strings.Contains(logs, "panic: pool exhausted") || !strings.Contains(logs, "task a1 on node n1") {
		t.Errorf("logs %q, %v", logs, err)
	}
}
