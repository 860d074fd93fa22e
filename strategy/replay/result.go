package replay

// result starts the Result of a run's replays.
func (rp *replayer) result(runID string, notes []string) *Result {
	res := &Result{RunID: runID, Strategy: "halving", Agreement: map[string]float64{}, Noise: rp.noise, Notes: notes}
	for _, c := range rp.cells {
		res.GridS += c.gridS
	}
	for _, r := range rp.opts.Plan.Rounds {
		res.Plan = append(res.Plan, RoundPlan{WarmupS: r.Warmup.Seconds(), DurationS: r.Duration.Seconds(),
			MinimumS: r.MinDuration.Seconds(), Keep: r.Keep})
	}
	return res
}

// add counts one replay in; the first one's rounds and picks are kept.
func (res *Result) add(o outcome, first bool) {
	res.Replays++
	f := o.timeS / res.GridS
	res.Fraction += f
	res.FractionMax = max(res.FractionMax, f)
	res.HalvingS += o.timeS
	if first {
		res.Rounds, res.Picks = o.rounds, o.picks
		res.SteadyFromSamples, res.SteadyAssumed = o.fromSamples, o.assumed
	}
	agreed := map[string]bool{}
	for _, p := range o.picks {
		if _, seen := agreed[p.Profile]; !seen {
			agreed[p.Profile] = true
		}
		agreed[p.Profile] = agreed[p.Profile] && p.Agrees
	}
	for key, ok := range agreed {
		if ok {
			res.Agreement[key]++
		} else if _, seen := res.Agreement[key]; !seen {
			res.Agreement[key] = 0
		}
	}
}

// finish turns the sums into means.
func (res *Result) finish() {
	n := float64(res.Replays)
	res.Fraction /= n
	res.HalvingS /= n
	for key := range res.Agreement {
		res.Agreement[key] /= n
	}
}
