package export

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// gop is the report's fixture of the Game of Pools study: CPU limits 2,
// 4, 6 and 8; throughput and balanced pick web 1.5 × CPUs, pool 1.5 × web.
func gop(t *testing.T) *results.Run {
	t.Helper()
	run, err := results.LoadRun(filepath.Join("..", "testdata", "gop"))
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func options(profile string, cpus float64, f Format) Options {
	return Options{Profile: profile, CPUs: cpus, Format: f, Report: report.DefaultOptions(),
		Compose:   []string{filepath.Join("testdata", "aidbox-compose.yaml")},
		Manifests: []string{filepath.Join("testdata", "aidbox-k8s.yaml")}}
}

// TestRoundingIsTheGrids pins the exported values to the grid's rule at
// budgets whose products are ties: half to even, as sweep.BuildPlan.
func TestRoundingIsTheGrids(t *testing.T) {
	t.Parallel()
	run := gop(t)
	cases := []struct {
		profile   string
		cpus      float64
		web, pool int
	}{
		{"throughput", 15, 22, 33}, // 22.5 -> 22
		{"throughput", 9, 14, 21},  // 13.5 -> 14
		{"throughput", 4.6, 7, 10}, // pool 10.5 -> 10
		{"latency", 2.25, 2, 4},    // 2.25 -> 2
		{"latency", 0.25, 1, 2},    // never below 1
		{"latency", 12.5, 12, 24},  // 12.5 -> 12
	}
	for _, c := range cases {
		s, err := Export(run, options(c.profile, c.cpus, FormatEnv))
		if err != nil {
			t.Fatal(err)
		}
		grid := sweep.BuildPlan([]float64{c.cpus}, []float64{s.WebMult}, []float64{s.DBMult})[0]
		if s.WebThreads != c.web || s.DBPool != c.pool || s.Cell != grid.ID ||
			s.Env["BOX_WEB_THREAD"] != itoa(c.web) || s.Env["BOX_DB_POOL_MAXIMUM_POOL_SIZE"] != itoa(c.pool) {
			t.Errorf("%s at %g CPUs: web %d, pool %d, cell %s, env %v; want web %d, pool %d, the grid's %s",
				c.profile, c.cpus, s.WebThreads, s.DBPool, s.Cell, s.Env, c.web, c.pool, grid.ID)
		}
	}
}

// TestMeasuredLimitExportsThePick: at a CPU limit the run measured,
// every profile exports the report's pick there (its "Set these" row),
// saying how it was picked, not the rule across CPU limits, whose cell
// differs at 4 CPUs for latency-first (4/8 against the pick 4/6): one
// answer, not two. Off the measured limits the rule applies and says so.
func TestMeasuredLimitExportsThePick(t *testing.T) {
	t.Parallel()
	run := gop(t)
	rep, err := report.Build(run, report.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range rep.LimitPicks() {
		s, err := Export(run, options(b.Profile, b.CPUs, FormatEnv))
		if err != nil {
			t.Fatal(err)
		}
		if s.Cell != b.Pick.Chosen().ID || s.Source != SourceMeasured || s.Profile != b.Profile || len(s.Warnings) != 0 ||
			s.PickedBy != b.Pick.Note() {
			t.Errorf("%s at %g CPUs: exported %s from %s (%q, %q), the report's row is %s (%q)", b.Profile, b.CPUs, s.Cell,
				s.Source, s.Warnings, s.PickedBy, b.Pick.Chosen().ID, b.Pick.Note())
		}
	}
	s, err := Export(run, options("balanced", 4, FormatEnv))
	want := "the data cannot separate 3 pairs; picked the fewest threads, then the smallest pool; measured best: web 6 pool 12"
	if err != nil || s.Cell != "cpu_4__web_6__db_9" || s.PickedBy != want {
		t.Errorf("balanced at 4 CPUs: %v, %+v; want cpu_4__web_6__db_9 of the 3 the study cannot separate", err, s)
	}
	var env bytes.Buffer
	if err := Write(&env, s, FormatEnv); err != nil || !strings.Contains(env.String(), "the pick ("+want+") at 4 CPUs: cpu_4__web_6__db_9") {
		t.Errorf("the env file does not say how its cell was picked (%v):\n%s", err, env.String())
	}
	if s, err = Export(run, options("balanced", 6, FormatEnv)); err != nil || s.PickedBy != "" || s.Cell != "cpu_6__web_9__db_14" {
		t.Errorf("balanced at 6 CPUs: %v, %+v; want the measured best cpu_6__web_9__db_14, separated from every other", err, s)
	}
	s, err = Export(run, options("balanced", 5, FormatEnv))
	want = "5 CPUs was not measured: the rule across CPU limits (web threads = 1.5 × CPUs, pool = 1.5 × web threads) gives "
	if err != nil || s.Source != SourceRule || len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0], want+s.Cell) {
		t.Errorf("balanced at 5 CPUs: %v, %+v; want the rule, saying so", err, s)
	}
}

