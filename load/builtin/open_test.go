package builtin

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestOpenModel runs the open model against a server that takes delay per
// request and counts the connections it was opened: one a user that sent
// a request, so what the model does, users grown when those there cannot
// keep the rate but never beyond max, reused when idle, iterations
// dropped only when max is reached, is asserted without timing the host.
// The count that does depend on the host, the iterations the end of the
// phase cut short, is allowed for by how long this process waited for a
// CPU during the phase (see watchStalls).
func TestOpenModel(t *testing.T) {
	t.Parallel()
	const duration = time.Second
	tests := []struct {
		name  string
		delay time.Duration // per request at the server
		load  results.LoadInfo
		// The most iterations that can run, as a ratio of rate × duration.
		maxRatio float64
		// The dropped iterations, as a ratio of rate × duration.
		minDropped float64
	}{
		// One user would almost do; as many users as iterations in the
		// second means a stall of the shared machine (seen: 19 drops at 20
		// users under a load average of 19) can delay iterations but never
		// leave one without a free user.
		{"keeps the rate", 0, results.LoadInfo{Model: "open", Rate: 200, VUs: 2, MaxVUs: 200}, 1.05, 0},
		// Three users would do; the same headroom rule.
		{"grows users up to max", 20 * time.Millisecond, results.LoadInfo{Model: "open", Rate: 150, VUs: 1, MaxVUs: 150}, 1.05, 0},
		// Two users serve 40 of the 100 iterations at most.
		{"drops beyond max users", 50 * time.Millisecond, results.LoadInfo{Model: "open", Rate: 100, VUs: 1, MaxVUs: 2}, 0.45, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var conns atomic.Int64
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { time.Sleep(tt.delay) }))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			defer srv.Close()
			stalled := watchStalls()
			m := runLoad(t, Options{Scenario: ScenarioGet}, sweep.LoadRequest{BaseURL: srv.URL, Load: tt.load, Duration: duration})
			lost := stalled()
			l, users := tt.load, conns.Load()
			scheduled := l.Rate * duration.Seconds()
			t.Logf("%d iterations, %d dropped of %.0f scheduled, by %d users; this process waited %s for a CPU",
				m.Iterations, m.DroppedIterations, scheduled, users, lost)
			if ratio := float64(m.Iterations) / scheduled; ratio > tt.maxRatio {
				t.Errorf("iterations = %d of %.0f scheduled (ratio %.2f), want at most %.2f", m.Iterations, scheduled, ratio, tt.maxRatio)
			}
			if dropped := float64(m.DroppedIterations) / scheduled; tt.minDropped == 0 && m.DroppedIterations != 0 {
				t.Errorf("dropped = %d of %.0f scheduled, want none", m.DroppedIterations, scheduled)
			} else if dropped < tt.minDropped {
				t.Errorf("dropped = %d of %.0f scheduled, want ratio >= %.2f", m.DroppedIterations, scheduled, tt.minDropped)
			}
			needed := tt.delay.Seconds() * l.Rate // users busy at once on schedule
			if users > int64(max(l.VUs, l.MaxVUs)) || (needed > float64(l.VUs) && users <= int64(l.VUs)) || m.Iterations <= users {
				t.Errorf("%d users ran %d iterations; want more than the %d it began with (%.0f busy at once), at most %d, each idle one reused",
					users, m.Iterations, l.VUs, needed, l.MaxVUs)
			}
			// Every scheduled iteration ran or was dropped, but those the end
			// cut short: the ones the server was holding, and those due while
			// this process waited for a CPU.
			all := m.Iterations + m.DroppedIterations
			cut := l.Rate*(tt.delay+lost+10*time.Millisecond).Seconds() + 2
			if float64(all) > 1.05*scheduled || float64(all) < scheduled-cut {
				t.Errorf("iterations %d + dropped %d = %d of the %.0f scheduled, want all but the %.0f the end may cut",
					m.Iterations, m.DroppedIterations, all, scheduled, cut)
			}
			if m.ErrorRate != 0 {
				t.Errorf("errors %v", m.Errors)
			}
		})
	}
}

// watchStalls starts a goroutine that sleeps a millisecond at a time
// until the returned func is called, which says how much longer than
// that its sleeps took in all: about how long this process waited for a
// CPU meanwhile, near zero on an idle host and more the busier it is.
func watchStalls() (stop func() time.Duration) {
	quit, total := make(chan struct{}), make(chan time.Duration)
	go func() {
		var lost time.Duration
		for {
			began := time.Now()
			select {
			case <-quit:
				total <- lost
				return
			case <-time.After(time.Millisecond):
			}
			lost += max(time.Since(began)-2*time.Millisecond, 0)
		}
	}()
	return func() time.Duration { close(quit); return <-total }
}

// TestLatencyFromSchedule checks the coordinated-omission rule: a request
// that starts after its scheduled time is measured from the schedule.
func TestLatencyFromSchedule(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close) // after the parallel subtests
	// A think before the first request is the scenario's, not lateness:
	// the request carries only what the iteration began late (with the
	// think it would take 4 s or more, as it would with the lateness
	// counted twice). Lateness and think are long, so that the bounds
	// between the right latency and the wrong one leave a second either
	// way to a loaded host's stalls (CI saw 400 ms ones).
	const late, think = 2 * time.Second, 2 * time.Second
	thinkFirst := fmt.Sprintf("scenarios: [{flow: [{think: %g}, {get: {url: /}}, {get: {url: /}}]}]", think.Seconds())
	tests := []struct {
		name   string
		script string // "" for ScenarioGet
		late   time.Duration
		minLat time.Duration
		maxLat time.Duration
	}{
		{"on time", "", 0, 0, late / 2},
		{"late", "", late, late, late + late/2},
		{"late, a think first", thinkFirst, late, late, late + think/2},
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
			if tt.script != "" && l.Min > ms(late/2) {
				t.Errorf("latency min = %.3f ms: the second request carries the lateness too", l.Min)
			}
		})
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
