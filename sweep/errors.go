package sweep

import (
	"errors"
	"fmt"
)

// ErrBadInput marks errors caused by what the user asked for (a flag, a
// config key, a file). The CLI maps it to exit code 2; nothing has been
// started when it is returned.
var ErrBadInput = errors.New("bad input")

// ErrInterrupted is returned by the runner when the run was cancelled
// (Ctrl-C, SIGTERM); the CLI maps it to exit code 130.
var ErrInterrupted = errors.New("interrupted")

// BadInputError is a bad-input error that names the flag at fault.
type BadInputError struct {
	Flag string // without dashes, e.g. "cpus"
	Msg  string
	// Err, when set, is the cause as data (e.g. a *ProbeError), for
	// errors.As.
	Err error
}

func (e *BadInputError) Error() string { return fmt.Sprintf("--%s: %s", e.Flag, e.Msg) }

// Unwrap makes errors.Is(err, ErrBadInput) true, and reaches the cause.
func (e *BadInputError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrBadInput}
	}
	return []error{ErrBadInput, e.Err}
}

// BadInput builds a BadInputError for flag with a formatted message.
func BadInput(flag, format string, args ...any) error {
	return &BadInputError{Flag: flag, Msg: fmt.Sprintf(format, args...)}
}
