package k6

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TrendStats is the --summary-trend-stats list sweep always asks for; k6's
// default lacks p(50), p(75) and p(99).
const TrendStats = "avg,min,med,max,p(50),p(75),p(90),p(95),p(99)"

// noUsageReport is set in k6's environment on every run (and for `k6
// version`): the variable is read by every k6 release, old and new, so no
// flag that some version might lack is needed.
const noUsageReport = "K6_NO_USAGE_REPORT=true"

// minDuration is the shortest scenario k6 runs ("the duration must be at
// least 1s").
const minDuration = time.Second

// Invocation is everything one k6 run's argv depends on.
type Invocation struct {
	// Script is the path of the k6 script.
	Script string
	// SummaryPath is where --summary-export writes; empty means no export.
	SummaryPath string
	// Address is host:port of k6's REST API; empty disables it.
	Address string
	// Env holds KEY=VALUE pairs passed with -e (the script's __ENV).
	Env []string
	// VUs and Duration, when set, go on the command line as --vus and
	// --duration, where they win over the script's own options.
	VUs      int
	Duration time.Duration
	// Config is a k6 config file (--config) holding the scenario; empty:
	// none.
	Config string
}

// Args builds the argv (without the binary) of `k6 run` for inv. It is
// pure so the exact command line can be tested and logged.
func Args(inv Invocation) []string {
	args := []string{"run", "--quiet", "--no-color", "--summary-trend-stats", TrendStats}
	if inv.SummaryPath != "" {
		args = append(args, "--summary-export", inv.SummaryPath)
	}
	if inv.Address != "" {
		args = append(args, "--address", inv.Address)
	}
	if inv.Config != "" {
		args = append(args, "--config", inv.Config)
	}
	if inv.VUs > 0 {
		args = append(args, "--vus", strconv.Itoa(inv.VUs), "--duration", formatDuration(inv.Duration))
	}
	for _, kv := range inv.Env {
		args = append(args, "-e", kv)
	}
	return append(args, inv.Script)
}

// The web dashboard's settings (k6's K6_WEB_DASHBOARD_* variables).
// Its HTTP server stays off (port -1): nobody watches one cell's page,
// a fixed port would clash with anything else on 5665, and k6 would wait
// for an open browser before it exits; the export is written all the
// same. Its period is samples.csv's second, so a short cell still has
// more than one point.
const (
	webDashboardOn     = "K6_WEB_DASHBOARD=true"
	webDashboardPort   = "K6_WEB_DASHBOARD_PORT=-1"
	webDashboardPeriod = "K6_WEB_DASHBOARD_PERIOD=1s"
	webDashboardExport = "K6_WEB_DASHBOARD_EXPORT="
)

// ProcessEnv returns the variables set in k6's own environment (beside
// sweep's) for one phase of req: never a usage report, and with
// dashboard, for a measured phase only, the web dashboard exporting its
// HTML report to results.K6DashboardFile in req.Dir. A warm-up exports
// nothing: it is discarded, like its figures.
func ProcessEnv(req sweep.LoadRequest, dashboard bool) []string {
	env := []string{noUsageReport}
	if dashboard && !req.Warmup {
		env = append(env, webDashboardOn, webDashboardPort, webDashboardPeriod,
			webDashboardExport+filepath.Join(req.Dir, results.K6DashboardFile))
	}
	return env
}

// ScriptEnv returns the __ENV settings for req in a stable order: extra
// first (sorted by key), then the settings sweep owns (BASE_URL, MODEL,
// DURATION and the model's level), which win over extra because k6 keeps
// the last -e of a key.
func ScriptEnv(req sweep.LoadRequest, extra map[string]string) ([]string, error) {
	if req.Duration < minDuration {
		// k6 refuses such a scenario with exit 104 after starting up.
		return nil, fmt.Errorf("load duration %s: k6 runs scenarios of at least %s", req.Duration, minDuration)
	}
	var env []string
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		env = append(env, k+"="+extra[k])
	}
	env = append(env, "BASE_URL="+req.BaseURL, "DURATION="+formatDuration(req.Duration))
	load := req.Load
	switch load.Model {
	case "closed":
		if load.VUs <= 0 {
			return nil, fmt.Errorf("closed model: vus %d: want > 0", load.VUs)
		}
		env = append(env, "MODEL=closed", "VUS="+strconv.Itoa(load.VUs))
	case "open":
		if load.Rate <= 0 {
			return nil, fmt.Errorf("open model: rate %g: want > 0", load.Rate)
		}
		env = append(env, "MODEL=open", "RATE="+strconv.FormatFloat(load.Rate, 'f', -1, 64))
		if load.VUs > 0 {
			env = append(env, "PRE_VUS="+strconv.Itoa(load.VUs))
		}
		if load.MaxVUs > 0 {
			env = append(env, "MAX_VUS="+strconv.Itoa(load.MaxVUs))
		}
	default:
		return nil, fmt.Errorf("load model %q: want closed or open", load.Model)
	}
	return env, nil
}

// formatDuration writes d in seconds ("30s", "0.5s"), a form k6 parses.
func formatDuration(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
