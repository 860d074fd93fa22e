package compose

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/sweep"
)

// pollEvery is how often WaitReady looks at the target.
const pollEvery = 150 * time.Millisecond

// WaitReady blocks until the target container is ready: "healthy" when it
// has a Docker healthcheck, else HTTP 200 from ReadyURL. It fails at once
// with ErrTargetExited when the container stops, and with sweep.ErrNotReady when
// timeout passes; both carry the last state seen.
func (s *Stack) WaitReady(ctx context.Context, timeout time.Duration) error {
	return s.waitReady(ctx, timeout, s.opts.Service, s.readyOnce)
}

// waitReady polls once until it says ready, fails or timeout passes;
// name names what it waits for.
func (s *Stack) waitReady(ctx context.Context, timeout time.Duration, name string,
	once func(ctx context.Context, httpc *http.Client) (bool, string, error)) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	httpc := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	last := "no container yet"
	for looked := false; ; looked = true {
		ready, state, err := once(ctx, httpc)
		switch {
		case ready:
			return nil
		case err != nil && ctx.Err() == nil:
			return err
		case ctx.Err() != nil && looked:
			// A look the deadline cut short says only that time ran out;
			// the message keeps what the last whole look saw (a 503, say).
		case err != nil:
			last = err.Error()
		default:
			last = state
		}
		select {
		case <-ctx.Done():
			if parent.Err() != nil { // the caller's end, not the timeout
				return fmt.Errorf("wait for %s: %w (last: %s)", name, context.Cause(parent), last)
			}
			return fmt.Errorf("%w: %s after %s: %s", sweep.ErrNotReady, name, timeout, last)
		case <-tick.C:
		}
	}
}

// readyOnce looks at the target once. It returns ready, or a description
// of the state for the timeout message, or an error when waiting longer
// cannot help.
func (s *Stack) readyOnce(ctx context.Context, httpc *http.Client) (bool, string, error) {
	id, err := s.target(ctx)
	if errors.Is(err, ErrNoContainer) {
		return false, err.Error(), nil
	}
	if err != nil {
		return false, "", err
	}
	return s.readyOf(ctx, httpc, id, s.opts.ReadyURL)
}

// readyOf looks at container id once: healthy by its healthcheck, else
// by HTTP 200 from readyURL ("": running is ready).
func (s *Stack) readyOf(ctx context.Context, httpc *http.Client, id, readyURL string) (bool, string, error) {
	c, err := s.eng.ContainerInspect(ctx, id)
	if err != nil {
		return false, "inspect: " + err.Error(), nil
	}
	state := describe(c.State)
	if c.State == nil {
		return false, state, nil
	}
	if c.State.Status == container.StateExited || c.State.Status == container.StateDead {
		return false, "", fmt.Errorf("%w: %s %s: %s", ErrTargetExited, s.opts.Service, id[:min(12, len(id))], state)
	}
	switch {
	case !c.State.Running || c.State.Restarting:
		return false, state, nil
	case c.State.Health != nil:
		return c.State.Health.Status == container.Healthy, state, nil
	case readyURL == "":
		return true, state, nil
	}
	code, err := get(ctx, httpc, readyURL)
	if err != nil {
		return false, state + "; GET " + readyURL + ": " + err.Error(), nil
	}
	return code == http.StatusOK, fmt.Sprintf("%s; GET %s: %d", state, readyURL, code), nil
}

// get returns the status code of GET url.
func get(ctx context.Context, httpc *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := httpc.Do(req)
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// describe renders a container state for error messages: status, exit
// code, OOM kill, the engine's error and the last healthcheck output.
func describe(st *container.State) string {
	if st == nil {
		return "no state"
	}
	parts := []string{"status " + string(st.Status)}
	if st.Status == container.StateExited || st.Status == container.StateDead {
		parts = append(parts, fmt.Sprintf("exit code %d", st.ExitCode))
	}
	if st.OOMKilled {
		parts = append(parts, "OOM-killed")
	}
	if st.Error != "" {
		parts = append(parts, "error "+st.Error)
	}
	if h := st.Health; h != nil {
		parts = append(parts, "health "+string(h.Status))
		if n := len(h.Log); n > 0 && h.Log[n-1] != nil {
			out := strings.TrimSpace(h.Log[n-1].Output)
			line := sweep.OneLine(out)
			if line != out {
				line += " (full output in target.log)"
			}
			parts = append(parts, fmt.Sprintf("last check exit %d: %q", h.Log[n-1].ExitCode, line))
		}
	}
	return strings.Join(parts, ", ")
}

// healthLog renders the engine's last healthcheck results in full, for
// target.log: the status line carries only their first line.
func healthLog(st *container.State) string {
	if st == nil || st.Health == nil || len(st.Health.Log) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("--- last healthcheck results (Docker Engine) ---\n")
	for _, r := range st.Health.Log {
		if r != nil {
			fmt.Fprintf(&b, "%s exit %d:\n%s\n", r.End.UTC().Format(time.RFC3339), r.ExitCode, strings.TrimRight(r.Output, "\n"))
		}
	}
	return b.String()
}

// target returns the id of the newest container of the target service in
// the project (ErrNoContainer when there is none).
func (s *Stack) target(ctx context.Context) (string, error) {
	list, err := s.eng.ContainerList(ctx, containerOf(s.project, s.opts.Service))
	if err != nil {
		return "", fmt.Errorf("list containers of %s: %w", s.opts.Service, err)
	}
	if len(list) == 0 {
		return "", fmt.Errorf("%w: no container of service %s in project %s", ErrNoContainer, s.opts.Service, s.project)
	}
	newest := slices.MaxFunc(list, func(a, b container.Summary) int { return int(a.Created - b.Created) })
	return newest.ID, nil
}

// Containers maps each service of the stack to the id of its running
// container (after Apply), e.g. for the resource samplers.
func (s *Stack) Containers(ctx context.Context) (map[string]string, error) {
	list, err := s.eng.ContainerList(ctx, container.ListOptions{Filters: engine.LabelFilter(
		projectLabel+"="+s.project, oneoffLabel+"=False")})
	if err != nil {
		return nil, fmt.Errorf("list containers of %s: %w", s.project, err)
	}
	ids := make(map[string]string, len(list))
	for _, c := range list {
		ids[c.Labels[serviceLabel]] = c.ID
	}
	return ids, nil
}

// containerOf selects the containers (also stopped ones) of a service of a
// compose project, leaving out one-off `compose run` containers.
func containerOf(project, service string) container.ListOptions {
	return container.ListOptions{All: true, Filters: engine.LabelFilter(
		projectLabel+"="+project, serviceLabel+"="+service, oneoffLabel+"=False")}
}
