package k6

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// inspectTimeout bounds `k6 inspect`, which runs the script's init code.
const inspectTimeout = time.Minute

// ScriptOptions are the execution options a script's own `options` set,
// as `k6 inspect` prints them; nil (JSON null) when the script leaves
// one unset.
type ScriptOptions struct {
	VUs        *int64              `json:"vus"`
	Duration   *string             `json:"duration"`
	Iterations *int64              `json:"iterations"`
	Stages     []json.RawMessage   `json:"stages"`
	Scenarios  map[string]Scenario `json:"scenarios"`
}

// Scenario is the part of one k6 scenario that tells what load it runs.
type Scenario struct {
	Executor        string   `json:"executor"`
	VUs             *int64   `json:"vus"`
	Duration        *string  `json:"duration"`
	Iterations      *int64   `json:"iterations"`
	Rate            *float64 `json:"rate"`
	TimeUnit        *string  `json:"timeUnit"`
	PreAllocatedVUs *int64   `json:"preAllocatedVUs"`
	MaxVUs          *int64   `json:"maxVUs"`
}

// InspectArgs builds the argv (without the binary) of `k6 inspect` for
// script with the same __ENV settings a run gets, since a script's
// options may read them. The raw log format makes an error k6's own
// message, without logfmt quoting.
func InspectArgs(script string, env []string) []string {
	args := []string{"inspect", "--log-format", "raw"}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	return append(args, script)
}

// Inspect loads script with k6 (without running it) and returns the
// options it sets. A script k6 cannot load (a syntax error, an exception
// in its init code) is an error wrapping ErrScript with k6's message.
func Inspect(ctx context.Context, bin, script string, env []string) (ScriptOptions, error) {
	ctx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, InspectArgs(script, env)...)
	cmd.Env = append(cmd.Environ(), noUsageReport)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return ScriptOptions{}, fmt.Errorf("k6 inspect %s: %w", script, ctx.Err())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = fmt.Sprintf("k6 inspect exited %d without a message", exit.ExitCode())
		}
		return ScriptOptions{}, fmt.Errorf("%w: %s", ErrScript, msg)
	}
	if err != nil {
		return ScriptOptions{}, fmt.Errorf("k6 inspect: %w", err)
	}
	var opts ScriptOptions
	if err := json.Unmarshal(stdout.Bytes(), &opts); err != nil {
		return ScriptOptions{}, fmt.Errorf("k6 inspect %s printed no options: %w", script, err)
	}
	return opts, nil
}

// plain lists the script-wide execution shortcuts the options set, as
// name=value.
func (o ScriptOptions) plain() []string {
	var set []string
	if o.VUs != nil {
		set = append(set, fmt.Sprintf("vus=%d", *o.VUs))
	}
	if o.Duration != nil {
		set = append(set, "duration="+*o.Duration)
	}
	if o.Iterations != nil {
		set = append(set, fmt.Sprintf("iterations=%d", *o.Iterations))
	}
	if o.Stages != nil {
		set = append(set, fmt.Sprintf("stages (%d)", len(o.Stages)))
	}
	return set
}