// TestProfileNamesRoundTrip: every name the report prints is a --profile
// export takes, and the export carries the same name; the older keys
// still work.
func TestProfileNamesRoundTrip(t *testing.T) {
	t.Parallel()
	run := gop(t)
	for _, name := range append(report.ProfileNames(), "latency", "throughput") {
		s, err := Export(run, options(name, 6, FormatJSON))
		key, _ := report.ProfileKey(name)
		if err != nil || !slices.Contains(report.ProfileNames(), s.Profile) {
			t.Errorf("--profile %s: %v, profile %q", name, err, s.Profile)
		}
		if k, _ := report.ProfileKey(s.Profile); k != key {
			t.Errorf("--profile %s exported as %s", name, s.Profile)
		}
	}
}

// TestMultipliersAreTheReports checks that every profile exports the
// report's own recommendation.
func TestMultipliersAreTheReports(t *testing.T) {
	t.Parallel()
	run := gop(t)
	rep, err := report.Build(run, report.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Profiles {
		s, err := Export(run, options(p.Key, 6, FormatJSON))
		if err != nil {
			t.Fatal(err)
		}
		if s.WebMult != p.WebMult || s.DBMult != p.DBMult || s.Profile != p.Name {
			t.Errorf("%s: exported %g × %g, the report recommends %g × %g", p.Key, s.WebMult, s.DBMult, p.WebMult, p.DBMult)
		}
	}
}

func itoa(n int) string { return sweep.FormatNumber(float64(n)) }

// TestOutOfRange checks the warning outside the measured CPU limits:
// above them with the USL prediction and its interval, below them too,
// none inside (measured or not).
func TestOutOfRange(t *testing.T) {
	t.Parallel()
	run := gop(t)
	s, err := Export(run, options("throughput", 20, FormatEnv))
	if err != nil {
		t.Fatal(err)
	}
	want := "20 CPUs is outside the measured CPU limits (2, 4, 6, 8): the multipliers were chosen there; " +
		"the USL fit of the best RPS per CPU limit predicts "
	if s.InRange || len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0], want) ||
		s.Prediction == nil || s.Prediction.RPS == nil || s.Prediction.Lo == nil || s.Prediction.Hi == nil {
		t.Fatalf("20 CPUs: in range %v, warnings %q, prediction %+v; want one warning starting %q and a prediction",
			s.InRange, s.Warnings, s.Prediction, want)
	}
	p := s.Prediction
	figures := " predicts " + itoa(int(*p.RPS+0.5)) + " RPS at 20 CPUs (95 % interval " + itoa(int(*p.Lo+0.5)) +
		"–" + itoa(int(*p.Hi+0.5)) + "), a curve, not a measurement"
	if !strings.Contains(s.Warnings[0], figures) || !(*p.Lo < *p.RPS && *p.RPS < *p.Hi) || !p.Extrapolation {
		t.Errorf("warning %q should quote %q from prediction %+v", s.Warnings[0], figures, p)
	}
	if !strings.Contains(s.Warnings[0], "more than 2× the largest measured CPU limit") {
		t.Errorf("warning %q should carry the report's far-out warning", s.Warnings[0])
	}
	low, err := Export(run, options("latency", 1, FormatEnv))
	if err != nil || low.InRange || len(low.Warnings) != 1 || low.Prediction == nil ||
		!strings.HasPrefix(low.Warnings[0], "1 CPU is outside the measured CPU limits (2, 4, 6, 8)") {
		t.Errorf("1 CPU: %v, %+v; want an out-of-range warning with a prediction", err, low)
	}
	for _, cpus := range []float64{2, 5, 8} {
		in, err := Export(run, options("latency", cpus, FormatEnv))
		measured := in != nil && in.Source == SourceMeasured
		if err != nil || !in.InRange || len(in.Warnings) != map[bool]int{true: 0, false: 1}[measured] || in.Prediction != nil {
			t.Errorf("%g CPUs: %v, %+v; want no prediction, and a warning only at the unmeasured 5", cpus, err, in)
		}
	}
}

