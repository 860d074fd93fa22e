package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sweep-tool/sweep/cmd/sweep/flagfile"
	"github.com/sweep-tool/sweep/sweep"
)

// specFlags binds the spec's flags of plan, run, check and limit to a
// Spec; each command is given those it reads (specFlagUse).
type specFlags struct {
	spec   sweep.Spec
	text   sweep.Texts // the spec's text forms
	config string
	file   flagfile.File // the --config file as read
	k6     string
}

// newSpecFlags defines on fs the spec's flags that the command cmd reads,
// each in its group; the others keep their defaults.
func newSpecFlags(fs *pflag.FlagSet, cmd string) *specFlags {
	all := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	f := bindSpec(all)
	adopt(fs, all, cmd)
	return f
}

// bindSpec defines every spec flag on fs.
func bindSpec(fs *pflag.FlagSet) *specFlags {
	f := &specFlags{spec: sweep.Spec{
		WebMult: append([]float64(nil), sweep.DefaultWebMult...),
		DBMult:  append([]float64(nil), sweep.DefaultDBMult...),
	}}
	s := &f.spec
	fs.StringVar(&f.config, "config", "", "read settings from this YAML file: keys are the flag names of plan, run, check and limit "+
		"(each command passes over the others' keys); flags win (default: none)")
	bindGrid(fs, f)
	bindStack(fs, s)
	fs.StringVar(&f.text.Load, "load", "vus=50", "load model: vus=N (virtual users), vus-per-web=K (K × web threads) or rate=R (iterations/s)")
	fs.IntVar(&s.Load.MaxVUs, "max-vus", 0, "upper bound of VUs for the open model (rate=R) (default 0: max(100, R))")
	fs.StringVar(&s.Driver, "driver", "auto", "load driver: auto (builtin with --scenario, else k6 when found, else builtin), k6 or builtin")
	fs.StringVar(&f.k6, "k6", "", "path of the k6 binary (default: k6 on PATH)")
	fs.StringVar(&f.text.Script, "script", "", "your own k6 script (default: the bundled crud.js)")
	fs.StringVar(&f.text.Scenario, "scenario", "", "your own requests as a scenario file (a subset of Artillery's YAML, docs/guides/load.md), "+
		"run by the built-in driver (default: the demo's CRUD)")
	bindMeasurement(fs, f)
	fs.StringVar(&s.Out, "out", "", "the run directory (default runs/<run id>); the same --out again resumes")
	bindPlatforms(fs, s)
	return f
}

// bindGrid defines the flags of the grid's cells.
func bindGrid(fs *pflag.FlagSet, f *specFlags) {
	s := &f.spec
	fs.Var(sweep.Numbers{Field: "cpus", Vals: &s.CPUs}, "cpus", "the target's CPU limits to sweep, a list of CPUs, e.g. 2,4,6,8 or 0.5,1 (required)")
	fs.Var(sweep.Numbers{Field: "web_mult", Vals: &s.WebMult}, "web-mult", "web threads as multiples of the CPU limit")
	fs.Var(sweep.Numbers{Field: "db_mult", Vals: &s.DBMult}, "db-mult", "DB pool as multiples of the web threads")
	fs.StringVar(&f.text.Baseline, "baseline", "", "your current settings web=W,pool=P (threads, connections): one more cell per CPU limit, "+
		"the picks' gain measured against it (default: none)")
	fs.StringVar(&f.text.LoadLevels, "load-levels", "", "load as an axis: vus=N1,N2,… or rate=R1,R2,… (increasing); multiplies the grid (default: --load alone)")
	fs.StringSliceVar(&f.text.Memory, "memory", nil, "memory limits of the target as an axis, bytes with a suffix, e.g. 256m,1g (default: the stack's own)")
	fs.StringArrayVar(&f.text.Axes, "axis", nil, "env axis NAME=v1,v2 of the target, or SERVICE:NAME=v1,v2 of another service (repeatable; default: none)")
	fs.StringArrayVar(&f.text.Variants, "variant", nil, "stack variant NAME=FILE[+FILE] compared in one run; replaces --compose for its cells "+
		"(repeatable; default: none)")
	fs.StringVar(&f.text.Strategy, "strategy", sweep.StrategyGrid, "grid (every cell in full) or halving (every cell briefly, the ones that could still win longer; see sweep plan; "+
		"with --schedule interleaved: after rounds 3, 6, 12, ... the targets the paired rounds separate from the best stop, "+
		"their slices so far counted, never more than the interleaved grid)")
}

