package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/scaffold"
	"github.com/sweep-tool/sweep/sweep"
)

// initFlags are sweep init's flags.
type initFlags struct {
	compose, manifests []string
	har, out, scenario string
}

func newInitCmd(stdout io.Writer) *cobra.Command {
	var f initFlags
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write a commented sweep.yaml for your stack, and a scenario beside it, saying what it guessed and why",
		Long: "init reads your compose files (or Kubernetes manifests) and writes a sweep.yaml for them: the target (the\n" +
			"service serving HTTP that reaches a PostgreSQL service), the variables of its web threads and pool with\n" +
			"their values today (the baseline), its ready path, the CPU budget, and the database's DSN, whose password it\n" +
			"never writes (SWEEP_DB_DSN holds it). Each guess is the comment above its key and is printed; what it could\n" +
			"not guess is a TODO line, which sweep check names until it is deleted. Beside it goes a scenario for the\n" +
			"built-in driver: one GET of the ready path, or with --har the requests a browser recorded, ids taken from\n" +
			"earlier responses. It never overwrites a file.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInit(cmd, f, stdout)
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&f.compose, "compose", nil, "compose file of the stack (repeatable, in order; this or --manifests is required)")
	fs.StringArrayVar(&f.manifests, "manifests", nil, "the stack's Kubernetes manifests, a file or a directory (repeatable; this or --compose is required)")
	fs.StringVar(&f.har, "har", "", "a browser's recording of your app (developer tools: Save all as HAR), whose requests become the scenario "+
		"(default: none, one GET of the ready path)")
	fs.StringVar(&f.out, "out", "sweep.yaml", "the sweep.yaml to write; never overwritten")
	fs.StringVar(&f.scenario, "scenario", "", "the scenario file to write; never overwritten (default: scenario.yaml beside --out)")
	inGroup(fs, groupStack, "compose", "manifests")
	inGroup(fs, groupLoad, "har")
	inGroup(fs, groupOutput, "out", "scenario")
	return cmd
}

// runInit reads the stack and the recording, has scaffold write the two
// files' text, writes them if neither exists, and prints the guesses.
func runInit(cmd *cobra.Command, f initFlags, stdout io.Writer) error {
	if f.scenario == "" {
		f.scenario = filepath.Join(filepath.Dir(f.out), "scenario.yaml")
	}
	if err := initInput(f); err != nil {
		return err
	}
	dir := filepath.Dir(f.out)
	opts := scaffold.Options{Source: strings.Join(append(f.compose, f.manifests...), ", "), Config: f.out,
		Scenario: relTo(dir, f.scenario)}
	for _, p := range append(f.compose, f.manifests...) {
		opts.Files = append(opts.Files, relTo(dir, p))
	}
	if f.har != "" {
		var err error
		if opts.HAR, err = os.ReadFile(f.har); err != nil {
			return sweep.BadInput("har", "cannot read %s: %v", f.har, err)
		}
		opts.HARFile = f.har
	}
	res, err := scaffoldStack(cmd, f, opts)
	if err != nil {
		return err
	}
	if err := writeNew("out", f.out, res.Config); err != nil {
		return err
	}
	if err := writeNew("scenario", f.scenario, res.Scenario); err != nil {
		return errors.Join(err, os.Remove(f.out))
	}
	fmt.Fprintf(stdout, "wrote %s and %s (%s)\n", f.out, f.scenario, res.Load)
	return res.WriteNotes(stdout, f.out)
}

// initInput checks init's flags and that neither file to write exists.
func initInput(f initFlags) error {
	switch {
	case len(f.compose) == 0 && len(f.manifests) == 0:
		return sweep.BadInput("compose", "no stack; give its compose file (or {manifests} FILE|DIR for Kubernetes)")
	case len(f.compose) > 0 && len(f.manifests) > 0:
		return sweep.BadInput("manifests", "a stack is compose files or Kubernetes manifests; drop {compose} or {manifests}")
	}
	for _, w := range []struct{ field, path, other string }{{"out", f.out, "sweep-init.yaml"}, {"scenario", f.scenario, "scenario-init.yaml"}} {
		if _, err := os.Lstat(w.path); err == nil {
			return sweep.BadInput(w.field, "%s exists, and sweep init never overwrites a file: name another with {%s} (e.g. {%s} %s) "+
				"or move that one aside", w.path, w.field, w.field, filepath.Join(filepath.Dir(w.path), w.other))
		}
		if dir := manifestsDir(f.manifests, w.path); dir != "" {
			return sweep.BadInput(w.field, "%s would be in %s, whose YAML files are the manifests sweep applies: write it elsewhere with {%s}",
				w.path, dir, w.field)
		}
	}
	return nil
}

// manifestsDir is the directory of manifests that file would be in, or
// "".
func manifestsDir(manifests []string, file string) string {
	in, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return ""
	}
	for _, m := range manifests {
		abs, err := filepath.Abs(m)
		if st, statErr := os.Stat(m); err == nil && statErr == nil && st.IsDir() && abs == in {
			return m
		}
	}
	return ""
}

// scaffoldStack reads the stack's files as the backends do and has
// scaffold write for them.
func scaffoldStack(cmd *cobra.Command, f initFlags, opts scaffold.Options) (scaffold.Result, error) {
	if len(f.manifests) > 0 {
		objs, err := kube.ReadManifests(f.manifests)
		if err != nil {
			return scaffold.Result{}, sweep.BadInput("manifests", "%v", err)
		}
		return scaffold.Manifests(objs, opts)
	}
	base, err := compose.ReadBase(f.compose, "", envOf(cmd.Context()))
	if err != nil {
		return scaffold.Result{}, err
	}
	return scaffold.Compose(base, opts)
}

// relTo is path as a file in dir names it: relative to dir when it is
// there, below it or beside it, else absolute.
func relTo(dir, path string) string {
	abs, err1 := filepath.Abs(path)
	absDir, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return path
	}
	rel, err := filepath.Rel(absDir, abs)
	if err != nil || strings.HasPrefix(rel, filepath.Join("..", "..")) {
		return abs
	}
	return rel
}

// writeNew writes data to a new file at path, which the input field
// names; one already there is never overwritten. What cannot be
// written is bad input of field.
func writeNew(field, path string, data []byte) error {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return sweep.BadInput(field, "%v (sweep init never overwrites a file)", err)
	}
	_, err = out.Write(data)
	if err = errors.Join(err, out.Close()); err != nil {
		return errors.Join(sweep.BadInput(field, "%v", err), os.Remove(path))
	}
	return nil
}
