package results

import "time"

// StackEvent is a change of one container of the stack under test, seen
// while a cell's load ran (warm-up or measured phase). A record with
// events is failed: its figures describe more than one stack.
type StackEvent struct {
	// Service is the compose service of the container; Target is true for
	// the swept service.
	Service string `json:"service"`
	Target  bool   `json:"target,omitempty"`
	// Action is what happened, in the Docker Engine's words: die, oom,
	// start, restart, pause, unpause, destroy; or what a look at the
	// container found: replaced, gone, appeared, not-running, paused.
	Action string `json:"action"`
	// Detail adds what the engine said (e.g. "exit code 137").
	Detail string `json:"detail,omitempty"`
	// At is when it happened, on the engine's clock for engine events.
	At time.Time `json:"at"`
	// Phase is the load phase it fell in (warmup or measure) and T the
	// seconds into that phase.
	Phase string  `json:"phase,omitempty"`
	T     float64 `json:"t_s"`
}