// bindStack defines the flags of the stack and its target.
func bindStack(fs *pflag.FlagSet, s *sweep.Spec) {
	fs.StringArrayVar(&s.Compose, "compose", nil, "compose file of the stack (repeatable, in order; required, but not with --kubernetes)")
	fs.StringVar(&s.Service, "service", "", "the target service in the stack (required; on Kubernetes its Deployment)")
	fs.StringVar(&s.WebEnv, "web-env", "BOX_WEB_THREAD", "variable that sets the target's web threads")
	fs.StringVar(&s.PoolEnv, "pool-env", "BOX_DB_POOL_MAXIMUM_POOL_SIZE", "variable that sets the target's DB pool, or SERVICE:NAME, "+
		"a variable of another service (e.g. pgbouncer:DEFAULT_POOL_SIZE), recreated with every cell")
	fs.StringVar(&s.NameEnv, "name-env", "BOX_INSTANCE_NAME", "variable set to the cell id (empty: none)")
	fs.StringVar(&s.URL, "url", "", "base URL the load goes to, e.g. http://127.0.0.1:8080 (required)")
	fs.StringVar(&s.ReadyPath, "ready-path", "/health", "path polled for HTTP 200 when the target has no healthcheck")
	durationVar(fs, &s.ReadyTimeout, "ready-timeout", 2*time.Minute, "how long to wait for the target to be ready")
	durationVar(fs, &s.CallTimeout, "call-timeout", sweep.DefaultCallTimeout, "the longest one call out of sweep may take: "+
		"applying a cell, reading it back, the watch, the samplers, the database reset, the URL probe, opening the stack "+
		"(the ready wait, starting the dependencies and the DSN checks get --ready-timeout on top, a load phase its length); "+
		"a call past it fails the cell naming the call, as an engine that stopped answering would (docs/reference/timeouts.md)")
	fs.StringVar(&s.DBDSN, "db-dsn", "", "the target's database DSN (default: env SWEEP_DB_DSN, which keeps it out of argv)")
	fs.StringVar(&s.PoolerDSN, "pooler-dsn", "", "a PgBouncer in the stack, for its pool stats per cell (default: env SWEEP_POOLER_DSN)")
	fs.StringVar(&s.DBResetSQL, "db-reset-sql", "", "SQL file run on --db-dsn before each cell's warm-up (default: none)")
	fs.StringVar(&s.CPUSet, "cpuset", "", "pin the target to these host CPUs (e.g. 1 or 2-3) so the driver and database run elsewhere (default: none)")
	fs.BoolVar(&s.PoolPerWeb, "pool-per-web", false, "the pool size is per web worker (e.g. Node.js cluster workers, each with its own pool): "+
		"the database sees web threads × pool connections, and the connection-limit guard counts them so")
	fs.StringVar(&s.OverLimit, "over-limit", "", "cells whose pool exceeds the database's connection limit: skip (record them skipped) "+
		"or run (measure them, flagged) (default: refuse the run)")
	fs.BoolVar(&s.Keep, "keep", false, "leave the stack up at the end")
}

