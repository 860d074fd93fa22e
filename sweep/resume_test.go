package sweep

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestDiffSpecs(t *testing.T) {
	t.Parallel()
	base := testSpec()
	base.DBDSN = "postgres://u:secret@h/db"
	saved, err := json.Marshal(base.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(saved), "precision") || strings.Contains(string(saved), "min_duration") {
		t.Errorf("a spec without a precision saved the rule's keys: %s", saved)
	}
	if strings.Contains(string(saved), "secret") {
		t.Fatal("the saved spec holds the DSN password")
	}
	for _, tc := range []struct {
		name   string
		change func(*Spec)
		want   string
	}{
		{"same", func(*Spec) {}, ""},
		{"operational keys may change", func(s *Spec) { s.Retries, s.Keep, s.Repeat = 3, true, 2 }, ""},
		{"automatic repetitions may change", func(s *Spec) { s.RepeatAuto, s.MaxRepeat = true, 5 }, ""},
		{"cpus", func(s *Spec) { s.CPUs = []float64{1} }, "cpus (was [1,2], now [1])"},
		{"another password or host is the same spec", func(s *Spec) { s.DBDSN = "postgres://u:other@h2/db" }, ""},
		{"no database now", func(s *Spec) { s.DBDSN = "" }, "db_dsn (was set, now unset)"},
		{"a precision", func(s *Spec) { s.Precision, s.MinDuration = 0.02, Duration(time.Second) },
			`min_duration (was unset, now "1s"); precision (was unset, now 0.02)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			tc.change(&s)
			diff, err := DiffSpecs(saved, true, s)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(diff, "; "); got != tc.want {
				t.Errorf("diff %q, want %q", got, tc.want)
			}
		})
	}
}
