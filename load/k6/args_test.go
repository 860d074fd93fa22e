package k6

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

func TestArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		inv  Invocation
		want []string
	}{
		{
			name: "measured",
			inv: Invocation{
				Script: "/run/c/crud.js", SummaryPath: "/run/c/driver-summary.json",
				Address: "127.0.0.1:40001", Env: []string{"BASE_URL=http://127.0.0.1:8080", "VUS=4"},
			},
			want: []string{
				"run", "--quiet", "--no-color",
				"--summary-trend-stats", "avg,min,med,max,p(50),p(75),p(90),p(95),p(99)",
				"--summary-export", "/run/c/driver-summary.json",
				"--address", "127.0.0.1:40001",
				"-e", "BASE_URL=http://127.0.0.1:8080", "-e", "VUS=4",
				"/run/c/crud.js",
			},
		},
		{
			name: "sweep's load on the command line",
			inv:  Invocation{Script: "/x/my.js", VUs: 20, Duration: 90 * time.Second},
			want: []string{
				"run", "--quiet", "--no-color",
				"--summary-trend-stats", "avg,min,med,max,p(50),p(75),p(90),p(95),p(99)",
				"--vus", "20", "--duration", "90s",
				"/x/my.js",
			},
		},
		{
			name: "sweep's scenario in a config file",
			inv:  Invocation{Script: "/x/my.js", Config: "/run/c/k6-config.json", Env: []string{"RATE=20"}},
			want: []string{
				"run", "--quiet", "--no-color",
				"--summary-trend-stats", "avg,min,med,max,p(50),p(75),p(90),p(95),p(99)",
				"--config", "/run/c/k6-config.json",
				"-e", "RATE=20",
				"/x/my.js",
			},
		},
		{
			name: "no export, no api",
			inv:  Invocation{Script: "my script.js"},
			want: []string{
				"run", "--quiet", "--no-color",
				"--summary-trend-stats", "avg,min,med,max,p(50),p(75),p(90),p(95),p(99)",
				"my script.js",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Args(tc.inv); !slices.Equal(got, tc.want) {
				t.Errorf("Args =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestScriptEnv(t *testing.T) {
	t.Parallel()
	base := sweep.LoadRequest{BaseURL: "http://127.0.0.1:8080", Duration: 90 * time.Second}
	with := func(load results.LoadInfo, d time.Duration) sweep.LoadRequest {
		r := base
		r.Load = load
		if d != 0 {
			r.Duration = d
		}
		return r
	}
	tests := []struct {
		name    string
		req     sweep.LoadRequest
		extra   map[string]string
		want    []string
		wantErr string
	}{
		{
			name: "closed",
			req:  with(results.LoadInfo{Model: "closed", VUs: 12}, 0),
			want: []string{"BASE_URL=http://127.0.0.1:8080", "DURATION=90s", "MODEL=closed", "VUS=12"},
		},
		{
			name:  "open with bounds and extra env first",
			req:   with(results.LoadInfo{Model: "open", Rate: 2.5, VUs: 5, MaxVUs: 50}, 1500*time.Millisecond),
			extra: map[string]string{"TYPES": "Patient", "BASE_URL": "ignored: ours comes later"},
			want: []string{
				"BASE_URL=ignored: ours comes later", "TYPES=Patient",
				"BASE_URL=http://127.0.0.1:8080", "DURATION=1.5s",
				"MODEL=open", "RATE=2.5", "PRE_VUS=5", "MAX_VUS=50",
			},
		},
		{
			name: "open without bounds",
			req:  with(results.LoadInfo{Model: "open", Rate: 300}, 0),
			want: []string{"BASE_URL=http://127.0.0.1:8080", "DURATION=90s", "MODEL=open", "RATE=300"},
		},
		{name: "closed zero vus", req: with(results.LoadInfo{Model: "closed"}, 0), wantErr: "vus 0"},
		{name: "open zero rate", req: with(results.LoadInfo{Model: "open", VUs: 3}, 0), wantErr: "rate 0"},
		{name: "no model", req: with(results.LoadInfo{VUs: 3}, 0), wantErr: `load model ""`},
		{name: "no duration", req: with(results.LoadInfo{Model: "closed", VUs: 1}, -time.Second), wantErr: "duration"},
		{
			name:    "sub-second duration k6 refuses",
			req:     with(results.LoadInfo{Model: "closed", VUs: 1}, 500*time.Millisecond),
			wantErr: "at least 1s",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ScriptEnv(tc.req, tc.extra)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want it to mention %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("ScriptEnv =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestProcessEnv pins k6's own environment for each phase: the usage
// report always off; the dashboard, when asked, on for the measured
// phase only, its server off, exporting to the cell's k6-dashboard.html.
func TestProcessEnv(t *testing.T) {
	t.Parallel()
	measured := sweep.LoadRequest{Dir: "/run/cells/cpu_1__web_2__db_4/r2"}
	warmup := measured
	warmup.Warmup = true
	for _, tc := range []struct {
		name      string
		req       sweep.LoadRequest
		dashboard bool
		want      []string
	}{
		{"measured with dashboard", measured, true, []string{"K6_NO_USAGE_REPORT=true", "K6_WEB_DASHBOARD=true",
			"K6_WEB_DASHBOARD_PORT=-1", "K6_WEB_DASHBOARD_PERIOD=1s",
			"K6_WEB_DASHBOARD_EXPORT=/run/cells/cpu_1__web_2__db_4/r2/k6-dashboard.html"}},
		{"warm-up with dashboard", warmup, true, []string{"K6_NO_USAGE_REPORT=true"}},
		{"measured without", measured, false, []string{"K6_NO_USAGE_REPORT=true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := ProcessEnv(tc.req, tc.dashboard); !slices.Equal(got, tc.want) {
				t.Errorf("ProcessEnv =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
