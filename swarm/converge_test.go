package swarm

import (
	"errors"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/swarm"
)

func task(id string, desired, state swarm.TaskState) swarm.Task {
	return swarm.Task{ID: id, DesiredState: desired, Status: swarm.TaskStatus{State: state}}
}

func TestConverged(t *testing.T) {
	t.Parallel()
	run, shut := swarm.TaskStateRunning, swarm.TaskStateShutdown
	old := map[string]bool{"old": true}
	tests := []struct {
		name    string
		tasks   []swarm.Task
		waiting string // "" done; else a part of the state
		err     bool
	}{
		{"old still running", []swarm.Task{task("old", shut, run), task("new", run, swarm.TaskStatePreparing)}, "old task(s) not gone", false},
		{"new not yet running", []swarm.Task{task("old", shut, shut), task("new", run, swarm.TaskStateStarting)}, "0 of 1", false},
		{"done", []swarm.Task{task("old", shut, shut), task("new", run, run)}, "", false},
		{"new failed", []swarm.Task{task("old", shut, shut), task("new", run, swarm.TaskStateFailed)}, "", true},
		{"no task yet", nil, "0 of 1", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := converged("app", tc.tasks, old, 1)
			if tc.err != (err != nil) || (err != nil && !errors.Is(err, ErrTaskFailed)) {
				t.Fatalf("err %v, want error %v", err, tc.err)
			}
			if (tc.waiting == "") != (got == "") || !strings.Contains(got, tc.waiting) {
				t.Errorf("state %q, want %q", got, tc.waiting)
			}
		})
	}
}

func TestWithEnv(t *testing.T) {
	t.Parallel()
	got, err := withEnv([]string{"A=1", "B=2"}, map[string]string{"B": "3", "C": "x=y"})
	if err != nil || strings.Join(got, " ") != "A=1 B=3 C=x=y" {
		t.Errorf("withEnv = %v, %v", got, err)
	}
	if _, err := withEnv(nil, map[string]string{"A": "\x00"}); err == nil {
		t.Error("a NUL byte was accepted")
	}
}
