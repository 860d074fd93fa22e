package sweep

import (
	"fmt"
	"strings"

	"github.com/sweep-tool/sweep/results"
)

// maxLine bounds a line of progress: a reason longer than this is cut.
const maxLine = 160

// OneLine is s cut to its first line and to maxLine characters, with "…"
// where anything was cut: a status line stays one line whatever a
// healthcheck or the compose CLI said (their full text is in target.log,
// result.json and sweep.log).
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	line, rest, multi := strings.Cut(s, "\n")
	line = strings.TrimSpace(line)
	if r := []rune(line); len(r) > maxLine {
		return string(r[:maxLine-1]) + "…"
	}
	if multi && strings.TrimSpace(rest) != "" {
		return line + " …"
	}
	return line
}

// Brief is a record in one line: its figures when ok, else the first line
// of its reason.
func Brief(rec results.Record) string {
	if rec.Status != results.StatusOK {
		return OneLine(rec.Reason)
	}
	return fmt.Sprintf("rps=%.1f p99=%.2fms errors=%.2f%%", rec.RPS, rec.LatencyMS.P99, rec.ErrorRate*100)
}
