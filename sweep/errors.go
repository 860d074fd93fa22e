package sweep

import (
	"errors"
	"fmt"
	"regexp"
)

// ErrBadInput marks errors caused by what the user asked for (a spec
// field, an option, a file). The CLI maps it to exit code 2; nothing has
// been started when it is returned. It is the one bad-input sentinel of
// the tree: every package's bad input wraps it, through a BadInputError
// (TestBadInputAlwaysNamesItsInput holds every package to that).
var ErrBadInput = errors.New("bad input")

// ErrInterrupted is returned by the runner when the run was cancelled
// (Ctrl-C, SIGTERM); the CLI maps it to exit code 130.
var ErrInterrupted = errors.New("interrupted")

// BadInputError is bad input as data: the input at fault, what is wrong
// with it, and the cause when there is one. Library errors name inputs
// as {field} (this one's Field and any other its message points to), so
// a front end can name them its own way: the CLI as flags (NameFields).
type BadInputError struct {
	// Field is the input at fault as the library names it: a spec field
	// by its JSON name ("cpus", "web_mult", "find_limit.max_level"), or
	// an option of the call that took it ("run_dir", "allow_large").
	Field string
	// Msg says what is wrong; other inputs it names are written {field}.
	Msg string
	// Err, when set, is the cause as data (e.g. a *ProbeError), for
	// errors.As.
	Err error
}

// Error is "{field}: message".
func (e *BadInputError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return "{" + e.Field + "}: " + e.Msg
}

// Unwrap makes errors.Is(err, ErrBadInput) true, and reaches the cause.
func (e *BadInputError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrBadInput}
	}
	return []error{ErrBadInput, e.Err}
}

// BadInput builds a BadInputError for field with a formatted message.
func BadInput(field, format string, args ...any) error {
	return &BadInputError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// fieldRef is an input named in an error's text: {cpus}, {find_limit.slo}.
var fieldRef = regexp.MustCompile(`\{([a-z][a-z0-9_.-]*)\}`)

// NameFields replaces each {field} in an error's text s by name(field),
// where name knows the field; the others stay as they are.
func NameFields(s string, name func(field string) (string, bool)) string {
	return fieldRef.ReplaceAllStringFunc(s, func(ref string) string {
		if n, ok := name(ref[1 : len(ref)-1]); ok {
			return n
		}
		return ref
	})
}
