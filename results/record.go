// Package results owns everything a sweep leaves on disk: the cell record
// (result.json), the run directory layout, atomic writes, and the renderings
// built from them (matrices, reports, exports). It runs nothing: the runner
// fills records, the report reads them back, and the JSON keys here are a
// contract that outside tools rely on.
package results

import "time"

// SchemaVersion is written into every result.json and sweep.json. Bump it
// when a key changes meaning; add keys freely.
const SchemaVersion = 1

// Status is the state of one cell repetition.
type Status string

// The three cell states. A cell is done when it is StatusOK or StatusFailed;
// StatusInterrupted cells run again on resume.
const (
	StatusOK          Status = "ok"
	StatusFailed      Status = "failed"
	StatusInterrupted Status = "interrupted"
	// StatusSkipped is a cell the connection-limit guard did not run: its
	// pool asks for more connections than the database (or pooler)
	// allows. The reason says by how much. A later run checks it again.
	StatusSkipped Status = "skipped"
)

// CauseRequests is the Cause of a cell failed because too many of its
// requests failed: the load did not work against the stack (a wrong path,
// an API unlike the scenario's), however fast the stack answered.
const CauseRequests = "requests"

// Done reports whether a cell in this state is finished: measured
// (ok, failed) or recorded as skipped by the connection-limit guard.
func (s Status) Done() bool { return s == StatusOK || s == StatusFailed || s == StatusSkipped }

// Record is one cell repetition's result.json.
type Record struct {
	SchemaVersion int       `json:"schema_version"`
	Cell          CellInfo  `json:"cell"`
	Repetition    int       `json:"repetition"`
	Status        Status    `json:"status"`
	Reason        string    `json:"reason,omitempty"`
	Applied       Applied   `json:"applied"`
	Load          LoadInfo  `json:"load"`
	StartedAt     time.Time `json:"started_at"`
	FinishedAt    time.Time `json:"finished_at"`
	// PhasesS holds seconds spent per phase: apply, ready, reset, warmup,
	// measure, write.
	PhasesS map[string]float64 `json:"phases_s"`
	// Attempts is how many times the cell ran (more than 1 after retries).
	Attempts int `json:"attempts,omitempty"`
	// Cause names what failed a failed cell where it is one of a few known
	// kinds (CauseRequests); empty otherwise, the reason says it in words.
	Cause string `json:"cause,omitempty"`
	// MaxErrors is the share of failed requests above which the cell
	// fails (run --max-errors); 0 in records written before it existed.
	MaxErrors float64 `json:"max_errors,omitempty"`
	Measurement
	// Resources holds each service's container use during the measured
	// phase; DB the database's sessions and transactions (nil without
	// --db-dsn); Driver the load generator's own CPU use.
	Resources map[string]ResourceStats `json:"resources,omitempty"`
	DB        *DBStats                 `json:"db,omitempty"`
	Pooler    *PoolerStats             `json:"pooler,omitempty"`
	Driver    *DriverStats             `json:"driver,omitempty"`
	// Delivery proves that the measured load reached the target.
	Delivery *Delivery `json:"delivery,omitempty"`
	// LittlesRatio and LittlesExpected are the closed model's Little's
	// law check (see Littles); both nil for an open model or a phase
	// without answered requests.
	LittlesRatio    *float64 `json:"littles_ratio,omitempty"`
	LittlesExpected *float64 `json:"littles_expected,omitempty"`
	// Host is the host's CPU pressure over the measured phase.
	Host     *HostStats `json:"host,omitempty"`
	Warnings []string   `json:"warnings,omitempty"`
	// ConnLimit names what came near or past the database's connection
	// limit in this cell: the guard's finding for a cell run over the
	// limit, a peak of sessions within 5 % of max_connections, or "too
	// many clients" in the target's log; empty when nothing did.
	ConnLimit []string `json:"conn_limit,omitempty"`
	// Events lists the changes of the stack's containers seen during the
	// warm-up and the measured phase (restarts, exits, pauses); a record
	// with events is failed.
	Events []StackEvent `json:"events,omitempty"`
	// SafeLimit is set when the cell searched its safe limit instead of
	// measuring one load (run --find-limit); the measurement above is then
	// the one at the safe limit (at the lowest level when none held), and
	// limit.json beside result.json holds every level.
	SafeLimit *SafeLimit `json:"safe_limit,omitempty"`
	// Round is the round of an adaptive strategy that measured the record
	// (0: none, as in a grid run).
	Round int `json:"round,omitempty"`
	// Control is the lane (from 1) that measured the record as the
	// control cell of run --parallel (cells/<id>/control<lane>): a short
	// measurement that compares the lanes' nodes, never one of the
	// cell's repetitions; 0 otherwise.
	Control int `json:"control,omitempty"`
	// ControlSeq numbers, from 1, the measurements of the run's control
	// cell on one stack (cells/<id>/control<lane>.<seq>): the same cell
	// measured at the start, every few cells and at the end, whose spread
	// is the run's noise and whose trend its drift; 0 for a lane's one
	// start-of-run control and for every other record.
	ControlSeq int `json:"control_seq,omitempty"`
	// LoadSlice is set on a record of an interleaved run: one slice of
	// load given to the cell's target in round Repetition while the
	// other targets of its group ran idle beside it.
	LoadSlice *LoadSlice `json:"load_slice,omitempty"`
	// Stopping is set when the steady-state rule ended the phases.
	*Stopping
}

