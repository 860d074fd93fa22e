package results

import "slices"

// Adopt takes a measurement made apart from the cell's own record (a
// level of a search, a driver of the generator check) into r: the load
// and its figures, every metric block, the warnings and connection-limit
// findings, the steady-state rule's outcome, and the phase times r does
// not have yet. Identity, status, round and the applied configuration
// stay r's.
func (r *Record) Adopt(from Record) {
	r.Load, r.Measurement = from.Load, from.Measurement
	r.Resources, r.DB, r.Pooler, r.Driver, r.Host = from.Resources, from.DB, from.Pooler, from.Driver, from.Host
	r.Delivery, r.LittlesRatio, r.LittlesExpected = from.Delivery, from.LittlesRatio, from.LittlesExpected
	r.Warnings = append(r.Warnings, from.Warnings...)
	for _, c := range from.ConnLimit {
		if !slices.Contains(r.ConnLimit, c) {
			r.ConnLimit = append(r.ConnLimit, c)
		}
	}
	if from.Stopping != nil {
		r.Stopping = from.Stopping
	}
	if r.PhasesS == nil {
		r.PhasesS = map[string]float64{}
	}
	for phase, s := range from.PhasesS {
		if _, set := r.PhasesS[phase]; !set {
			r.PhasesS[phase] = s
		}
	}
}
