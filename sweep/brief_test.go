package sweep

import (
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

func TestOneLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 400)
	for _, tc := range []struct{ in, want string }{
		{"ready: target not ready", "ready: target not ready"},
		{"apply: compose up app: exit status 1\nstderr:\nCreating x ... error\n", "apply: compose up app: exit status 1 …"},
		{"  padded\n\n", "padded"},
		{long, strings.Repeat("x", maxLine-1) + "…"},
		{strings.Repeat("y", maxLine), strings.Repeat("y", maxLine)},
		{strings.Repeat("é", maxLine+1), strings.Repeat("é", maxLine-1) + "…"},
	} {
		if got := OneLine(tc.in); got != tc.want {
			t.Errorf("OneLine(%.30q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	rec := results.Record{Status: results.StatusFailed, Reason: "a\nb"}
	if got := Brief(rec); got != "a …" {
		t.Errorf("Brief of a failed record = %q", got)
	}
}
