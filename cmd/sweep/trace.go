package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/session"
	"github.com/sweep-tool/sweep/sweep"
)

// How many bytes of a captured value and of a failed step's body a
// trace's line shows (the error carries the body's whole sample).
const (
	maxShownValue = 40
	maxShownBody  = 80
)

// checkScenario is check --scenario: one iteration of every scenario of
// the file against the running stack, each step printed, then the
// verdict; a failed step is the command's error (exit 1).
func checkScenario(ctx context.Context, spec sweep.Spec, stdout io.Writer) error {
	steps, err := session.TraceScenario(ctx, spec)
	writeTrace(stdout, filepath.Base(spec.Scenario.Path), steps)
	if err != nil {
		return err
	}
	if err := steps.Err(); err != nil {
		fmt.Fprintf(stdout, "scenario check failed: %d of %d steps failed\n", len(steps.Failed()), len(steps))
		return err
	}
	fmt.Fprintf(stdout, "scenario check passed: %d steps, every one as the file expects\n", len(steps))
	return nil
}

// writeTrace prints each step under its scenario: the file's line, the
// request as sent, the status, the latency and the captured values, or
// why it failed with the response's first bytes.
func writeTrace(w io.Writer, file string, steps builtin.Traced) {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	scenarioName := ""
	for i, s := range steps {
		if i == 0 || s.Scenario != scenarioName {
			scenarioName = s.Scenario
			fmt.Fprintf(tw, "%s, scenario %q\n", file, s.Scenario)
		}
		if s.Method == "" {
			fmt.Fprintf(tw, "  line %d\t%s\t\t\t\tnot sent: it needs a value an earlier step did not capture\n", s.Line, s.Op)
			continue
		}
		status := "-"
		if s.Status > 0 {
			status = fmt.Sprint(s.Status)
		}
		fmt.Fprintf(tw, "  line %d\t%s\t%s\t%s\t%.2f ms\t%s\n", s.Line, s.Method, s.URL, status, float64(s.Latency.Microseconds())/1000, stepNote(s))
	}
	tw.Flush()
	for line := range strings.Lines(b.String()) {
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
}

// stepNote is what a step captured, or why it failed.
func stepNote(s builtin.TraceStep) string {
	var parts []string
	if s.Class != "" {
		parts = append(parts, "FAILED "+s.Class)
	}
	for _, c := range s.Captured {
		parts = append(parts, shownCapture(c))
	}
	switch {
	case s.Err != nil:
		parts = append(parts, s.Err.Error())
	case s.Class != "" && s.Body != "":
		head, more := shorten(s.Body, maxShownBody)
		parts = append(parts, fmt.Sprintf("body %q%s", head, more))
	}
	return strings.Join(parts, " ")
}

// shownCapture is name=value, a long value shortened; a capture that
// found nothing says so.
func shownCapture(c scenario.Captured) string {
	if !c.OK {
		return c.Name + " not found"
	}
	head, more := shorten(c.Value, maxShownValue)
	return c.Name + "=" + head + more
}

// shorten cuts v to its first n bytes (whole characters); more says how
// long it was, "" when nothing was cut.
func shorten(v string, n int) (head, more string) {
	if len(v) <= n {
		return v, ""
	}
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return v[:n], fmt.Sprintf("… (%d bytes)", len(v))
}
