package builtin

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

func TestOpenModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		delay    time.Duration // per request at the server
		load     results.LoadInfo
		duration time.Duration
		// The iterations run, as a ratio of rate × duration.
		minRatio, maxRatio float64
		// The dropped iterations, as a ratio of rate × duration.
		minDropped float64
	}{
		// One user would almost do; as many users as iterations in the
		// second means a stall of the shared machine (seen: 19 drops at 20
		// users under a load average of 19) can delay iterations but never
		// leave one without a free user.
		{"keeps the rate", 0, results.LoadInfo{Model: "open", Rate: 200, VUs: 2, MaxVUs: 200}, time.Second, 0.9, 1.05, 0},
		// Three users would do; the same headroom rule.
		{"grows users up to max", 20 * time.Millisecond, results.LoadInfo{Model: "open", Rate: 150, VUs: 1, MaxVUs: 150}, time.Second, 0.85, 1.05, 0},
		{"drops beyond max users", 50 * time.Millisecond, results.LoadInfo{Model: "open", Rate: 100, VUs: 1, MaxVUs: 2}, time.Second, 0.15, 0.45, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { time.Sleep(tt.delay) }))
			defer srv.Close()
			m := runLoad(t, Options{Scenario: ScenarioGet}, sweep.LoadRequest{BaseURL: srv.URL, Load: tt.load, Duration: tt.duration})
			scheduled := tt.load.Rate * tt.duration.Seconds()
			ratio := float64(m.Iterations) / scheduled
			if ratio < tt.minRatio || ratio > tt.maxRatio {
				t.Errorf("iterations = %d of %.0f scheduled (ratio %.2f), want ratio in [%.2f, %.2f]",
					m.Iterations, scheduled, ratio, tt.minRatio, tt.maxRatio)
			}
			dropped := float64(m.DroppedIterations) / scheduled
			if tt.minDropped == 0 && m.DroppedIterations != 0 {
				t.Errorf("dropped = %d of %.0f scheduled, want none", m.DroppedIterations, scheduled)
			} else if dropped < tt.minDropped {
				t.Errorf("dropped = %d of %.0f scheduled, want ratio >= %.2f", m.DroppedIterations, scheduled, tt.minDropped)
			}
			// Every scheduled iteration ran or was dropped (the last ones
			// may have been cut short by the end).
			if all := float64(m.Iterations+m.DroppedIterations) / scheduled; all < 0.9 || all > 1.05 {
				t.Errorf("iterations %d + dropped %d = %.2f of the %.0f scheduled, want about all",
					m.Iterations, m.DroppedIterations, all, scheduled)
			}
			if m.ErrorRate != 0 {
				t.Errorf("errors %v", m.Errors)
			}
		})
	}
}

// TestLatencyFromSchedule checks the coordinated-omission rule: a request
// that starts after its scheduled time is measured from the schedule.
func TestLatencyFromSchedule(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close) // after the parallel subtests
	// A think before the first request is the scenario's, not lateness:
	// the request carries only what the iteration began late (with the
	// think it would take 130 ms or more).
	thinkFirst := "scenarios: [{flow: [{think: 0.05}, {get: {url: /}}, {get: {url: /}}]}]"
	tests := []struct {
		name   string
		script string // "" for ScenarioGet
		late   time.Duration
		minLat time.Duration
		maxLat time.Duration
	}{
		{"on time", "", 0, 0, 40 * time.Millisecond},
		{"late by 80ms", "", 80 * time.Millisecond, 80 * time.Millisecond, 200 * time.Millisecond},
		{"late by 80ms, a think first", thinkFirst, 80 * time.Millisecond, 80 * time.Millisecond, 128 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tg, err := parseTarget(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			req := sweep.LoadRequest{BaseURL: srv.URL, Load: closed(1), Duration: time.Second}
			opts := Options{Scenario: ScenarioGet, Timeout: time.Second}
			if tt.script != "" {
				opts.Script = mustScript(t, tt.script)
			}
			p := newPhase(t.Context(), New(opts).opts, req, tg)
			p.ctx = t.Context()
			u := p.newUser(0)
			sched := time.Now()
			if tt.late > 0 {
				sched = sched.Add(-tt.late)
			}
			if u.iterate(sched); u.iterations != 1 || len(p.rec.measurement(time.Second, 1, 0).Errors) != 0 {
				t.Fatalf("iteration failed: %v", p.rec.measurement(time.Second, 1, 0).Errors)
			}
			p.stop.stop()
			l := p.rec.measurement(time.Second, 1, 0).LatencyMS
			if l.Max < ms(tt.minLat) || l.Max > ms(tt.maxLat) {
				t.Errorf("latency = %.3f ms, want between %.0f and %.0f ms", l.Max, ms(tt.minLat), ms(tt.maxLat))
			}
			if tt.script != "" && l.Min > ms(40*time.Millisecond) {
				t.Errorf("latency min = %.3f ms: the second request carries the lateness too", l.Min)
			}
		})
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
