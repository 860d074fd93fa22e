package compose

// Edges that mutation testing (make mutation-sample) found no test held:
// the run labels, a missing compose file, the state text of an error.

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/sweep"
)

// TestCheckInputMissingFile: a compose file that is not there is bad
// input naming the compose field.
func TestCheckInputMissingFile(t *testing.T) {
	t.Parallel()
	s := &Stack{opts: Options{StackOptions: sweep.StackOptions{RunID: "r1", Files: []string{filepath.Join(t.TempDir(), "docker-compose.yml")}}}, project: "sweepr1"}
	err := s.checkInput()
	var bad *sweep.BadInputError
	if !errors.As(err, &bad) || bad.Field != "compose" || !strings.Contains(err.Error(), "docker-compose.yml") {
		t.Errorf("checkInput = %v; want bad input in compose naming the file", err)
	}
}

// TestDescribeState: the engine's error is named only when it gave one.
func TestDescribeState(t *testing.T) {
	t.Parallel()
	if got := describe(&container.State{Status: "running"}); got != "status running" {
		t.Errorf("describe = %q, want %q", got, "status running")
	}
	got := describe(&container.State{Status: "exited", ExitCode: 137, OOMKilled: true, Error: "boom"})
	if want := "status exited, exit code 137, OOM-killed, error boom"; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
}