// bindMeasurement defines the flags of how each cell is measured.
func bindMeasurement(fs *pflag.FlagSet, f *specFlags) {
	s := &f.spec
	durationVar(fs, &s.Warmup, "warmup", 30*time.Second, "warm-up load per cell, discarded (0 skips it)")
	durationVar(fs, &s.Duration, "duration", 5*time.Minute, "measured load per cell (with --precision: the longest)")
	fs.Var(sweep.Share{Field: "precision", V: &s.Precision}, "precision", "stop a cell's warm-up once settled and its measured phase once "+
		"the RPS 95 % CI is within this share and p99 settled, e.g. 2% (default 0: fixed durations)")
	durationVar(fs, &s.MinDuration, "min-duration", 0, "with --precision: the shortest measured phase (default 0: none)")
	s.Repeat = 1
	fs.Var(sweep.Repeat{S: s}, "repeat", "repetitions per cell (r1..rN), or auto: measure each pick once more, "+
		"and the cells of its calibrated set until the report separates them")
	fs.IntVar(&s.MaxRepeat, "max-repeat", 0, "with --repeat auto: the most repetitions a cell gets (default 5)")
	fs.StringVar(&f.text.Schedule, "schedule", sweep.ScheduleSequential, "how the cells share the host: sequential (one target at a time) or "+
		"interleaved (every target of a CPU limit up at once, each given a --slice of load per round in a random order, "+
		"compared round by round; docs/methodology.md)")
	durationVar(fs, &s.Slice, "slice", 0, "with --schedule interleaved: one target's load in a round (default: "+sweep.DefaultSlice.String()+")")
	fs.StringVar(&f.text.Rounds, "rounds", "", "with --schedule interleaved: the rounds, a number from 2, or auto: until a CPU limit's picks are apart "+
		"or each cell had --duration of load (default: auto)")
	fs.StringVar(&s.Order, "order", sweep.OrderGrid, "order of the cells: grid, interleave (CPU limits in turn, repetitions in rounds) or shuffle")
	fs.Uint64Var(&s.Seed, "seed", 1, "seed of --order shuffle")
	fs.IntVar(&s.Retries, "retries", 0, "re-run a failed cell up to N times, for transient failures (default 0: never)")
	fs.IntVar(&s.MaxFailures, "max-failures", 0, "abort the run after N failed cells "+
		"(default 0: never; a run whose first 3 cells all fail on their requests stops anyway)")
	fs.Var(sweep.Share{Field: "max_errors", V: &s.MaxErrors}, "max-errors", "fail a cell when more than this share of its requests fail, "+
		"e.g. 1% (default 5%; a cell whose requests all fail always fails; with --find-limit the SLO judges errors instead)")
	durationVar(fs, &s.Cooldown, "cooldown", 0, "pause between cells (default 0: none)")
	fs.IntVar(&s.ControlEvery, "control-every", sweep.DefaultControlEvery, "a grid on one stack measures its control cell (--control) "+
		"at the start, at most every N cells and at the end, 3 times at least, for a tenth of --duration (at least 5s), as cells/<id>/control1.<k>: "+
		"its spread is the report's noise band, its trend the host's drift; 0: no control (the report's noise is then not measured); "+
		"not with --schedule interleaved, whose rounds are the noise")
	fs.StringVar(&s.Control, "control", "", "the control cell's id (default: the grid's middle cell, each axis at its middle value)")
}

// bindPlatforms defines the flags of a stack on a swarm or on Kubernetes.
func bindPlatforms(fs *pflag.FlagSet, s *sweep.Spec) {
	fs.BoolVar(&s.Swarm, "swarm", false, "run the stack as services of the Docker Swarm that DOCKER_HOST or the context names (a manager), "+
		"created from the same compose files (docs/guides/swarm.md), instead of as a compose project on one engine")
	fs.StringArrayVar(&s.Place, "place", nil, "with --swarm: SERVICE=CONSTRAINT, a placement constraint (repeatable), "+
		"e.g. app=node.id==<id> or db=node.labels.role==db; load=CONSTRAINT runs the load there (with --load-image; k6 with --k6-image too) (default: none)")
	fs.BoolVar(&s.Kubernetes, "kubernetes", false, "run the stack on the Kubernetes cluster KUBECONFIG (or ~/.kube/config) names, from --manifests, "+
		"in a namespace sweep-<run id> of the run's own (docs/guides/kubernetes.md); the target is the Deployment --service names, the load a Job from --load-image")
	fs.StringArrayVar(&s.Manifests, "manifests", nil, "with --kubernetes: the stack's manifests, a file of multi-document YAML or a directory "+
		"(repeatable; what helm template or kustomize build prints; required with --kubernetes)")
	fs.StringVar(&s.KubeContext, "kube-context", "", "with --kubernetes: the kubeconfig context (default: the current one)")
	fs.StringVar(&s.Container, "container", "", "with --kubernetes: the target Deployment's container, when its pod has several (default: its only one)")
	fs.BoolVar(&s.InPlace, "in-place", false, "with --kubernetes: when a cell differs from the one before only in its CPU limit, resize the running pod "+
		"in place (pods/resize, Kubernetes 1.33+) instead of rolling out a new one: faster, but the process and its warm state carry over (docs/guides/kubernetes.md)")
	fs.StringVar(&s.LoadImage, "load-image", "", "with --kubernetes or --place load=…: the image holding sweep that the load runs from "+
		"(make demo-images builds sweep-drive:<hash>; default: none)")
	fs.StringVar(&s.K6Image, "k6-image", "", "with --kubernetes or --place load=…: the image holding k6 on its PATH (e.g. grafana/k6) that the k6 load's Job "+
		"or swarm service runs from, sweep copied in from --load-image; with it --driver auto runs k6, --script too (docs/guides/load.md) (default: none)")
	fs.IntVar(&s.Parallel, "parallel", 0, "with --swarm or --kubernetes: measure up to N cells at once, one node per lane, each lane a stack "+
		"(on Kubernetes a namespace sweep-<run id>-l<k>) of its own; on a swarm {node} in --url, --db-dsn and --pooler-dsn is the lane node's address. "+
		"With N >= 2 every lane first measures the first cell, for a quarter of --duration (at least 5s), as cells/<id>/control<lane>: "+
		"whether the nodes measure alike (docs/guides/swarm.md, docs/guides/kubernetes.md) (default 0: one cell at a time)")
	fs.StringSliceVar(&s.LaneNodes, "lane-nodes", nil, "with --parallel: the lanes' nodes in order (node ids, id prefixes or host names); "+
		"default: the ready, active (on Kubernetes: schedulable, untainted) nodes, workers first")
}

