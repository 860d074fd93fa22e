package k6

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The exit codes of k6 that sweep tells apart (k6's errext/exitcodes).
const (
	exitThresholds     = 99
	exitCannotStartAPI = 106
)

// exitMeanings names the k6 exit codes a user is likely to meet.
var exitMeanings = map[int]string{
	100: "setup timeout",
	101: "teardown timeout",
	103: "stopped from the REST API",
	104: "invalid configuration",
	105: "aborted by a signal",
	106: "cannot start the REST API",
	107: "script exception",
	108: "script aborted",
	109: "k6 panicked",
	110: "marked as failed",
}

// command prepares k6 with argv and env. k6 gets its own process group
// (Setpgid) so a terminal Ctrl-C reaches only sweep; sweep's handler
// cancels ctx, and cancelling sends k6 one SIGINT, on which k6 stops its
// VUs and still writes its summary. Without the own group, k6 would get
// the terminal's SIGINT as well as sweep's, and a second SIGINT makes k6
// exit at once without a summary. If k6 has not exited grace after the
// SIGINT, it is killed.
func command(ctx context.Context, bin string, args, env []string, grace time.Duration) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(cmd.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = grace
	return cmd
}

// exitCode returns the process's exit code, or -1 when err is not an
// exit status (the process did not start, or was killed by a signal).
func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	return -1
}

// exitError describes a k6 run that ended in neither success nor crossed
// thresholds, with the tail of its stderr.
func exitError(err error, stderr string) error {
	code := exitCode(err)
	what := exitMeanings[code]
	if what == "" {
		what = "unexpected exit"
	}
	tail := strings.TrimSpace(stderr)
	if tail == "" {
		tail = "(no stderr)"
	}
	return fmt.Errorf("k6 %s (exit %d): %w\n%s", what, code, err, tail)
}

// freeAddress returns a loopback host:port that was free a moment ago,
// for k6's REST API. A race with another process is possible; Run retries
// once when k6 says it cannot start its REST API.
func freeAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	return addr, nil
}

// tail keeps the last n bytes written to it.
type tail struct {
	mu  sync.Mutex
	n   int
	buf []byte
}

var _ io.Writer = (*tail)(nil)

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.n; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
