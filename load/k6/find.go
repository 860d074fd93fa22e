package k6

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// installHint tells the user how to get k6; a caller adds its own ways
// past a missing k6 (another path, another driver).
const installHint = "install k6 (https://grafana.com/docs/k6/latest/set-up/install-k6/) and put it on PATH"

// Find returns the k6 binary to run: flagPath when set (a path, or a name
// looked up on PATH), else "k6" on PATH. The error wraps ErrNotFound and
// says how to get k6.
func Find(flagPath string) (string, error) {
	name := flagPath
	if name == "" {
		name = "k6"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w; %s", ErrNotFound, name, err, installHint)
	}
	return path, nil
}

// Version returns the first line of `k6 version`, e.g.
// "k6 v2.2.0 (go1.24.4, linux/amd64)", for sweep.json. A program that
// does not answer like k6 is refused with ErrNotK6.
func Version(ctx context.Context, bin string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "version")
	cmd.Env = append(cmd.Environ(), noUsageReport)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("k6 version: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "k6 v") {
		return "", fmt.Errorf("%w: %s: `%s version` printed %q, not \"k6 v…\"", ErrNotK6, bin, filepath.Base(bin), line)
	}
	return line, nil
}
