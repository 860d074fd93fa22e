package k6

import "errors"

// Sentinel errors of the k6 driver; match them with errors.Is.
var (
	// ErrNotFound means no k6 binary was found at the given path or on
	// PATH.
	ErrNotFound = errors.New("k6 not found")
	// ErrNotK6 means the program given as k6 does not answer `k6 version`
	// as k6 does.
	ErrNotK6 = errors.New("not k6")
	// ErrNewSummary means the summary is k6's opt-in "new machine-readable
	// summary", which has no p(99), no thresholds and no counter rates.
	ErrNewSummary = errors.New("k6 wrote the new machine-readable summary, which has no p(99): " +
		"drop --new-machine-readable-summary (and K6_NEW_MACHINE_READABLE_SUMMARY)")
	// ErrNoP99 means a legacy summary lacks p(99), because
	// --summary-trend-stats did not ask for it.
	ErrNoP99 = errors.New("k6 summary has no p(99): --summary-trend-stats must include p(99)")
	// ErrScript means k6 cannot load the user's script (a syntax error,
	// an exception in its init code); the error carries k6's message.
	ErrScript = errors.New("k6 cannot load the script")
	// ErrClash means the script's own options would replace the load
	// sweep asks for and no k6 flag can win over them.
	ErrClash = errors.New("the script's options clash with sweep's load")
	// ErrNotSummary means the file is not a k6 summary at all.
	ErrNotSummary = errors.New("not a k6 summary")
)
