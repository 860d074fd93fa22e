package builtin

import (
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/results"
)

// maxShards bounds the recorder's shards.
const maxShards = 32

// sigFigs is the HDR histograms' precision; values are microseconds.
const sigFigs = 3

func newHist(highestUS int64) *hdrhistogram.Histogram {
	return hdrhistogram.New(1, highestUS, sigFigs)
}

// recorder collects every request's outcome. Virtual users are spread over
// a few shards, each with its own lock and histograms, so recording never
// takes a lock that all users share; the shards are merged at the end (and
// once a second for the interval series).
type recorder struct {
	shards    []*shard
	ops       []string // the operations' names (the script's), Measurement.Ops's keys
	highestUS int64
}

type shard struct {
	mu     sync.Mutex
	ops    []opAcc // per operation
	phases phaseAcc
	errors map[string]int64
	// samples holds each operation's first failed response.
	samples []*results.ErrorSample
	// connect counts attempts that failed to connect, by kind; they are
	// not requests.
	connect map[string]int64
	win     *window // the current second; nil when nobody asks for intervals
}

type opAcc struct {
	hist             *hdrhistogram.Histogram
	requests, failed int64
	// skipped counts steps never sent (an earlier capture they need
	// failed): errors of the operation, not requests, so they are in its
	// error rate but in no rate of requests.
	skipped int64
}

type window struct {
	requests, errors, connectErrors int64
	hist                            *hdrhistogram.Histogram
}

// newRecorder sizes the shards for users virtual users and the operations
// ops; highest bounds the latencies tracked (longer ones count as
// highest).
func newRecorder(users int, ops []string, highest time.Duration, intervals bool) *recorder {
	// Twice the threads keeps two users from meeting on a lock most of the
	// time; the cap bounds memory (a histogram is about 140 KB).
	n := min(max(users, 1), 2*runtime.GOMAXPROCS(0), maxShards)
	r := &recorder{ops: ops, highestUS: highest.Microseconds()}
	for range n {
		s := &shard{ops: make([]opAcc, len(ops)), samples: make([]*results.ErrorSample, len(ops)),
			errors: make(map[string]int64), connect: make(map[string]int64), phases: newPhaseAcc(r.highestUS)}
		for i := range s.ops {
			s.ops[i].hist = newHist(r.highestUS)
		}
		if intervals {
			s.win = &window{hist: newHist(r.highestUS)}
		}
		r.shards = append(r.shards, s)
	}
	return r
}

// shardFor returns the shard of the i-th virtual user.
func (r *recorder) shardFor(i int) *shard { return r.shards[i%len(r.shards)] }

// record counts one request of operation o (an index into the recorder's
// ops). tm is the timing of its response, nil when
// none came back (a transport error): the request then counts, but not in
// the latency histograms. class is "" for a success.
func (s *shard) record(o int, tm *timing, start time.Time, class string, highestUS int64) {
	lat := time.Duration(-1)
	var ph [numPhases]int64
	if tm != nil {
		lat = tm.end.Sub(start)
		ph = tm.phasesUS(highestUS)
	}
	us := min(max(lat.Microseconds(), 1), highestUS)
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &s.ops[o]
	if class == scenario.ClassSkipped {
		a.skipped++
		a.failed++
		s.errors[class]++
		return
	}
	a.requests++
	if lat >= 0 {
		_ = a.hist.RecordValue(us) // us is within range
		s.phases.add(&ph, tm.dialled)
	}
	if class != "" {
		a.failed++
		s.errors[class]++
	}
	if w := s.win; w != nil {
		w.requests++
		if lat >= 0 {
			_ = w.hist.RecordValue(us)
		}
		if class != "" {
			w.errors++
		}
	}
}

// sample keeps the first failed response of operation o in this shard:
// its status (0 when none came), class and the start of its body.
func (s *shard) sample(o int, status int, class string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.samples[o] != nil {
		return
	}
	if status == 0 {
		body = nil
	}
	s.samples[o] = &results.ErrorSample{Status: status, Class: class, Body: string(body[:min(len(body), results.MaxSampleBody)])}
}

// connectError counts one attempt that failed to connect (a kind of
// connectError); it is not a request.
func (s *shard) connectError(kind string) {
	s.mu.Lock()
	s.connect[kind]++
	if w := s.win; w != nil {
		w.connectErrors++
	}
	s.mu.Unlock()
}

// sampler turns the shards' current windows into one Interval.
type sampler struct {
	r          *recorder
	agg, spare *hdrhistogram.Histogram
}