func durationVar(fs *pflag.FlagSet, d *sweep.Duration, name string, def time.Duration, usage string) {
	fs.DurationVar((*time.Duration)(d), name, def, usage)
}

// configPaths are the config keys whose relative paths are relative to
// the file; a variant's value is NAME=FILE[+FILE].
var configPaths = map[string]flagfile.Rebase{"compose": flagfile.Rel, "manifests": flagfile.Rel, "db-reset-sql": flagfile.Rel, "script": flagfile.Rel,
	"scenario": flagfile.Rel,
	"variant": func(dir, s string) string {
		name, files, ok := strings.Cut(s, "=")
		if !ok {
			return s
		}
		parts := strings.Split(files, "+")
		for i, p := range parts {
			parts[i] = flagfile.Rel(dir, p)
		}
		return name + "=" + strings.Join(parts, "+")
	}}

// resolve finishes the spec after flags and the config file: the DSN from
// the environment and the load model.
func (f *specFlags) resolve(cmd *cobra.Command) (sweep.Spec, error) {
	if f.config != "" {
		var err error
		if f.file, err = flagfile.Read(f.config); err != nil {
			return sweep.Spec{}, err
		}
		if err := f.file.Apply(cmd.Flags(), configPaths, othersOf(cmd)...); err != nil {
			return sweep.Spec{}, err
		}
	}
	dsnsFromEnv(cmd, &f.spec.DBDSN, &f.spec.PoolerDSN)
	if cmd.Flags().Changed("out") && f.spec.Out == "" {
		return sweep.Spec{}, sweep.BadInput("out", "is empty; give a directory, or leave --out out for runs/<run id>")
	}
	if err := f.text.Apply(&f.spec); err != nil {
		return sweep.Spec{}, err
	}
	if f.spec.Interleaved() && cmd.Flags().Changed("control-every") && f.spec.ControlEvery != 0 {
		return sweep.Spec{}, sweep.BadInput("control_every", "the rounds are an interleaved run's noise and no control cell runs; drop it with {schedule} %s",
			sweep.ScheduleInterleaved)
	}
	return f.spec, nil
}

// dsnsFromEnv fills the DSNs not given as flags from SWEEP_DB_DSN and
// SWEEP_POOLER_DSN, which keep the passwords out of argv.
func dsnsFromEnv(cmd *cobra.Command, db, pooler *string) {
	env := envOf(cmd.Context())
	for _, d := range []struct {
		flag, env string
		v         *string
	}{{"db-dsn", "SWEEP_DB_DSN", db}, {"pooler-dsn", "SWEEP_POOLER_DSN", pooler}} {
		if v := env.Get(d.env); !cmd.Flags().Changed(d.flag) && v != "" {
			*d.v = v
		}
	}
}
