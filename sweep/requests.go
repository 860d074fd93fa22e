package sweep

// A load that does not work is not a result. A cell whose requests the
// service answered with 404s (a wrong path, an API unlike the driver's
// scenario) once came out ok with errors=100 %, and an overnight run at the
// wrong API exited 0. Now a cell whose requests fail above the run's bound
// fails, naming the operations, the status codes and what the service
// answered, and a run whose first cells all fail so stops at once.

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/sweep-tool/sweep/results"
)

// DefaultMaxErrors is the share of failed requests above which a cell
// fails when the spec gives none (Spec.MaxErrors 0).
const DefaultMaxErrors = 0.05

// FailFastCells is how many of a run's first measured cells must all fail
// on their requests (results.CauseRequests) for the run to stop: the load
// does not work against this stack, and no later cell will do better.
const FailFastCells = 3

// ErrRequestsFailed marks a cell whose requests failed above the bound.
var ErrRequestsFailed = errors.New("requests failed")

// ErrLoadDoesNotWork marks a run stopped because its first FailFastCells
// cells all failed on their requests; the error wraps ErrTooManyFailures
// too, as the failure limit it is.
var ErrLoadDoesNotWork = errors.New("the load does not work against this stack")

// ErrorLimit is the share of failed requests above which a cell fails.
func (s Spec) ErrorLimit() float64 {
	if s.MaxErrors > 0 {
		return s.MaxErrors
	}
	return DefaultMaxErrors
}

// CheckErrors returns an error wrapping ErrRequestsFailed when more than
// limit of m's requests failed, or all of them did: it names the share,
// each failing operation with its share and first failed response, and
// the error classes.
func CheckErrors(m results.Measurement, limit float64) error {
	if m.Requests == 0 || (m.ErrorRate <= limit && m.ErrorRate < 1) {
		return nil
	}
	return fmt.Errorf("%w: %.1f%% of %d requests%s (over the run's bound of %s): %s; by class: %s",
		ErrRequestsFailed, 100*m.ErrorRate, m.Requests, skippedText(m.Skipped), FormatNumber(100*limit)+"%", failingOps(m), classes(m.Errors))
}

// failingOps lists the operations with failed requests, most failed first,
// each with the first failed response the driver kept.
func failingOps(m results.Measurement) string {
	names := slices.Collect(maps.Keys(m.Ops))
	failed := func(n string) float64 { return m.Ops[n].ErrorRate * float64(m.Ops[n].Requests+m.Ops[n].Skipped) }
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(failed(b), failed(a)), cmp.Compare(a, b)) })
	var parts []string
	for _, n := range names {
		op := m.Ops[n]
		if op.ErrorRate == 0 {
			continue
		}
		part := fmt.Sprintf("%s %.1f%% of %d%s", n, 100*op.ErrorRate, op.Requests, skippedText(op.Skipped))
		if s, ok := m.ErrorSamples[n]; ok {
			part += " (first: " + describeSample(s) + ")"
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return "no operation named"
	}
	return strings.Join(parts, ", ")
}

// skippedText says how many steps were skipped, or nothing.
func skippedText(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" and %d skipped", n)
}

// describeSample is a failed response in a few words: 404 "not found".
func describeSample(s results.ErrorSample) string {
	var what string
	if s.Status > 0 {
		what = strconv.Itoa(s.Status)
	} else {
		what = s.Class
	}
	if body := strings.Join(strings.Fields(s.Body), " "); body != "" {
		what += " " + strconv.Quote(body)
	}
	return what
}

// classes lists error classes, most first: "http_404 1200, timeout 3".
func classes(by map[string]int64) string {
	if len(by) == 0 {
		return "none given"
	}
	return strings.TrimSuffix(strings.TrimPrefix(kinds(by), " ("), ")")
}

// LoadNeverWorked returns an error wrapping ErrLoadDoesNotWork when the
// first FailFastCells records of recs that measured something (ok or
// failed; skipped and interrupted ones do not count) all failed on their
// requests; nil while fewer have been measured or any of them did not.
func LoadNeverWorked(recs []results.Record) error {
	var first []results.Record
	for _, r := range recs {
		if r.Status == results.StatusOK || r.Status == results.StatusFailed {
			first = append(first, r)
		}
		if len(first) == FailFastCells {
			break
		}
	}
	if len(first) < FailFastCells {
		return nil
	}
	for _, r := range first {
		if r.Cause != results.CauseRequests {
			return nil
		}
	}
	last := first[len(first)-1]
	return fmt.Errorf("%w: %w: the first %d cells all failed on their requests (the last, %s: %s); "+
		"check --url and the load's paths with sweep check", ErrTooManyFailures, ErrLoadDoesNotWork, FailFastCells, last.Cell.ID, last.Reason)
}