// TestOutOfRangeWithoutFit quotes the report's reason when the run has
// too few CPU limits for a USL fit.
func TestOutOfRangeWithoutFit(t *testing.T) {
	t.Parallel()
	run := loadFixture(t, smallRun())
	s, err := Export(run, Options{Profile: "balanced", CPUs: 4, Format: FormatEnv, Report: report.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	want := "4 CPUs is outside the measured CPU limits (1, 2): the multipliers were chosen there; " +
		"no USL fit: the run has 2 CPU limit(s) with results and the fit needs at least 3 (it has three parameters)"
	if len(s.Warnings) != 1 || s.Warnings[0] != want || s.Prediction != nil {
		t.Errorf("warnings %q, prediction %+v; want exactly %q", s.Warnings, s.Prediction, want)
	}
}

// TestNoQualifyingPair: a profile without a pair measured eligible at
// every CPU limit is ErrNoPick with the report's reason, not bad input.
func TestNoQualifyingPair(t *testing.T) {
	t.Parallel()
	run := loadFixture(t, disjointRun())
	_, err := Export(run, Options{Profile: "balanced", CPUs: 1.5, Format: FormatEnv, Report: report.DefaultOptions()})
	want := "profile balanced: no qualifying multiplier pair: no multiplier pair was measured without errors at every CPU limit"
	if !errors.Is(err, ErrNoPick) || errors.Is(err, sweep.ErrBadInput) || err.Error() != want {
		t.Errorf("err = %v, want ErrNoPick: %q", err, want)
	}
}

// TestBadOptions: each bad option is bad input naming it.
func TestBadOptions(t *testing.T) {
	t.Parallel()
	run := gop(t)
	cases := []struct {
		name, field string
		opts        Options
	}{
		{"unknown profile", "profile", options("fastest", 4, FormatEnv)},
		{"no profile", "profile", options("", 4, FormatEnv)},
		{"zero cpus", "cpus", options("balanced", 0, FormatEnv)},
		{"negative cpus", "cpus", options("balanced", -2, FormatEnv)},
		{"unknown format", "format", options("balanced", 4, "yaml")},
		{"missing compose file", "compose", Options{Profile: "balanced", CPUs: 4, Format: FormatCompose,
			Report: report.DefaultOptions(), Compose: []string{filepath.Join("testdata", "nope.yaml")}}},
		{"run without compose files", "compose", Options{Profile: "balanced", CPUs: 4, Format: FormatCompose,
			Report: report.DefaultOptions()}},
		{"service not in the files", "compose", Options{Profile: "balanced", CPUs: 4, Format: FormatCompose,
			Report: report.DefaultOptions(), Compose: []string{filepath.Join("testdata", "app-deploy.yaml")}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Export(run, c.opts)
			var bad *sweep.BadInputError
			if !errors.As(err, &bad) || bad.Field != c.field {
				t.Errorf("err = %v, want bad input of %s", err, c.field)
			}
		})
	}
}

// TestGolden pins the three formats: the Game of Pools' throughput pick
// at 15 CPUs (outside the measured limits, with a prediction) and its
// latency pick at 6 (measured).
func TestGolden(t *testing.T) {
	t.Parallel()
	run := gop(t)
	for _, c := range []struct {
		profile string
		cpus    float64
	}{{"throughput", 15}, {"latency", 6}} {
		for _, f := range Formats {
			name := c.profile + "-" + sweep.FormatNumber(c.cpus) + "." + string(f)
			t.Run(name, func(t *testing.T) {
				s, err := Export(run, options(c.profile, c.cpus, f))
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := Write(&b, s, f); err != nil {
					t.Fatal(err)
				}
				testenv.Golden(t, filepath.Join("testdata", "golden", name), b.Bytes())
			})
		}
	}
}

// TestComposeNeedsTheBase: compose output of settings exported for
// another format is an error, not an override without its CPU limit.
func TestComposeNeedsTheBase(t *testing.T) {
	t.Parallel()
	s, err := Export(gop(t), options("balanced", 4, FormatEnv))
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(&bytes.Buffer{}, s, FormatCompose); !errors.Is(err, errNoBase) {
		t.Errorf("err = %v, want errNoBase", err)
	}
}

// TestComposeFromTheRunsSpec reads the compose files the run saved and
// puts the CPU limit where they keep it (deploy limits here), with the
// note that compose v1 needs --compatibility for it.
func TestComposeFromTheRunsSpec(t *testing.T) {
	t.Parallel()
	run := loadFixture(t, smallRun())
	s, err := Export(run, Options{Profile: "throughput", CPUs: 1.5, Format: FormatCompose, Report: report.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, s, FormatCompose); err != nil {
		t.Fatal(err)
	}
	// throughput-first's pick: web 2 × CPUs, pool 1.5 × web (2 × 2 measured
	// best, within the noise of it), 3 and 4 at 1.5 CPUs
	want := "services:\n  app:\n    deploy:\n      resources:\n        limits:\n          cpus: \"1.5\"\n" +
		"    environment:\n      DB_POOL: \"4\"\n      WEB_THREADS: \"3\"\n"
	if !strings.HasSuffix(b.String(), want) || !strings.Contains(b.String(), "(testdata/app-deploy.yaml)") {
		t.Errorf("override:\n%s\nwant it to end with\n%s", b.String(), want)
	}
	if len(s.Warnings) != 2 || !strings.Contains(s.Warnings[1], "docker-compose v1 only with --compatibility") ||
		!strings.HasPrefix(s.Warnings[0], "1.5 CPUs was not measured: the rule across CPU limits") {
		t.Errorf("warnings %q, want the rule's and the compose v1 note", s.Warnings)
	}
}

// TestRefusesSlices: a run with extra axes holds several grids, and the
// export does not guess which one is meant.
func TestRefusesSlices(t *testing.T) {
	t.Parallel()
	spec := smallSpec()
	spec.Memory = []string{"256m", "1g"}
	cells := map[string][2]float64{}
	for i, c := range spec.Cells() {
		cells[c.ID] = [2]float64{float64(100 + i), 10}
	}
	_, err := Export(loadFixture(t, fixture{spec: spec, cells: cells}),
		Options{Profile: "balanced", CPUs: 1, Format: FormatEnv, Report: report.DefaultOptions()})
	if !errors.Is(err, sweep.ErrBadInput) || !strings.Contains(err.Error(), "has extra axes (2 slices: memory=256m; memory=1g)") {
		t.Errorf("err = %v, want bad input naming the two slices", err)
	}
}

// TestPoolOfAnotherService: a run whose pool went to another service
// (--pool-env db:DEFAULT_POOL_SIZE) exports it there: in the compose
// override on that service, in the env file after a comment naming it,
// in JSON under service_env; the target's env has only the web threads.
func TestPoolOfAnotherService(t *testing.T) {
	t.Parallel()
	f := smallRun()
	f.spec.PoolEnv = "db:DEFAULT_POOL_SIZE"
	run := loadFixture(t, f)
	s, err := Export(run, Options{Profile: "throughput", CPUs: 1.5, Format: FormatCompose, Report: report.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Env) != 1 || s.Env["WEB_THREADS"] != "3" || s.ServiceEnv["db"]["DEFAULT_POOL_SIZE"] != "4" {
		t.Fatalf("env %v, service env %v; want WEB_THREADS=3 on app, DEFAULT_POOL_SIZE=4 on db", s.Env, s.ServiceEnv)
	}
	want := map[Format]string{
		FormatCompose: "services:\n  app:\n    deploy:\n      resources:\n        limits:\n          cpus: \"1.5\"\n" +
			"    environment:\n      WEB_THREADS: \"3\"\n  db:\n    environment:\n      DEFAULT_POOL_SIZE: \"4\"\n",
		FormatEnv:  "WEB_THREADS=3\n# the pool is service db's setting, not app's:\nDEFAULT_POOL_SIZE=4\n",
		FormatJSON: `"service_env": {` + "\n" + `    "db": {` + "\n" + `      "DEFAULT_POOL_SIZE": "4"`,
	}
	for f, w := range want {
		var b bytes.Buffer
		if err := Write(&b, s, f); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), w) {
			t.Errorf("%s:\n%s\nwant it to hold\n%s", f, b.String(), w)
		}
	}
}

// TestKubernetesPoolOfAnotherDeployment: a run whose pool went to
// another Deployment (pool_env db:POOL) exports a second patch document
// naming each of that Deployment's containers; manifests without the
// target Deployment are bad input.
func TestKubernetesPoolOfAnotherDeployment(t *testing.T) {
	t.Parallel()
	run := gop(t)
	run.PoolEnv = "db:POOL"
	opts := options("throughput", 5, FormatKubernetes) // the rule at an unmeasured budget: web 8 (7.5 to even), pool 12
	s, err := Export(run, opts)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, s, FormatKubernetes); err != nil {
		t.Fatal(err)
	}
	want := "---\n# The pool goes to Deployment db (the run's pool_env db:POOL): patch it with this document.\n" +
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: db\nspec:\n  template:\n    spec:\n      containers:\n" +
		"        - name: postgres\n          env:\n            - name: POOL\n              value: \"12\"\n" +
		"        - name: exporter\n          env:\n            - name: POOL\n              value: \"12\"\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("patch:\n%s\nwant it to end with\n%s", b.String(), want)
	}
	run.Service = "web"
	if _, err := Export(run, opts); !errors.Is(err, sweep.ErrBadInput) || !strings.Contains(err.Error(), `"web" is not a Deployment`) {
		t.Errorf("target not in the manifests: %v", err)
	}
}
