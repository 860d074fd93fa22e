package sweep

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/results"
)

var cpusetRe = regexp.MustCompile(`^$|^\d+(-\d+)?(,\d+(-\d+)?)*$`)

// Defaults of the reference study.
var (
	DefaultWebMult = []float64{1, 1.5, 2, 2.5, 3}
	DefaultDBMult  = []float64{1.5, 2, 2.5, 3}
)

// Spec is everything a sweep was asked to do. It is saved in sweep.json
// (with the DSN redacted) so a run records what it measured and a resume
// can tell whether it is the same sweep.
type Spec struct {
	// CPUs are the CPU limits of the target, in cores.
	CPUs []float64 `json:"cpus"`
	// WebMult and DBMult are the multipliers of the derivation rule.
	WebMult []float64 `json:"web_mult"`
	DBMult  []float64 `json:"db_mult"`
	// Compose lists the base compose files, in order.
	Compose []string `json:"compose"`
	// Service is the target service in the stack.
	Service string `json:"service"`
	// WebEnv, PoolEnv and NameEnv are the variables set on the target:
	// web threads, pool size and the cell id. PoolEnv may be
	// SERVICE:NAME, a variable of another service (see PoolTarget).
	WebEnv  string `json:"web_env"`
	PoolEnv string `json:"pool_env"`
	NameEnv string `json:"name_env"`
	// URL is the base URL the load goes to.
	URL string `json:"url"`
	// ReadyPath is polled for HTTP 200 when the target has no healthcheck.
	ReadyPath    string   `json:"ready_path"`
	ReadyTimeout Duration `json:"ready_timeout"`
	// CallTimeout bounds each call the runner makes out of the process
	// (apply, read back, the watch, the samplers, the database reset,
	// the URL probe; with the ready timeout added, the ready wait, the
	// dependencies and the DSN checks; with a phase's length added, the
	// load phase; see bound.go); 0 means DefaultCallTimeout.
	CallTimeout Duration `json:"call_timeout,omitempty"`
	// DBDSN is the target's database; it never reaches disk (see
	// Redacted). Another DSN or password is not another spec: a resume
	// may give one.
	DBDSN string `json:"-"`
	// PoolerDSN reaches a PgBouncer in the stack for its pool stats; like
	// the DSN it never reaches disk.
	PoolerDSN string `json:"-"`
	// Warmup and Duration are the lengths of the two load phases.
	Warmup   Duration `json:"warmup"`
	Duration Duration `json:"duration"`
	// Precision, when above 0, turns on the steady-state rule (package
	// sweep/steady): the warm-up ends once throughput has settled and the
	// measured phase once the 95 % half-width of its mean RPS is at most
	// Precision of the mean (0.02: ±2 %) and p99 has settled, never before
	// MinDuration; Warmup and Duration become the longest each may run.
	// 0 keeps fixed durations, and a spec without it is the spec it was.
	Precision   float64  `json:"precision,omitempty"`
	MinDuration Duration `json:"min_duration,omitempty"`
	// Load is the load model, as given (vus=N, vus-per-web=K, rate=R).
	Load LoadSpec `json:"load"`
	// Driver is the load driver: auto, k6 or builtin.
	Driver string `json:"driver"`
	// Keep leaves the stack up at the end.
	Keep bool `json:"keep"`
	// Swarm runs the stack as services of the Docker Swarm the client
	// points at (package swarm) instead of as a compose project.
	Swarm bool `json:"swarm,omitempty"`
	// Kubernetes runs the stack from Manifests in a namespace of the run's
	// own on the cluster the kubeconfig names (package kube), the load as
	// Jobs in that namespace from LoadImage; KubeContext picks the
	// kubeconfig's context (empty: the current one) and Container the
	// target Deployment's container when it has several.
	Kubernetes  bool     `json:"kubernetes,omitempty"`
	Manifests   []string `json:"manifests,omitempty"`
	KubeContext string   `json:"kube_context,omitempty"`
	Container   string   `json:"container,omitempty"`
	// InPlace resizes the target's pod in place when a cell differs from
	// the one before only in its CPU limit (Kubernetes 1.33 and later),
	// instead of rolling out a new pod.
	InPlace bool `json:"in_place,omitempty"`
	// Place adds swarm placement constraints, SERVICE=CONSTRAINT each
	// (app=node.id==<id>, db=node.labels.role==db).
	Place []string `json:"place,omitempty"`
	// LoadImage is the image of the load's one-shot services (the static
	// sweep binary, e.g. sweep-drive:<hash>) when a load=CONSTRAINT entry
	// of Place runs the load on a swarm node.
	LoadImage string `json:"load_image,omitempty"`
	// K6Image is the image k6 runs from when k6 drives a load away from
	// sweep's process (on Kubernetes: a Job whose container runs from it,
	// sweep copied in from LoadImage); it holds k6 on its PATH, e.g.
	// grafana/k6.
	K6Image string `json:"k6_image,omitempty"`
	// Parallel, from 1, runs the cells on that many swarm nodes at once
	// (sweep.Lanes): each lane has a stack of its own with every service
	// pinned to its node, and {node} in URL, DBDSN and PoolerDSN is that
	// node's address. 0 runs one stack placed by Place.
	Parallel int `json:"parallel,omitempty"`
	// LaneNodes names the nodes of the lanes, in order (node ids or
	// host names); empty: the swarm's ready, active nodes, workers first.
	LaneNodes []string `json:"lane_nodes,omitempty"`
	// Out is the run directory.
	Out string `json:"out"`
	// Repeat is the number of repetitions per cell (r1..rN).
	Repeat int `json:"repeat"`
	// RepeatAuto repeats, after the Repeat first repetitions, the cells
	// of every pick the report cannot separate from its runners-up, until
	// it can or they have MaxRepeat repetitions (see strategy/repeat).
	RepeatAuto bool `json:"repeat_auto,omitempty"`
	MaxRepeat  int  `json:"max_repeat,omitempty"`
	// Order is grid, interleave or shuffle; Seed drives shuffle.
	Order string `json:"order"`
	Seed  uint64 `json:"seed"`
	// Retries re-runs a failed cell up to this many times.
	Retries int `json:"retries"`
	// MaxFailures aborts the run after this many failed cells (0: never).
	MaxFailures int `json:"max_failures"`
	// MaxErrors is the share of a cell's requests (0..1) that may fail
	// before the cell fails (see CheckErrors); 0 means DefaultMaxErrors.
	MaxErrors float64 `json:"max_errors,omitempty"`
	// Cooldown pauses between cells.
	Cooldown Duration `json:"cooldown"`
	// CPUSet pins the target to host CPUs (--cpuset), so the load driver
	// and the database run elsewhere.
	CPUSet string `json:"cpuset,omitempty"`
	// LoadLevels, Memory, Axes and Variants are the extra axes; each of
	// their values multiplies the grid (see Extras).
	LoadLevels []LoadSpec `json:"load_levels,omitempty"`
	Memory     []string   `json:"memory,omitempty"`
	Axes       []Axis     `json:"axes,omitempty"`
	Variants   []Variant  `json:"variants,omitempty"`
	// DBResetSQL is a SQL file run before each cell's warm-up.
	DBResetSQL string `json:"db_reset_sql,omitempty"`
	// FindLimit, when set, makes every cell search its safe limit instead
	// of measuring one load (run --find-limit).
	FindLimit *FindLimit `json:"find_limit,omitempty"`
	// Baseline, when set, adds one cell per CPU limit at the user's
	// current settings, which the report measures the picks against.
	Baseline *Baseline `json:"baseline,omitempty"`
	// OverLimit says what to do with cells whose pools ask for more
	// connections than the database allows: refuse the run (""), skip
	// them or run them flagged (see connlimit.go). It steers the run, not
	// what a cell measures, so a resume may change it.
	OverLimit string `json:"over_limit,omitempty"`
	// PoolPerWeb says the pool size is per web worker (Node.js cluster
	// workers, processes each with a pool of their own): the database
	// then sees pool × web threads connections per replica, and the
	// connection-limit guard counts them so. false: one pool per replica
	// (a thread pool sharing one connection pool).
	PoolPerWeb bool `json:"pool_per_web,omitempty"`
	// Script is the user's own k6 script (path and content hash); nil runs
	// the bundled crud.js.
	Script *Script `json:"script,omitempty"`
	// Scenario is the built-in driver's scenario file (path and content
	// hash, package load/scenario); nil runs the demo's CRUD. A scenario
	// runs on the built-in driver only.
	Scenario *Scenario `json:"scenario,omitempty"`
	// Strategy is how the cells are measured: "" (or "grid") every cell
	// in full, "halving" by successive halving (strategy/halving). Another
	// strategy is another spec: a resume cannot switch.
	Strategy string `json:"strategy,omitempty"`
	// ControlEvery, from 1, measures the run's control cell (Control) at
	// the start of a grid run on one stack, at most every ControlEvery
	// jobs and at the end, MinControls times at least (see WithControls):
	// its spread is the run's measured noise and its trend the host's
	// drift. 0 measures none (the report then says its noise was not
	// measured); the CLI's default is DefaultControlEvery. It steers the
	// run, so a resume may change it.
	ControlEvery int `json:"control_every,omitempty"`
	// Control is the control cell's id; "" takes the cell an earlier
	// invocation of the run measured as its control, else MiddleCell.
	Control string `json:"control,omitempty"`
	// Schedule is how the cells share the host: "" (sequential) one
	// target at a time; "interleaved" every target of a CPU limit at once,
	// each given a Slice of load per round in a random order drawn from
	// Seed, for Rounds rounds (RoundsAuto: until the picks' intervals are
	// apart, at most Duration of load per cell, MaxRounds; see
	// interleave.go). The rounds are its repetitions and its noise: no
	// control cell runs.
	Schedule   string   `json:"schedule,omitempty"`
	Slice      Duration `json:"slice,omitempty"`
	Rounds     int      `json:"rounds,omitempty"`
	RoundsAuto bool     `json:"rounds_auto,omitempty"`
}

