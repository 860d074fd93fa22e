package results

// Stopping is how the steady-state rule (sweep/steady) ended a cell's
// warm-up and measured phase. It is embedded in Record as a pointer, so
// its keys sit at the top of result.json and appear only when the rule
// was on (a precision above 0): a record of fixed durations has none.
type Stopping struct {
	// Precision is the relative 95 % half-width of the mean RPS the rule
	// was asked to reach (0.02: ±2 %); MinDurationS and MaxDurationS bound
	// the measured phase, WarmupMaxS the warm-up.
	Precision    float64 `json:"precision"`
	MinDurationS float64 `json:"min_duration_s"`
	MaxDurationS float64 `json:"max_duration_s"`
	// StoppedEarly says the phase ended because it was steady, at
	// SteadyAfterS seconds (0 when it ran to MaxDurationS).
	StoppedEarly bool    `json:"stopped_early"`
	SteadyAfterS float64 `json:"steady_after_s"`
	// PrecisionReached is the half-width over the mean at the phase's end;
	// nil when the phase was too short for the batches an interval needs.
	PrecisionReached *float64 `json:"precision_reached,omitempty"`
	// SteadyReason says why the phase was not steady at its end, or
	// "steady".
	SteadyReason string `json:"steady_reason"`
	// Rivals is how many cells the phase was ranked against (a halving
	// run's other finalists at its CPU limit); Apart says it stopped early
	// because its intervals were apart from all of theirs.
	Rivals int  `json:"rivals,omitempty"`
	Apart  bool `json:"apart,omitempty"`
	// WarmupUsedS is the warm-up that ran, in seconds; WarmupSettled says
	// it ended because throughput had settled rather than at WarmupMaxS.
	WarmupMaxS    float64 `json:"warmup_max_s"`
	WarmupUsedS   float64 `json:"warmup_used_s"`
	WarmupSettled bool    `json:"warmup_settled"`
}
