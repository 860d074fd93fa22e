package compose

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/sweep-tool/sweep/sweep"
)

// Kind says which compose CLI runs the stack.
type Kind int

// The two compose CLIs: the `docker compose` plugin and the Python
// `docker-compose` binary.
const (
	V2 Kind = iota + 1
	V1
)

// CLI is a detected compose command line: its kind and the argv prefix
// that runs it (["docker", "compose"] or ["/usr/bin/docker-compose"]).
type CLI struct {
	Kind   Kind
	Prefix []string
}

// String names the CLI as a user types it.
func (c CLI) String() string { return strings.Join(c.Prefix, " ") }

// CLIEnv names the environment variable that picks one compose CLI: "v1"
// (docker-compose) or "v2" (the docker compose plugin); empty or unset
// detects. CI runs the same tests under both this way.
const CLIEnv = "SWEEP_COMPOSE_CLI"

// DetectCLI finds the compose CLI: the v2 plugin when `docker compose
// version` succeeds, else docker-compose v1 on PATH, else an error wrapping
// ErrNoComposeCLI. SWEEP_COMPOSE_CLI=v1|v2 in env asks for one of them,
// and it is an error when that one is missing.
func DetectCLI(ctx context.Context, env sweep.Env) (CLI, error) {
	probe := func(argv []string) error {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = env
		return cmd.Run()
	}
	return detect(env.Get(CLIEnv), probe, exec.LookPath)
}

// detect is DetectCLI with the outside world passed in; want is "", "v1"
// or "v2".
func detect(want string, run func(argv []string) error, lookPath func(string) (string, error)) (CLI, error) {
	if want != "" && want != "v1" && want != "v2" {
		return CLI{}, fmt.Errorf("%w: %s=%q; give v1, v2 or leave it unset", ErrNoComposeCLI, CLIEnv, want)
	}
	var v2Err error
	if want != "v1" {
		if docker, err := lookPath("docker"); err != nil {
			v2Err = err
		} else if v2Err = run([]string{docker, "compose", "version"}); v2Err == nil {
			return CLI{Kind: V2, Prefix: []string{docker, "compose"}}, nil
		}
		if want == "v2" {
			return CLI{}, fmt.Errorf("%w: %s=v2 but `docker compose version` failed (%v); install the Docker Compose plugin",
				ErrNoComposeCLI, CLIEnv, v2Err)
		}
	}
	v1, err := lookPath("docker-compose")
	switch {
	case err != nil && want == "v1":
		return CLI{}, fmt.Errorf("%w: %s=v1 but docker-compose is not on PATH (%v); install docker-compose",
			ErrNoComposeCLI, CLIEnv, err)
	case err != nil:
		return CLI{}, fmt.Errorf("%w: `docker compose version` failed (%v) and docker-compose is not on PATH; "+
			"install the Docker Compose plugin or docker-compose", ErrNoComposeCLI, v2Err)
	}
	return CLI{Kind: V1, Prefix: []string{v1}}, nil
}

// Invocation is what every compose command of one stack shares.
type Invocation struct {
	Project string
	// Files are the base files, then the override (when there is one).
	Files []string
	// Compat adds --compatibility for v1, so it honours
	// deploy.resources.limits.cpus. v2 honours it natively.
	Compat bool
}

// Argv builds the full command line of one compose subcommand. It never
// goes through a shell.
func (c CLI) Argv(inv Invocation, sub ...string) []string {
	argv := append([]string{}, c.Prefix...)
	if c.Kind == V1 && inv.Compat {
		argv = append(argv, "--compatibility")
	}
	argv = append(argv, "-p", inv.Project)
	for _, f := range inv.Files {
		argv = append(argv, "-f", f)
	}
	return append(argv, sub...)
}

// UpAll starts every service of the stack (the first cell).
func UpAll() []string { return []string{"up", "-d"} }

// UpServices starts the given services (and what they depend on) before
// the target's first start.
func UpServices(services ...string) []string { return append([]string{"up", "-d"}, services...) }

// UpTarget recreates only the target service (later cells), and the
// services whose env an axis sets.
func UpTarget(service string, others ...string) []string {
	return append([]string{"up", "-d", "--no-deps", "--force-recreate", service}, others...)
}

// Down removes the stack with its volumes and orphans.
func Down() []string { return []string{"down", "-v", "--remove-orphans", "--timeout", "5"} }

// Config prints the merged configuration.
func Config() []string { return []string{"config"} }

// ConfigServices prints the service names, one a line.
func ConfigServices() []string { return []string{"config", "--services"} }

// VersionArgv is the command line that prints the CLI's bare version.
func (c CLI) VersionArgv() []string {
	return append(append([]string{}, c.Prefix...), "version", "--short")
}

// run executes argv in env (nil: sweep's own environment) and returns its
// stdout. Stderr is copied to logs (when not nil) and its tail is part of
// the error.
func run(ctx context.Context, argv []string, env sweep.Env, logs io.Writer) ([]byte, error) {
	var stdout bytes.Buffer
	stderr := &tailBuffer{max: 4096}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdout = &stdout
	cmd.Stderr = stderr
	if logs != nil {
		cmd.Stderr = io.MultiWriter(stderr, logs)
	}
	// Its own process group: a terminal Ctrl-C goes to sweep's group only,
	// and sweep decides (finish the cell as interrupted, then tear down).
	// On cancellation compose gets SIGTERM to stop cleanly, then a kill.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = errors.Join(err, ctxErr)
		}
		return stdout.Bytes(), fmt.Errorf("%s: %w%s", strings.Join(argv, " "), err, stderr.tail())
	}
	return stdout.Bytes(), nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

// tail is the kept stderr, formatted to end an error message.
func (t *tailBuffer) tail() string {
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return ""
	}
	return "\nstderr:\n" + s
}