func newSampler(r *recorder) *sampler {
	return &sampler{r: r, agg: newHist(r.highestUS), spare: newHist(r.highestUS)}
}

// take swaps every shard's window for an empty one and sums them. Each
// shard is locked only for the swap.
func (p *sampler) take(t float64) results.Interval {
	iv := results.Interval{T: t}
	p.agg.Reset()
	for _, s := range p.r.shards {
		s.mu.Lock()
		w := *s.win
		*s.win = window{hist: p.spare}
		s.mu.Unlock()
		iv.Requests += w.requests
		iv.Errors += w.errors
		iv.ConnectErrors += w.connectErrors
		p.agg.Merge(w.hist)
		w.hist.Reset()
		p.spare = w.hist
	}
	if p.agg.TotalCount() > 0 {
		iv.P99MS = usToMS(p.agg.ValueAtQuantile(99))
	}
	return iv
}

// measurement merges the shards once every user has returned.
func (r *recorder) measurement(elapsed time.Duration, iterations, dropped int64) results.Measurement {
	secs := elapsed.Seconds()
	m := results.Measurement{
		Ops:               make(map[string]results.OpStats),
		Errors:            make(map[string]int64),
		Iterations:        iterations,
		IterationsPerS:    rate(iterations, secs),
		DroppedIterations: dropped,
		DurationS:         secs,
	}
	all := newHist(r.highestUS)
	var failed int64
	for o, name := range r.ops {
		acc := r.mergeOp(o)
		h := acc.hist
		all.Merge(h)
		m.Requests += acc.requests
		m.Skipped += acc.skipped
		failed += acc.failed
		if acc.requests+acc.skipped > 0 {
			m.Ops[name] = results.OpStats{
				Requests: acc.requests, Skipped: acc.skipped, RPS: rate(acc.requests, secs),
				ErrorRate: ratio(acc.failed, acc.requests+acc.skipped), LatencyMS: latency(h),
			}
		}
	}
	r.addErrors(&m)
	r.addSamples(&m)
	m.RPS = rate(m.Requests, secs)
	m.ErrorRate = ratio(failed, m.Requests+m.Skipped)
	m.LatencyMS = latency(all)
	m.Breakdown = r.breakdown()
	// A check fails on a failed request and on an attempt that did not
	// connect, as k6's checks do.
	pass := 1 - ratio(failed+m.ConnectErrors, m.Requests+m.Skipped+m.ConnectErrors)
	m.ChecksPassRate = &pass
	return m
}

// addErrors sums the shards' error classes and connection errors into m.
func (r *recorder) addErrors(m *results.Measurement) {
	for _, s := range r.shards {
		for class, n := range s.errors {
			m.Errors[class] += n
		}
		for kind, n := range s.connect {
			if m.ConnectErrorKinds == nil {
				m.ConnectErrorKinds = make(map[string]int64)
			}
			m.ConnectErrorKinds[kind] += n
			m.ConnectErrors += n
		}
	}
}

// addSamples keeps each operation's first failed response, from the
// first shard that has one.
func (r *recorder) addSamples(m *results.Measurement) {
	for o, name := range r.ops {
		for _, s := range r.shards {
			if sm := s.samples[o]; sm != nil {
				if m.ErrorSamples == nil {
					m.ErrorSamples = make(map[string]results.ErrorSample)
				}
				m.ErrorSamples[name] = *sm
				break
			}
		}
	}
}

// mergeOp sums one operation over the shards.
func (r *recorder) mergeOp(o int) opAcc {
	acc := opAcc{hist: newHist(r.highestUS)}
	for _, s := range r.shards {
		acc.hist.Merge(s.ops[o].hist)
		acc.requests += s.ops[o].requests
		acc.failed += s.ops[o].failed
		acc.skipped += s.ops[o].skipped
	}
	return acc
}

func latency(h *hdrhistogram.Histogram) results.Latency {
	if h.TotalCount() == 0 {
		return results.Latency{}
	}
	return results.Latency{
		Avg: math.Round(h.Mean()) / 1000,
		Min: usToMS(h.Min()),
		P50: usToMS(h.ValueAtQuantile(50)),
		P75: usToMS(h.ValueAtQuantile(75)),
		P90: usToMS(h.ValueAtQuantile(90)),
		P95: usToMS(h.ValueAtQuantile(95)),
		P99: usToMS(h.ValueAtQuantile(99)),
		Max: usToMS(h.Max()),
	}
}

func usToMS(us int64) float64 { return float64(us) / 1000 }

func rate(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs
}

func ratio(part, whole int64) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) / float64(whole)
}
