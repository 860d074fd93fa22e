package sweep

// Proof of delivery. A measurement is only a result when its load reached
// the target under test: a --url pointing at a dead port or at another
// copy of the stack used to give plausible figures for a target that sat
// idle. After each measured phase the runner holds the driver's side
// (attempts that did not connect, bytes written) against what the monitor
// saw the target receive, and fails the cell when they disagree.

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// MaxConnectErrorShare is the share of a phase's attempts (requests plus
// attempts that failed to connect) above which the cell is failed as
// unreachable. More than half failing to connect means the target was
// mostly not there; a few refused attempts (a listen backlog overflowing
// at the top of a sweep) leave the cell a result, with the count recorded.
const MaxConnectErrorShare = 0.5

// MinDeliveryRatio is the share of the driver's bytes the target must be
// seen to receive. The target's counters take in every byte that reaches
// it (the requests, TCP's own segments and the database's replies), so a
// healthy cell sees well over 1; an idle target behind a wrong URL sees a
// few kilobytes against megabytes sent. Half leaves room for what the
// counters cannot bracket exactly (a proxy still forwarding the last
// writes) and fails only load that clearly went elsewhere.
const MinDeliveryRatio = 0.5

// MinCPUPerRequest is the CPU time per request a target without network
// counters must show (host-socket proof). Any HTTP server spends far more
// (the demo app tens of microseconds), so this fails only a target that
// did not run while the load went to its socket (paused, frozen).
const MinCPUPerRequest = time.Microsecond

// ErrUnreachable marks a cell whose attempts mostly failed to connect.
var ErrUnreachable = errors.New("target unreachable")

// ErrNotDelivered marks a cell whose load did not reach the target.
var ErrNotDelivered = errors.New("load did not reach the target")

// CheckReachable returns an error wrapping ErrUnreachable when more than
// MaxConnectErrorShare of m's attempts failed to connect to url. Fewer
// such attempts leave the cell a result with a warning that counts them,
// since they are in none of its request figures (the error rate
// included).
func CheckReachable(url string, m results.Measurement) (warning string, err error) {
	attempts := m.Requests + m.ConnectErrors
	switch {
	case m.ConnectErrors == 0:
		return "", nil
	case float64(m.ConnectErrors) <= MaxConnectErrorShare*float64(attempts):
		return fmt.Sprintf("%d of %d attempts (%.1f%%) failed to connect to %s%s; they are not in the requests "+
			"or the error rate", m.ConnectErrors, attempts, 100*float64(m.ConnectErrors)/float64(attempts), url,
			kinds(m.ConnectErrorKinds)), nil
	}
	return "", fmt.Errorf("%w: %d of %d attempts to connect to %s failed%s",
		ErrUnreachable, m.ConnectErrors, attempts, url, kinds(m.ConnectErrorKinds))
}

// kinds lists connect errors by kind, most first: " (refused 12, reset 3)".
func kinds(by map[string]int64) string {
	if len(by) == 0 {
		return ""
	}
	names := slices.Sorted(maps.Keys(by))
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(by[b], by[a]) })
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, by[n])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// CheckDelivery judges what the monitor saw the target (service)
// receive, rec.Delivery, against what the driver sent to url,
// rec.Measurement: it fills the record's sent bytes and ratio and returns
// an error wrapping ErrNotDelivered when the load did not reach the
// target. When no proof was possible (no monitor, a driver that does not
// count bytes, a target whose processes cannot be seen) the cell stays a
// result: rec.Delivery says method none and why, and the returned warning
// says so for the record's warnings.
func CheckDelivery(url, service string, rec *results.Record) (warning string, err error) {
	if rec.Delivery == nil {
		rec.Delivery = &results.Delivery{Method: results.DeliveryNone, Note: "nothing watched the target"}
	}
	d := rec.Delivery
	d.SentBytes = rec.BytesSent
	switch d.Method {
	case results.DeliveryNetwork:
		err = checkBytes(url, service, d)
	case results.DeliveryHostSocket:
		err = checkHostSocket(url, service, d, rec.Requests)
	}
	if d.Method == results.DeliveryNone {
		return "delivery to the target not proven: " + d.Note, nil
	}
	return "", err
}

// checkBytes compares the bytes sent with the bytes received.
func checkBytes(url, service string, d *results.Delivery) error {
	if d.SentBytes <= 0 {
		d.Method, d.Note = results.DeliveryNone, "the driver did not report the bytes it sent"
		return nil
	}
	d.Ratio = float64(d.ReceivedBytes) / float64(d.SentBytes)
	if d.Ratio >= MinDeliveryRatio {
		return nil
	}
	// Rounded down, so a ratio just under the bound never reads as on it.
	pct := math.Floor(1000*d.Ratio) / 10
	return fmt.Errorf("%w: %s received %d bytes while the driver sent %d to %s (%.1f%%, under %.0f%%; "+
		"is the URL the target's address?)", ErrNotDelivered, service, d.ReceivedBytes, d.SentBytes, url,
		pct, 100*MinDeliveryRatio)
}

// checkHostSocket checks who held the URL's listening socket and that
// the target worked for the requests.
func checkHostSocket(url, service string, d *results.Delivery, requests int64) error {
	if !d.ListenerIsTarget {
		held := "nothing listens on its port"
		if len(d.Listeners) > 0 {
			held = "its port is held by " + strings.Join(d.Listeners, ", ")
		}
		return fmt.Errorf("%w: %s: %s, not by %s (is the URL the target's address?)", ErrNotDelivered, url, held, service)
	}
	if need := float64(requests) * MinCPUPerRequest.Seconds(); requests > 0 && d.TargetCPUS < need {
		return fmt.Errorf("%w: %s holds the socket of %s but used %.6f s of CPU for %d requests (under %s each)",
			ErrNotDelivered, service, url, d.TargetCPUS, requests, MinCPUPerRequest)
	}
	return nil
}
