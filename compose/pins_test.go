package compose

// Edges that mutation testing (make mutation-sample) found no test held:
// the run labels, a missing compose file, the state text of an error.

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/sweep"
)

// TestRunLabels: a run without a directory is labelled by its id alone;
// with one, by the directory's absolute path and this host's name too.
func TestRunLabels(t *testing.T) {
	t.Parallel()
	l, err := runLabels(Options{RunID: "r1"})
	if err != nil || l != (RunLabels{ID: "r1"}) {
		t.Errorf("no run directory: %+v, %v; want the id alone", l, err)
	}
	host, _ := os.Hostname()
	abs, _ := filepath.Abs("runs/r1")
	l, err = runLabels(Options{RunID: "r1", RunDir: "runs/r1"})
	if err != nil || l != (RunLabels{ID: "r1", Dir: abs, Host: host}) {
		t.Errorf("with a run directory: %+v, %v; want dir %s, host %s", l, err, abs, host)
	}
}

// TestCheckInputMissingFile: a compose file that is not there is bad
// input naming the compose field.
func TestCheckInputMissingFile(t *testing.T) {
	t.Parallel()
	s := &Stack{opts: Options{RunID: "r1", Files: []string{filepath.Join(t.TempDir(), "docker-compose.yml")}}, project: "sweepr1"}
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
