package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/session"
)

// TestTellLaneControl: the lanes' control cell is said to be within the
// noise only when two lanes or more measured it ok; with one lane's
// failed (its node went NotReady on the Kubernetes fixture) the spread of
// the one figure left is none, and sweep says so instead of "0 % apart".
func TestTellLaneControl(t *testing.T) {
	for _, c := range []struct {
		statuses []string
		want     string
	}{
		{[]string{"ok", "ok"}, "the lanes measured the control cell 3 % apart: within the noise"},
		{[]string{"ok", "failed"}, "the lanes' control cell cannot be compared: 1 of 2 lanes measured it ok"},
	} {
		e := session.LaneControl{Cell: "cpu_1", Spread: 0.03}
		for i, s := range c.statuses {
			e.Lanes = append(e.Lanes, session.LaneFigure{Lane: i + 1, Status: s})
		}
		var b bytes.Buffer
		tell(&b)(e)
		if got := b.String(); !strings.Contains(got, c.want) || (c.statuses[1] != "ok" && strings.Contains(got, "within the noise")) {
			t.Errorf("lanes %v: %q; want %q", c.statuses, got, c.want)
		}
	}
}
