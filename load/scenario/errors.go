package scenario

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Error is one problem of a scenario file: bad input, named by the file,
// the line and the key at fault.
type Error struct {
	File string
	Line int    // 1-based; 0 when the file could not be read at all
	Key  string // the YAML key at fault; "" when the problem is the file's
	Msg  string
}

// Error reads "orders.yaml:7: captur: unknown key (did you mean capture?)".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem Parse found in one file, in line order.
// errors.As finds its first *Error.
type Errors []*Error

// Error lists the problems one a line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap hands the problems to errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// sorted orders the problems by line, keeping the order of those on one
// line, and drops exact repeats.
func (es Errors) sorted() Errors {
	slices.SortStableFunc(es, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
	return slices.CompactFunc(es, func(a, b *Error) bool { return *a == *b })
}

// ErrAbort is what a Doer returns (wrapped or not) when the request must
// not count and the iteration must end: the phase is over, or the request
// never reached the target (a failed connect, which the driver counts
// apart from requests).
var ErrAbort = errors.New("iteration aborted")

// suggest returns " (did you mean X?)" for the known word closest to got
// when it is at most two edits away, else "".
func suggest(got string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := distance(got, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
