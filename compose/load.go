package compose

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/consts"
	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/template"
	"github.com/compose-spec/compose-go/v2/types"

	"github.com/sweep-tool/sweep/sweep"
)

// envFilesVar names the variable compose v2 reads its --env-file default
// from (a comma-separated list).
const envFilesVar = "COMPOSE_ENV_FILES"

// loaded is the base files as the compose CLI reads them.
type loaded struct {
	// model is the merged document after interpolation, extends and
	// include: it says where a key is written.
	model map[string]any
	// project is model bound to compose's types with the active
	// profiles applied: its Services are the ones compose starts.
	project *types.Project
	// secrets are the values interpolation took from the environment.
	secrets *secrets
}

// load reads files the way `docker compose -p project -f files...` does
// (compose v2's own loader and the options its CLI builds; project "" is
// named as without -p) in the environment env: the project directory is the first file's; variables come from env,
// then from COMPOSE_ENV_FILES or the project directory's .env;
// COMPOSE_PROFILES selects profiles. Error messages hold no value that
// interpolation took from the environment.
// loaderMu serialises compose-go's model loader: v2.9.1 notes the files it
// warned about an obsolete `version` key in a package variable without a
// lock (loader.versionWarning), a data race (seen under -race in CI) when two
// callers read compose files at once.
var loaderMu sync.Mutex

func load(ctx context.Context, files []string, project string, env sweep.Env) (loaded, error) {
	l := loaded{secrets: &secrets{}}
	envFiles, err := envFilesFromEnv(env)
	if err != nil {
		return l, err
	}
	opts, err := cli.NewProjectOptions(files,
		cli.WithEnv(env), withPWD, cli.WithEnvFiles(envFiles...), cli.WithDotEnv, cli.WithName(project))
	if err != nil {
		return l, envFileError(err)
	}
	wd, err := opts.GetWorkingDir()
	if err != nil {
		return l, err
	}
	details, err := opts.ReadConfigFiles(ctx, wd, opts)
	if err != nil {
		return l, err
	}
	// ProjectOptions.LoadProject would bind the model at once; sweep
	// keeps the model to see where keys are written, so it loads in two
	// steps with the options LoadProject would pass.
	details.Environment = opts.Environment
	var lopts *loader.Options
	loaderMu.Lock()
	l.model, err = loader.LoadModelWithContext(ctx, *details,
		naming(project, opts.Environment, wd),
		loader.WithProfiles(profiles(opts.Environment)),
		l.secrets.watch,
		func(o *loader.Options) { lopts = o })
	loaderMu.Unlock()
	if err != nil {
		return l, l.secrets.hide(err)
	}
	if l.project, err = loader.ModelToProject(cloneModel(l.model), lopts, *details); err != nil {
		return l, l.secrets.hide(err)
	}
	return l, nil
}

// naming names the project as compose v2 does: project when given (-p),
// else COMPOSE_PROJECT_NAME, else the files' `name:`, else the project
// directory's name.
func naming(project string, env types.Mapping, wd string) func(*loader.Options) {
	return func(o *loader.Options) {
		switch {
		case project != "":
			o.SetProjectName(project, true)
		case env[consts.ComposeProjectName] != "":
			o.SetProjectName(env[consts.ComposeProjectName], true)
		default:
			o.SetProjectName(loader.NormalizeProjectName(filepath.Base(wd)), false)
		}
	}
}

// profiles are the profiles COMPOSE_PROFILES activates, as compose v2
// reads it.
func profiles(env types.Mapping) []string {
	var out []string
	for p := range strings.SplitSeq(env[consts.ComposeProfiles], ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}

// withPWD sets PWD when the environment lacks it, as compose v2 does.
func withPWD(o *cli.ProjectOptions) error {
	if _, ok := o.Environment["PWD"]; ok {
		return nil
	}
	pwd, err := os.Getwd()
	if err != nil {
		return err
	}
	o.Environment["PWD"] = pwd
	return nil
}

// envLine finds where an env file parser's message quotes the file.
var envLine = regexp.MustCompile(`^(.*?line \d+): `)

// envFileError is err, from reading the env files, without the line of
// the file that the parser quotes: it may hold a secret.
func envFileError(err error) error {
	m := envLine.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	return redactedError(m[1] + ": cannot be parsed (the line is not shown: it may hold a secret)")
}

// envFilesFromEnv is compose v2's --env-file default: COMPOSE_ENV_FILES,
// made absolute against the working directory.
func envFilesFromEnv(env sweep.Env) ([]string, error) {
	var out []string
	for f := range strings.SplitSeq(env.Get(envFilesVar), ",") {
		if f == "" {
			continue
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", envFilesVar, err)
		}
		out = append(out, abs)
	}
	return out, nil
}

// cloneModel copies the maps and lists of a yaml model, so binding it
// leaves the original as read.
func cloneModel(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return cloneModel(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}

// secrets remembers every value interpolation took from the environment
// or an env file, so that errors can be reported without them: a
// password interpolated into a field compose cannot parse would
// otherwise be quoted in the message.
type secrets struct {
	mu     sync.Mutex
	values []string
}

// watch wraps the loader's substitution so it records the values it
// looks up. Included and extended files share it.
func (s *secrets) watch(o *loader.Options) {
	if o.Interpolate == nil || o.Interpolate.Substitute == nil {
		return
	}
	substitute := o.Interpolate.Substitute
	o.Interpolate.Substitute = func(tmpl string, lookup template.Mapping) (string, error) {
		return substitute(tmpl, func(name string) (string, bool) {
			v, ok := lookup(name)
			if ok && v != "" {
				s.add(v)
			}
			return v, ok
		})
	}
}

func (s *secrets) add(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.values, v) {
		s.values = append(s.values, v)
	}
}

// redact replaces every recorded value in msg with "***", longest first
// so a value inside another is not half-replaced.
func (s *secrets) redact(msg string) string {
	s.mu.Lock()
	values := slices.Clone(s.values)
	s.mu.Unlock()
	slices.SortFunc(values, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, v := range values {
		msg = strings.ReplaceAll(msg, v, "***")
	}
	return msg
}

// hide returns err's message without the recorded values. The cause is
// not kept: its message holds them.
func (s *secrets) hide(err error) error {
	if err == nil {
		return nil
	}
	return redactedError(s.redact(err.Error()))
}

// redactedError is an error whose message had interpolated values taken
// out.
type redactedError string

func (e redactedError) Error() string { return string(e) }
