package sweep

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/sweep-tool/sweep/results"
)

// LoadSpec is a load model as the user gives it: "vus=N" (closed, N virtual
// users), "vus-per-web=K" (closed, K × web threads, as the reference study
// did with K=2) or "rate=R" (open, R iterations per second).
type LoadSpec struct {
	VUs       int
	VUsPerWeb float64
	Rate      float64
	// MaxVUs bounds the open model's concurrency (--max-vus).
	MaxVUs int
}

// ParseLoad parses the --load flag.
func ParseLoad(text string) (LoadSpec, error) {
	key, val, ok := strings.Cut(strings.TrimSpace(text), "=")
	if !ok {
		return LoadSpec{}, BadInput("load", "%q is not KEY=VALUE; use vus=N, vus-per-web=K or rate=R", text)
	}
	num, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
	if err != nil || num <= 0 || num != num || num > 1e7 {
		return LoadSpec{}, BadInput("load", "%q: the value must be a number > 0", text)
	}
	switch strings.TrimSpace(key) {
	case "vus":
		if num != float64(int(num)) {
			return LoadSpec{}, BadInput("load", "%q: vus must be a whole number", text)
		}
		return LoadSpec{VUs: int(num)}, nil
	case "vus-per-web":
		return LoadSpec{VUsPerWeb: num}, nil
	case "rate":
		return LoadSpec{Rate: num}, nil
	}
	return LoadSpec{}, BadInput("load", "unknown model %q; use vus=N, vus-per-web=K or rate=R", key)
}

// String writes the spec back in flag form.
func (l LoadSpec) String() string {
	switch {
	case l.Rate > 0:
		return "rate=" + FormatNumber(l.Rate)
	case l.VUsPerWeb > 0:
		return "vus-per-web=" + FormatNumber(l.VUsPerWeb)
	default:
		return "vus=" + strconv.Itoa(l.VUs)
	}
}

// maxPreAllocated bounds the VUs the open model starts with; past it the
// driver adds VUs (up to --max-vus) while it runs.
const maxPreAllocated = 100

// Info is the recorded form of the model (VUs of vus-per-web still open).
// The open model pre-allocates one second of iterations (⌈rate⌉ VUs, at
// most 100 and --max-vus), so iterations of up to a second never wait for
// a VU to be added: k6 drops the iterations due while it adds one.
func (l LoadSpec) Info() results.LoadInfo {
	if l.Rate > 0 {
		maxVUs := l.MaxVUs
		if maxVUs == 0 {
			maxVUs = max(100, int(l.Rate))
		}
		pre := min(maxVUs, maxPreAllocated, max(1, int(math.Ceil(l.Rate))))
		return results.LoadInfo{Model: "open", Rate: l.Rate, VUs: pre, MaxVUs: maxVUs}
	}
	return results.LoadInfo{Model: "closed", VUs: l.VUs, VUsPerWeb: l.VUsPerWeb}
}

// MarshalJSON records the model as its flag text plus max_vus.
func (l LoadSpec) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"model": l.String(), "max_vus": l.MaxVUs})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (l *LoadSpec) UnmarshalJSON(b []byte) error {
	var v struct {
		Model  string `json:"model"`
		MaxVUs int    `json:"max_vus"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	parsed, err := ParseLoad(v.Model)
	if err != nil {
		return err
	}
	parsed.MaxVUs = v.MaxVUs
	*l = parsed
	return nil
}
