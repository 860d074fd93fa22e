package remote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/sweep"
)

// MaxRequestSize is the largest encoded Request that travels in
// RequestEnv: Linux takes no environment string (NAME=value and its
// NUL) over 128 KiB (MAX_ARG_STRLEN), whichever platform starts the far
// end.
const MaxRequestSize = 128<<10 - len(RequestEnv) - len("=") - 1

// phaseReserve is the part of MaxRequestSize that CheckRequest leaves to
// a phase's own fields (base URL, load model, durations), which it does
// not know; they take a few hundred bytes.
const phaseReserve = 4 << 10

// Errors of a Request that cannot travel.
var (
	// ErrRequestTooLarge means an encoded Request exceeds what it may
	// take (MaxRequestSize; less phaseReserve for CheckRequest).
	ErrRequestTooLarge = errors.New("drive request too large")
	// ErrScriptNotUTF8 means a scenario file or k6 script is not UTF-8
	// text, which a JSON string cannot carry unchanged.
	ErrScriptNotUTF8 = errors.New("not UTF-8 text")
)

// CheckRequest returns an error when the built-in driver's opts cannot
// travel to the far end, whatever the phase: a scenario file whose
// request would exceed MaxRequestSize less phaseReserve (wrapping
// ErrRequestTooLarge) or that is not UTF-8 (ErrScriptNotUTF8). Driver and
// the Kubernetes load Job check it when made; a caller calls it sooner
// to refuse the scenario as bad input before anything starts.
func CheckRequest(opts builtin.Options) error {
	_, err := NewRequest(sweep.LoadRequest{}, opts).encode(MaxRequestSize - phaseReserve)
	return err
}

// Encode is r as JSON, the value of RequestEnv, with <, > and & as they
// are, so that a scenario reads as written where the platform shows the
// environment — except what a platform would expand in an environment
// value: Swarm reads {{ … }} as a Go template of its own (a scenario's
// {{ $vu }} failed the service's creation) and Kubernetes expands $(VAR)
// and reduces $$ to $, so every "{{" and "$" is written as JSON's \u
// escape, which the far end's decoder reads back as they were. An r that
// cannot travel is an error, as in CheckRequest, at MaxRequestSize.
func (r Request) Encode() (string, error) {
	return r.encode(MaxRequestSize)
}

// encode is r as JSON of at most limit bytes.
func (r Request) encode(limit int) (string, error) {
	what, text := r.userFile()
	if what != "" && !utf8.ValidString(text) {
		return "", fmt.Errorf("%s: %w, which a drive request cannot carry unchanged; save it as UTF-8", what, ErrScriptNotUTF8)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		// a Request holds only strings, numbers and booleans
		panic(fmt.Sprintf("encode drive request: %v", err))
	}
	data := envSafe(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	if len(data) <= limit {
		return string(data), nil
	}
	if what == "" {
		what = "drive request"
	}
	return "", fmt.Errorf("%s: %w: %s encoded, over the %s that one environment variable hands a load running away from sweep's process; make it smaller",
		what, ErrRequestTooLarge, kib(len(data)), kib(limit))
}

// userFile names the user's file r carries ("scenario orders.yaml", "k6
// script load.js") and returns its text; "" when it carries none.
func (r Request) userFile() (what, text string) {
	switch {
	case r.Script != nil:
		return "scenario " + r.Script.File, r.Script.YAML
	case r.K6 != nil && r.K6.Script != nil:
		return "k6 script " + r.K6.Script.File, r.K6.Script.JS
	}
	return "", ""
}

// envSafe writes every "{{" and "$" of encoded JSON as \u escapes. In
// JSON both occur only inside strings (no object opens an object without
// a key), where the escape means the same character.
func envSafe(data []byte) []byte {
	data = bytes.ReplaceAll(data, []byte("$"), []byte(`\u0024`))
	for bytes.Contains(data, []byte("{{")) {
		data = bytes.ReplaceAll(data, []byte("{{"), []byte(`\u007b{`))
	}
	return data
}

// kib is n bytes in KiB, to one decimal.
func kib(n int) string {
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}
