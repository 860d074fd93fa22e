package scaffold

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/kube"
)

// Options say what init writes and how the files name each other.
type Options struct {
	// Source names the stack's files as the user gave them, for messages.
	Source string
	// Files are the stack's files as sweep.yaml names them: relative to
	// its folder, or absolute.
	Files []string
	// Config names sweep.yaml as the user gave it, for the commands its
	// comments show.
	Config string
	// Scenario names the scenario file as sweep.yaml names it.
	Scenario string
	// HAR is a browser's recording of the app (nil: none), named HARFile.
	HAR     []byte
	HARFile string
}

// Result is what init writes and says.
type Result struct {
	// Settings are the keys of Config, each with why init chose it.
	Settings []Setting
	// Config is the sweep.yaml.
	Config []byte
	// Scenario is the scenario file; Load says how it was made.
	Scenario []byte
	Load     string
}

// Compose writes the sweep.yaml and scenario of a compose stack, as
// compose read its files. A stack without a PostgreSQL service, or
// without a service that serves HTTP on the host and reaches it, is bad
// input of {compose}.
func Compose(b compose.Base, opts Options) (Result, error) {
	return build(fromCompose(b), "compose", opts)
}

// Manifests is Compose for a Kubernetes stack, as kube read its
// manifests; its bad input is of {manifests}.
func Manifests(objs []kube.Object, opts Options) (Result, error) {
	st, err := fromManifests(objs)
	if err != nil {
		return Result{}, err
	}
	return build(st, "manifests", opts)
}

// build finds the target in st and writes the files for it; field names
// the stack's files in errors.
func build(st stack, field string, opts Options) (Result, error) {
	f, err := find(st, field, opts.Source)
	if err != nil {
		return Result{}, err
	}
	res := Result{Settings: settings(st, f, opts.Files)}
	base := f.baseURL()
	steps, load, head := skeleton(readyPath(res.Settings))
	name := "skeleton"
	if opts.HAR != nil {
		if steps, load, head, err = fromHAR(opts.HARFile, opts.HAR, base); err != nil {
			return Result{}, err
		}
		name = "recorded"
	}
	res.Load = load
	if res.Scenario, err = renderScenario(opts.Scenario, name, steps, head); err != nil {
		return Result{}, err
	}
	res.Settings = append(res.Settings, Setting{Key: "scenario", Value: opts.Scenario,
		Why: fmt.Sprintf("The load: %s, your API's requests for the built-in driver (%s); "+
			"sweep check --scenario %s sends each once and shows what came back.", opts.Scenario, load, opts.Scenario)})
	res.Config, err = renderConfig(configHead(opts), res.Settings, configFoot(opts))
	return res, err
}

// readyPath is the ready path the settings name, else /health.
func readyPath(ss []Setting) string {
	for _, s := range ss {
		if p, ok := s.Value.(string); ok && s.Key == "ready-path" {
			return p
		}
	}
	return "/health"
}

func configHead(opts Options) []string {
	return []string{fmt.Sprintf("sweep settings for the stack of %s, written by sweep init. Keys are the flag names of "+
		"sweep run (sweep run --help), paths are relative to this file, and a flag given on the command line wins. "+
		"Above each setting: why init chose it. A TODO line is what init could not guess: settle it and delete the line "+
		"(sweep check names those left).", strings.Join(opts.Files, ", "))}
}

func configFoot(opts Options) []string {
	return []string{"Left at their defaults (sweep run --help): web-mult, db-mult, warmup, duration and load. " +
		fmt.Sprintf("sweep plan --config %s lists the cells and how long they take; sweep check --config %s tries one end to end.",
			opts.Config, opts.Config)}
}

// baseURL is the URL the load goes to.
func (f found) baseURL() *url.URL {
	u := &url.URL{Scheme: "http", Host: f.url.hostPort()}
	if f.url.target == 443 || f.url.target == 8443 {
		u.Scheme = "https"
	}
	return u
}
