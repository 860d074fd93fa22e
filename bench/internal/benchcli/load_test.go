package benchcli

import (
	"strings"
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	if l, err := oneMinute("2.92 0.95 0.34 7/130 8502\n"); err != nil || l != 2.92 {
		t.Errorf("%v, %v; want 2.92", l, err)
	}
	if _, err := oneMinute("garbage"); err == nil {
		t.Error("a line that is no load average was read")
	}
	if got, want := LoadSummary([]float64{3, 9, 1, 4}, 10*time.Second),
		"1-min load average 1.00–9.00, median 3.50 (4 readings of /proc/loadavg, every 10s)"; got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
	if got := LoadRange([]float64{2, 1}); got != "1.00–2.00, median 1.50" {
		t.Errorf("%q", got)
	}
	if got := LoadSummary(nil, time.Second); !strings.HasPrefix(got, "not read") {
		t.Errorf("%q", got)
	}
}