// Duration is a time.Duration written as text ("30s") in JSON.
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// Std returns the time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// Cells returns the plan of this spec: the base grid for every
// combination of the extra axes.
func (s Spec) Cells() []Cell {
	base := withBaseline(BuildPlan(s.CPUs, s.WebMult, s.DBMult), s.CPUs, s.Baseline)
	combos := s.combos()
	cells := make([]Cell, 0, len(base)*len(combos))
	for _, x := range combos {
		suffix := x.suffix(s.Axes)
		for _, c := range base {
			c.ID += suffix
			c.Extras = x
			cells = append(cells, c)
		}
	}
	return cells
}

// ParseNumberList parses a comma-separated list of numbers > 0 for flag.
func ParseNumberList(flag, text string) ([]float64, error) {
	if strings.TrimSpace(text) == "" {
		return nil, BadInput(flag, "empty list; give numbers > 0 separated by commas, e.g. 2,4,6,8")
	}
	var out []float64
	for i, f := range strings.Split(text, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseFloat(f, 64)
		switch {
		case f == "":
			return nil, BadInput(flag, "element %d is empty in %q; remove the extra comma", i+1, text)
		case err != nil:
			return nil, BadInput(flag, "%q is not a number; give numbers > 0 separated by commas", f)
		case v <= 0 || v != v || v > 1e6:
			return nil, BadInput(flag, "%s must be a number > 0", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// Validate checks what can be checked without the outside world: the
// grid and how it is measured (ValidatePlan), then the target.
func (s Spec) Validate() error {
	if err := s.ValidatePlan(); err != nil {
		return err
	}
	if s.Service == "" {
		return BadInput("service", "no target service; name the compose service to sweep")
	}
	if err := s.validateLanes(); err != nil {
		return err
	}
	return s.ValidateURL()
}

// ValidateURL checks that the URL is an http(s) base URL with a host
// ({node} read as a node's address).
func (s Spec) ValidateURL() error {
	u, err := url.Parse(s.LaneURL("127.0.0.1"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return BadInput("url", "%q is not an http(s) base URL; give e.g. http://127.0.0.1:8080", s.URL)
	}
	return nil
}

// ValidateScenario checks that a scenario file runs where it can: on the
// built-in driver, which runs it in place of a k6 script.
func (s Spec) ValidateScenario() error {
	switch {
	case s.Scenario != nil && s.Script != nil:
		return BadInput("scenario", "runs on the built-in driver, a k6 script on k6; give {scenario} or {script}, not both")
	case s.Scenario != nil && s.Driver == "k6":
		return BadInput("scenario", "runs on the built-in driver; drop {driver} k6 or {scenario}")
	}
	return nil
}

// ValidatePlan checks everything of the spec but the target (its service
// and URL), which a plan does without: what `sweep plan` prints is a plan
// that `sweep run` would take.
func (s Spec) ValidatePlan() error {
	if err := s.ValidateScenario(); err != nil {
		return err
	}
	if err := s.validateSchedule(); err != nil {
		return err
	}
	checks := []struct {
		bad  bool
		flag string
		msg  string
	}{
		{len(s.CPUs) == 0, "cpus", "no CPU limits; give e.g. {cpus} 2,4,6,8"},
		{len(s.WebMult) == 0, "web_mult", "no web multipliers"},
		{len(s.DBMult) == 0, "db_mult", "no DB pool multipliers"},
		{s.WebEnv == "" || s.PoolEnv == "", "web_env", "the web-thread and pool variable names must not be empty"},
		{s.ReadyTimeout <= 0, "ready_timeout", "must be > 0, e.g. 120s"},
		{s.CallTimeout < 0, "call_timeout", "must be > 0, e.g. 10m"},
		{s.Duration <= 0, "duration", "must be > 0, e.g. 5m"},
		{s.Warmup < 0, "warmup", "must be >= 0 (0 skips the warm-up)"},
		{!strings.HasPrefix(s.ReadyPath, "/"), "ready_path", "must start with /, e.g. /health"},
		{s.Repeat < 1 || s.Repeat > 100, "repeat", "must be between 1 and 100"},
		{s.RepeatAuto && (s.MaxRepeat < max(2, s.Repeat) || s.MaxRepeat > 100), "max_repeat",
			"must be from 2 (and the first repetitions) up to 100"},
		{!s.RepeatAuto && s.MaxRepeat != 0, "max_repeat", "caps automatic repetitions; give {repeat} auto too"},
		{!ValidOrder(s.Order), "order", "must be grid, interleave or shuffle"},
		{s.Retries < 0 || s.Retries > 10, "retries", "must be between 0 and 10"},
		{s.MaxFailures < 0, "max_failures", "must be >= 0 (0: never abort)"},
		{!(s.MaxErrors >= 0 && s.MaxErrors < 1), "max_errors", "must be a share above 0 and below 100 %, e.g. 5%"},
		{s.Cooldown < 0, "cooldown", "must be >= 0"},
		{!(s.Precision >= 0 && s.Precision < 1), "precision", "must be a share from 0 up to below 100 %, e.g. 2%"},
		{s.MinDuration < 0 || s.MinDuration > s.Duration, "min_duration", "must be from 0 up to the measured phase's duration"},
		{s.MinDuration > 0 && s.Precision == 0, "min_duration", "bounds the steady-state rule; give a precision too"},
		{!validStrategy(s.Strategy), "strategy", "must be grid or halving"},
		{s.ControlEvery < 0, "control_every", "must be >= 0 (0: no control cell)"},
		{s.Kubernetes && s.Swarm, "kubernetes", "runs the stack on Kubernetes; drop {swarm}, or drop {kubernetes} to run on the swarm"},
		{s.Kubernetes && len(s.Manifests) == 0, "manifests", "a Kubernetes stack is its manifests; give {manifests} FILE|DIR (repeatable)"},
		{!s.Kubernetes && len(s.Manifests) > 0, "manifests", "are a Kubernetes stack's; give {kubernetes} too"},
		{!s.Kubernetes && s.KubeContext != "", "kube_context", "picks a Kubernetes cluster; give {kubernetes} too"},
		{!s.Kubernetes && s.InPlace, "in_place", "resizes a Kubernetes pod in place; give {kubernetes} too"},
		{!s.Kubernetes && s.Container != "", "container", "names the target Deployment's container on Kubernetes; give {kubernetes} too"},
		{s.Kubernetes && s.LoadImage == "", "load_image",
			"on Kubernetes the load runs as a Job in the cluster, from an image holding sweep; give {load_image} IMAGE (make demo-images builds sweep-drive:<hash>)"},
		{s.Kubernetes && s.K6Away() && s.K6Image == "", "k6_image",
			"on Kubernetes k6 runs as a Job in the cluster, from an image holding k6; give {k6_image} IMAGE (e.g. grafana/k6), or {driver} builtin"},
		{s.K6Image != "" && !s.LoadAway(), "k6_image",
			"is the image of k6 running away from sweep's process: as a Job on Kubernetes or a service on a swarm node; give {kubernetes}, or {swarm} and {place} load=CONSTRAINT, or drop it"},
		{s.K6Image != "" && s.Driver == "builtin", "k6_image", "is k6's image; drop it with {driver} builtin"},
		{s.K6Image != "" && s.Scenario != nil, "k6_image", "is k6's image, and a scenario file runs on the built-in driver; drop one of them"},
		{s.Kubernetes && s.CPUSet != "", "cpuset", "a Kubernetes pod is not pinned to host CPUs by sweep (the kubelet's CPU manager decides); drop it with {kubernetes}"},
		{s.Kubernetes && len(s.Variants) > 0, "variants", "variants run on compose or a swarm; on Kubernetes one stack runs so far"},
		{s.Kubernetes && len(s.StackPlace()) > 0, "place", "on Kubernetes only the load is placed (load=KEY=VALUE, a node selector)"},
		{len(s.Place) > 0 && !s.Swarm && !s.Kubernetes, "place", "places services on a swarm; give {swarm} too"},
		{s.Swarm && s.CPUSet != "", "cpuset", "a swarm service cannot pin its containers to CPUs; drop it with {swarm}"},
		{s.LoadImage != "" && len(s.LoadPlace()) == 0 && !s.Kubernetes, "load_image", "is the image of a load placed on a node; give {place} load=CONSTRAINT too"},
		{len(s.LoadPlace()) > 0 && s.LoadImage == "", "load_image",
			"a load placed on a node runs from an image holding sweep; give {load_image} IMAGE (make demo-images builds sweep-drive:<hash>)"},
		{s.Swarm && s.K6Away() && s.K6Image == "", "k6_image",
			"k6 on a swarm node runs as a service from an image holding k6, sweep installed beside it from {load_image}; give {k6_image} IMAGE (e.g. grafana/k6), or {driver} builtin"},
	}
	for _, c := range checks {
		if c.bad {
			return BadInput(c.flag, "%s", c.msg)
		}
	}
	for _, c := range s.CPUs {
		if c < MinCPUs {
			return BadInput("cpus", "%s is below %s, the smallest CPU limit the Docker Engine takes", FormatNumber(c), FormatNumber(MinCPUs))
		}
	}
	if !cpusetRe.MatchString(s.CPUSet) {
		return BadInput("cpuset", "%q is not a CPU list like 1 or 0-1 or 1,3", s.CPUSet)
	}
	for _, name := range []string{s.WebEnv, s.PoolEnv, s.NameEnv} {
		if strings.ContainsAny(name, "=\n\x00 ") {
			return BadInput("web_env", "%q is not a valid environment variable name", name)
		}
	}
	if err := s.validPoolEnv(); err != nil {
		return err
	}
	switch s.Driver {
	case "auto", "k6", "builtin":
	default:
		return BadInput("driver", "%q is not one of auto, k6, builtin", s.Driver)
	}
	if !ValidOverLimit(s.OverLimit) {
		return BadInput("over_limit", "%q is not skip or run", s.OverLimit)
	}
	if s.FindLimit != nil && s.Strategy == StrategyHalving {
		return BadInput("strategy", "halving measures one load per cell; drop {find_limit}")
	}
	if s.Control != "" {
		if _, err := s.FindCell(s.Control); err != nil {
			return BadInput("control", "%q is not a cell of this run", s.Control)
		}
	}
	if s.FindLimit != nil && len(s.LoadLevels) > 0 {
		return BadInput("find_limit", "searches the load of every cell; drop {load_levels}")
	}
	return nil
}

// LoadAway reports whether the load runs away from sweep's process: on
// a swarm node (a load=CONSTRAINT entry of Place) or as a Kubernetes Job.
func (s Spec) LoadAway() bool { return len(s.LoadPlace()) > 0 || s.Kubernetes }

// K6Away reports whether k6 drives the load away from sweep's process
// (LoadAway): when the driver is k6, or auto with a k6 script or a k6
// image given. Anywhere else k6 runs in sweep's process, or the load
// away is the built-in driver's.
func (s Spec) K6Away() bool {
	if !s.LoadAway() || s.Scenario != nil {
		return false
	}
	return s.Driver == "k6" || (s.Driver == "auto" && (s.Script != nil || s.K6Image != ""))
}

// LoadFor resolves the load model for one cell (vus-per-web becomes VUs)
// and the user's file that driver runs: k6 the script, the built-in
// driver the scenario file (and, as the generator check's reference
// beside a k6 script, the demo's CRUD).
func (s Spec) LoadFor(c Cell, driver string) results.LoadInfo {
	load := s.Load
	if c.Extras.Load != nil {
		load = *c.Extras.Load
		load.MaxVUs = s.Load.MaxVUs
	}
	info := load.Info()
	info.Driver = driver
	switch driver {
	case "k6":
		info.Script = s.Script.Ref()
	case "builtin":
		info.Scenario = s.Scenario.Ref()
	}
	if load.VUsPerWeb > 0 {
		info.VUs = max(1, RoundHalfEven(load.VUsPerWeb*float64(c.WebThreads)))
	}
	return info
}

// Redacted returns a copy safe to write to disk or logs.
func (s Spec) Redacted() Spec {
	s.DBDSN, s.PoolerDSN = "", ""
	return s
}

// String is never the DSN.
func (s Spec) String() string { return fmt.Sprintf("sweep of %d cells", len(s.Cells())) }

// SweptEnv names the target's variables a cell sets and reads back: web
// threads, pool, instance name and the target's env axes.
func (s Spec) SweptEnv() []string {
	names := []string{s.WebEnv}
	if pool := s.PoolTarget(); pool.Service == "" {
		names = append(names, pool.Name)
	}
	if s.NameEnv != "" {
		names = append(names, s.NameEnv)
	}
	for _, a := range s.Axes {
		if a.Service == "" || a.Service == s.Service {
			names = append(names, a.Name)
		}
	}
	return names
}