// LoadSlice is where a record of an interleaved run stood: the group of
// targets that ran at once (from 1 in the run), the round (from 1, the
// record's repetition), its place in the round's order (from 1) and how
// many targets the group had. The report pairs the records of one group
// and round.
//
// IdleConns is how many connections the group's other targets may hold
// during the slice (their pools, idle while this target has the load):
// the database sees them beside this target's.
type LoadSlice struct {
	Group     int `json:"group"`
	Round     int `json:"round"`
	Position  int `json:"position"`
	Targets   int `json:"targets"`
	IdleConns int `json:"idle_conns"`
}

// SafeLimit is what a cell's safe-limit search found.
type SafeLimit struct {
	// Model says what a level counts: vus or rate (iterations/s).
	Model string `json:"model"`
	// Level is the highest level at which the SLO held, every lower
	// measured level holding it too; 0 when the first level failed.
	Level int `json:"level"`
	// FailsAt is the lowest measured level that failed the SLO, so the
	// limit lies in [Level, FailsAt); 0 when none failed (the search
	// stopped at --max-level or --max-steps first).
	FailsAt int `json:"fails_at,omitempty"`
	// Bottleneck names what ran out first at FailsAt (strategy/limit's
	// labels: target-cpu, pooler-cpu, pool, db-cpu, errors, load-generator, host-cpu, none).
	Bottleneck string `json:"bottleneck,omitempty"`
	// SLO is the objective the levels were judged by; Steps the number of
	// levels measured.
	SLO   string `json:"slo"`
	Steps int    `json:"steps"`
}

// CellInfo identifies the cell a record belongs to.
type CellInfo struct {
	ID         string  `json:"id"`
	CPUs       float64 `json:"cpus"`
	WebThreads int     `json:"web_threads"`
	DBPool     int     `json:"db_pool"`
	// WebMult and DBMult are the first multiplier pair that gives the cell.
	WebMult float64 `json:"web_mult"`
	DBMult  float64 `json:"db_mult"`
	// Mults lists every [web_mult, db_mult] pair that gives this cell.
	Mults [][2]float64 `json:"mults"`
	// Baseline marks the cell of the user's current settings (run
	// --baseline): absolute values, no multipliers, never a pick.
	Baseline bool `json:"baseline,omitempty"`
	// The extra axes, when the spec has them: stack variant, load level
	// (vus=N, rate=R), memory limit, and env axis values by NAME or
	// SERVICE:NAME.
	Variant   string            `json:"variant,omitempty"`
	LoadLevel string            `json:"load_level,omitempty"`
	Memory    string            `json:"memory,omitempty"`
	Axes      map[string]string `json:"axes,omitempty"`
}

// Applied is the configuration read back from the running target
// container, not merely what was asked for.
type Applied struct {
	CPUs float64 `json:"cpus"`
	// MemoryBytes is the memory limit (0: none).
	MemoryBytes int64 `json:"memory_bytes,omitempty"`
	// Env holds only the swept variables, name to value.
	Env map[string]string `json:"env"`
	// ServiceEnv is what the cell set on other services, by service: env
	// axes of theirs and the pool with pool_env SERVICE:NAME. Those
	// services were recreated with it; it is what was asked, not read
	// back.
	ServiceEnv map[string]map[string]string `json:"service_env,omitempty"`
	// ContainerID is the target container the cell measured, and
	// ContainerStartedAt when its process started: a restart keeps the id.
	ContainerID        string    `json:"container_id,omitempty"`
	ContainerStartedAt time.Time `json:"container_started_at,omitzero"`
	// Nodes names, on a swarm, the node each service's task ran on when
	// the cell was read back, by service (the load's is
	// Measurement.LoadNode); empty on one host.
	Nodes map[string]NodeInfo `json:"nodes,omitempty"`
	// ReadFrom says, on a swarm, where the values above were read:
	// "container" (through the engine of the task's node), or "task: "
	// and why that engine could not be reached; empty on one host, where
	// they always come from the container.
	ReadFrom string `json:"read_from,omitempty"`
	// ResizedInPlace says, on Kubernetes with in-place resize, that the
	// cell's CPU limit was set on the running pod of the cell before
	// (pods/resize): the same container and process, warm from it.
	ResizedInPlace bool `json:"resized_in_place,omitempty"`
	// TemplateCPUs is, with ResizedInPlace, the CPU limit the Deployment's
	// pod template still holds: the one it last rolled out. Patching the
	// template would roll the pod out, which the in-place resize exists to
	// avoid; a pod replaced during the cell comes back at this limit, and
	// the stack watch fails the cell for the replacement.
	TemplateCPUs float64 `json:"template_cpus,omitempty"`
}

