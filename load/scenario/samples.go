package scenario

import (
	"sync"
	"sync/atomic"
)

// sampleBytes bounds the response body a sample keeps.
const sampleBytes = 200

// Sample is an operation's first failure, kept to show what the target
// answered when a cell fails.
type Sample struct {
	Op     string
	Line   int    // the step's line in the file
	Status int    // 0 when no response came or the step was skipped
	Class  string // as in Outcome
	Body   string // the response body's first 200 bytes
	Err    string // the Doer's error, when no response came
}

// Samples holds one Sample per operation, shared by every virtual user of
// a phase. Until an operation has its sample, its requests ask the Doer
// to keep their bodies; after, nothing more is done per request than a
// load of an atomic flag.
type Samples struct {
	s     *Script
	taken []atomic.Bool
	mu    sync.Mutex
	got   []Sample
}

// NewSamples returns an empty set of samples for s's operations.
func (s *Script) NewSamples() *Samples {
	return &Samples{s: s, taken: make([]atomic.Bool, len(s.ops)), got: make([]Sample, len(s.ops))}
}

// wanted reports that op has no sample yet; a nil Samples wants none.
func (ss *Samples) wanted(op int) bool {
	return ss != nil && !ss.taken[op].Load()
}

// keep stores o as op's sample unless it has one.
func (ss *Samples) keep(o Outcome, body []byte, err error) {
	if !ss.wanted(o.Op) {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.taken[o.Op].Load() {
		return
	}
	smp := Sample{Op: ss.s.ops[o.Op], Line: o.Line, Status: o.Status, Class: o.Class}
	if o.Sent {
		smp.Body = string(body[:min(len(body), sampleBytes)])
	}
	if err != nil {
		smp.Err = err.Error()
	}
	ss.got[o.Op] = smp
	ss.taken[o.Op].Store(true)
}

// All returns the samples taken, in operation order.
func (ss *Samples) All() []Sample {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var out []Sample
	for i := range ss.got {
		if ss.taken[i].Load() {
			out = append(out, ss.got[i])
		}
	}
	return out
}
