package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/sweep"
)

// Format is an output format of Write.
type Format string

// The formats: an env file (NAME=value lines), a compose override of the
// target service (CPU limit and env), and the Settings as JSON.
const (
	FormatEnv     Format = "env"
	FormatCompose Format = "compose"
	FormatJSON    Format = "json"
	// FormatKubernetes is a strategic merge patch of the target
	// Deployment (its container's CPU limit and request, and env).
	FormatKubernetes Format = "kubernetes"
)

// Formats lists every format.
var Formats = []Format{FormatEnv, FormatCompose, FormatJSON, FormatKubernetes}

// ParseFormat reads a format name; another name is bad input.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", sweep.BadInput("format", "%q is not a format; give one of %s", s, strings.Join(names, ", "))
}

// errNoBase means compose output was asked of settings exported for
// another format, which did not read the compose files.
var errNoBase = errors.New("settings were exported without the compose files; export them with the compose format")

// Write renders s in format f.
func Write(w io.Writer, s *Settings, f Format) error {
	switch f {
	case FormatEnv:
		return writeEnv(w, s)
	case FormatCompose:
		return writeCompose(w, s)
	case FormatJSON:
		return writeJSON(w, s)
	case FormatKubernetes:
		return writeKubernetes(w, s)
	}
	_, err := ParseFormat(string(f))
	return err
}

// describe is the comment line that opens the env and compose files.
func describe(s *Settings) string {
	if s.Source == SourceMeasured {
		picked := "the measured best cell"
		if s.PickedBy != "" {
			picked = "the pick (" + s.PickedBy + ")"
		}
		return fmt.Sprintf("# sweep export: run %s, profile %s, %s at %s: %s\n",
			s.RunID, s.Profile, picked, cpusText(s.CPUs), s.Cell)
	}
	return fmt.Sprintf("# sweep export: run %s, profile %s, the rule across CPU limits (web threads = %s × CPUs, "+
		"pool = %s × web threads, rounded half to even) at %s: cell %s\n", s.RunID, s.Profile, sweep.FormatNumber(s.WebMult),
		sweep.FormatNumber(s.DBMult), cpusText(s.CPUs), s.Cell)
}

// writeEnv writes an env file: the web threads, then the pool; a pool of
// another service (pool_env SERVICE:NAME) is its own line, after a
// comment naming the service.
func writeEnv(w io.Writer, s *Settings) error {
	pool := (sweep.Spec{Service: s.Service, PoolEnv: s.PoolEnv}).PoolTarget()
	where := ""
	if pool.Service != "" {
		where = fmt.Sprintf("# the pool is service %s's setting, not %s's:\n", pool.Service, s.Service)
	}
	_, err := fmt.Fprintf(w, "%s%s=%d\n%s%s=%d\n", describe(s), s.WebEnv, s.WebThreads, where, pool.Name, s.DBPool)
	return err
}

// writeCompose writes an override of the target service with its CPU
// limit and env, to merge after the stack's own compose files.
func writeCompose(w io.Writer, s *Settings) error {
	if s.base == nil {
		return errNoBase
	}
	header := describe(s) + fmt.Sprintf("# A compose override of service %s: list it after the stack's own files (%s).\n",
		s.Service, strings.Join(s.files, ", "))
	for _, svc := range slices.Sorted(maps.Keys(s.ServiceEnv)) {
		header += fmt.Sprintf("# The pool goes to service %s (the run's pool_env %s).\n", svc, s.PoolEnv)
	}
	b, err := compose.Settings(*s.base, s.Service, sweep.TargetConfig{CPUs: s.CPUs, Env: s.Env, ServiceEnv: s.ServiceEnv}, header)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writeJSON writes s as one indented JSON document.
func writeJSON(w io.Writer, s *Settings) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	return nil
}