// LoadInfo says which driver and load model produced a measurement.
type LoadInfo struct {
	Driver string `json:"driver"` // "builtin" or "k6"
	Model  string `json:"model"`  // "closed" or "open"
	// VUs is the number of virtual users of a closed model (resolved for
	// vus-per-web), or the pre-allocated VUs of an open one.
	VUs       int     `json:"vus,omitempty"`
	VUsPerWeb float64 `json:"vus_per_web,omitempty"`
	// Rate is the open model's iterations per second.
	Rate   float64 `json:"rate,omitempty"`
	MaxVUs int     `json:"max_vus,omitempty"`
	// Script is the user's k6 script the k6 driver ran, Scenario the
	// scenario file the built-in driver ran; nil: the bundled load
	// (crud.js, the demo's CRUD).
	Script   *FileRef `json:"script,omitempty"`
	Scenario *FileRef `json:"scenario,omitempty"`
}

// FileRef names a user file a load ran from: its base name and the
// sha256 of its content (sweep.json's spec keeps its path, the run
// directory a copy).
type FileRef struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// Latency is a latency distribution in milliseconds.
type Latency struct {
	Avg float64 `json:"avg"`
	Min float64 `json:"min"`
	P50 float64 `json:"p50"`
	P75 float64 `json:"p75"`
	P90 float64 `json:"p90"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// OpStats is the measurement of one operation (create, read, update,
// delete).
type OpStats struct {
	Requests int64 `json:"requests"`
	// Skipped counts the operation's steps never sent because an earlier
	// step's capture they need failed (the built-in driver's scenarios):
	// errors, in ErrorRate, but not requests.
	Skipped   int64   `json:"skipped,omitempty"`
	RPS       float64 `json:"rps"`
	ErrorRate float64 `json:"error_rate"`
	LatencyMS Latency `json:"latency_ms"`
}

// ErrorSample is one failed response: its status (0 when none came
// back), the error's class ("http_404", "timeout", ...) and up to
// MaxSampleBody bytes of its body.
type ErrorSample struct {
	Status int    `json:"status,omitempty"`
	Class  string `json:"class"`
	Body   string `json:"body,omitempty"`
}

// MaxSampleBody bounds ErrorSample.Body.
const MaxSampleBody = 200

// Operations are the keys of Measurement.Ops.
var Operations = []string{"create", "read", "update", "delete"}

// Measurement is what a load driver reports for one measured phase. Both
// drivers (built-in and k6) fill the same fields.
type Measurement struct {
	Requests  int64   `json:"requests"`
	RPS       float64 `json:"rps"`
	ErrorRate float64 `json:"error_rate"` // 0..1, over Requests and Skipped
	// Skipped counts steps never sent because a capture they needed failed
	// (see OpStats.Skipped); they are errors, not requests.
	Skipped   int64              `json:"skipped,omitempty"`
	LatencyMS Latency            `json:"latency_ms"`
	Ops       map[string]OpStats `json:"ops,omitempty"`
	// Errors counts failed requests by class: "http_<status>", "timeout",
	// "connection", "other".
	Errors map[string]int64 `json:"errors,omitempty"`
	// ErrorSamples holds, per operation, the first failed response the
	// driver saw (its status and the start of its body), so a cell whose
	// requests failed can say what the service answered; nil when the
	// driver keeps none (k6).
	ErrorSamples      map[string]ErrorSample `json:"error_samples,omitempty"`
	ChecksPassRate    *float64               `json:"checks_pass_rate,omitempty"`
	Iterations        int64                  `json:"iterations,omitempty"`
	IterationsPerS    float64                `json:"iterations_per_s,omitempty"`
	DroppedIterations int64                  `json:"dropped_iterations,omitempty"`
	ThresholdsFailed  []string               `json:"thresholds_failed,omitempty"`
	// DurationS is the measured phase's actual length in seconds.
	DurationS float64 `json:"duration_s,omitempty"`
	// VUsMax is the most virtual users the driver had during the phase
	// (k6's vus_max), the load that actually ran; 0 when the driver does
	// not report it.
	VUsMax int `json:"vus_max,omitempty"`
	// IterationMS is how long iterations took; nil when the driver does
	// not report it.
	IterationMS *Latency `json:"iteration_ms,omitempty"`
	// Breakdown splits LatencyMS into connect, TLS, sending, waiting and
	// receiving; nil when the driver did not measure it.
	Breakdown *Breakdown `json:"breakdown_ms,omitempty"`
	// ConnectErrors counts attempts that never became a request: the
	// connection could not be opened (refused, DNS failure, connect
	// timeout, TLS handshake) or was closed or reset before any byte of a
	// response came back on it. They are in none of the figures above
	// (requests, RPS, latency, error rate); ConnectErrorKinds splits them
	// by cause: refused, dns, timeout, reset, tls, other.
	ConnectErrors     int64            `json:"connect_errors,omitempty"`
	ConnectErrorKinds map[string]int64 `json:"connect_error_kinds,omitempty"`
	// BytesSent is what the driver wrote to the network in the measured
	// phase (request heads and bodies; TLS records when the URL is https),
	// the figure the proof of delivery compares with what the target
	// received; 0 when the driver cannot tell.
	BytesSent int64 `json:"bytes_sent,omitempty"`
	// LoadNode is the swarm node the load ran on; nil when the driver ran
	// in sweep's own process.
	LoadNode *NodeInfo `json:"load_node,omitempty"`
	// K6Version is the `k6 version` line of the k6 that drove the phase
	// away from sweep's process (a Kubernetes Job, a swarm node's
	// service); a k6 in sweep's process is sweep.json's host.k6_version.
	K6Version string `json:"k6_version,omitempty"`
	// DriverCPU is the load driver's own CPU time over the phase when it
	// ran outside sweep's process (a load service on a swarm node), and
	// DriverWall that phase's wall time as the driver saw it; zero when
	// sweep's process drove the load. Not saved as such: the runner makes
	// the record's driver figures from them instead of its own process's.
	DriverCPU  time.Duration `json:"-"`
	DriverWall time.Duration `json:"-"`
}

// NodeInfo names a Docker Swarm node: its id, which placement constraints
// use (node.id==<ID>), and the hostname it reports, for people (nodes of
// one machine all report the same one).
type NodeInfo struct {
	ID       string `json:"id"`
	Hostname string `json:"hostname,omitempty"`
}

// Interval is one second of a measured phase as a load driver saw it.
type Interval struct {
	// T is seconds since the measured phase began, at the interval's end.
	T        float64 `json:"t"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	// P99MS is the interval's p99 latency; 0 when the driver cannot tell.
	P99MS float64 `json:"p99_ms"`
	// ConnectErrors counts the second's attempts that never became a
	// request (see Measurement.ConnectErrors); they are not in Requests.
	ConnectErrors int64 `json:"connect_errors,omitempty"`
}

