package sweep

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrNotReady is returned by a backend's WaitReady (and StartDeps) when
// the timeout passes before the target, or a service it needs, is
// healthy: backend-neutral, so the runner and the session tell it apart
// from other failures whichever backend ran the stack.
var ErrNotReady = errors.New("target not ready")

// StackOptions are what every backend is told of the stack it runs, the
// same for each: the files that describe it, the target, the run it
// belongs to, how readiness is known without a healthcheck, and the
// environment the front end read. A backend's own Options embed it and
// add only what is its alone.
type StackOptions struct {
	// Files describe the stack, in order (the --compose flag; a backend
	// on other files reads them as its own).
	Files []string
	// Service is the target service (the --service flag).
	Service string
	// RunID names the stack (sweep<letters and digits of RunID>, see
	// ProjectName) and is the value of the sweep.run label.
	RunID string
	// RunDir is the run directory; its absolute path and this host's name
	// label everything the stack creates (sweep.dir, sweep.host), so that
	// sweep clean can find the run's lock. Empty: no such labels.
	RunDir string
	// ReadyURL is polled for HTTP 200 when the target has no healthcheck
	// (full URL, e.g. http://127.0.0.1:8080/health). Empty: a running
	// target without healthcheck counts as ready.
	ReadyURL string
	// URL is the base URL the load goes to (the --url flag): a backend
	// that runs several targets at once (Targets) gives each a URL of
	// its own from it.
	URL string
	// SweptEnv names the variables ReadBack reads back from the target.
	SweptEnv []string
	// Env is the process environment as the front end read it: where the
	// backend's engine is (DOCKER_HOST, ...) and what the stack's files
	// interpolate.
	Env Env
	// Log receives what the backend's tools print and the notices of its
	// translation (nil: dropped; errors carry the tail anyway).
	Log io.Writer
}

// StackFacts are what a backend tells of itself and of the stack it ran,
// for sweep.json: backend-neutral, each field named for what it means.
type StackFacts struct {
	// NCPU is the number of CPUs of the node the target runs on (the
	// engine's, on one host).
	NCPU int
	// CPUModel is that host's CPU model, when it is this machine.
	CPUModel string
	// RuntimeVersion is the container runtime's version (the Docker
	// Engine's).
	RuntimeVersion string
	// Tool names what applied the stack ("docker compose", a
	// docker-compose path, "swarm (Engine API services)") and
	// ToolVersion its version ("" when it has none of its own).
	Tool, ToolVersion string
	// Images maps each service to the image ID it runs (after Apply).
	Images map[string]string
	// ConfigSHA256 is a hash of the stack's resolved configuration.
	ConfigSHA256 string
}

// RunLabels are the labels of the run o names: its id and, with a run
// directory, its absolute path and this host's name.
func (o StackOptions) RunLabels() (RunLabels, error) {
	l := RunLabels{ID: o.RunID}
	if o.RunDir == "" {
		return l, nil
	}
	var err error
	if l.Dir, err = filepath.Abs(o.RunDir); err != nil {
		return l, fmt.Errorf("run directory: %w", err)
	}
	if l.Host, err = os.Hostname(); err != nil {
		return l, fmt.Errorf("host name: %w", err)
	}
	return l, nil
}