// RPS is the interval's requests per second over its own length in
// seconds (T less the previous interval's T); an interval of no length
// gives its count, never +Inf.
func (iv Interval) RPS(length float64) float64 {
	if length > 0 {
		return float64(iv.Requests) / length
	}
	return float64(iv.Requests)
}

// DriverStats is the load generator's own use during the measured phase.
type DriverStats struct {
	// CPUCoresMean is the driver's CPU time over the phase's wall time
	// (sweep's own process for the built-in driver, the k6 process for k6).
	CPUCoresMean float64 `json:"cpu_cores_mean"`
	// CPUPerRequestUS is the driver's CPU time per answered request in
	// microseconds; 0 when no request was answered.
	CPUPerRequestUS float64 `json:"cpu_per_request_us,omitempty"`
}

// HostStats is what the host (the machine sweep and the load driver run
// on) went through during a measured phase.
type HostStats struct {
	// CPUPressure is the kernel's CPU pressure (PSI) over the phase; nil
	// when the kernel does not expose it, with CPUPressureReason saying
	// why.
	CPUPressure       *CPUPressure `json:"cpu_pressure"`
	CPUPressureReason string       `json:"cpu_pressure_reason,omitempty"`
}

// CPUPressure is the "some" line of /proc/pressure/cpu: the share of
// time in which at least one runnable task waited for a CPU.
type CPUPressure struct {
	// SomeShare is the growth of the line's total (µs stalled) over the
	// phase divided by the phase's wall time, 0..1.
	SomeShare float64 `json:"some_share"`
	// SomeAvg10 is the kernel's own 10-second average at the phase's end,
	// in percent.
	SomeAvg10 float64 `json:"some_avg10"`
}
