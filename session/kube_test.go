package session

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/sweep"
)

// TestViaForward: on Kubernetes a DSN whose host is a Service of the run
// is reached through a port-forward (its host and port replaced, URL or
// key=value), any other DSN as it is, without asking; a Service that
// cannot be forwarded to is bad input of the DSN's field without the
// password, and every forward opened is stopped with the samplers.
func TestViaForward(t *testing.T) {
	var asked []string
	stopped := 0
	fwd := func(_ context.Context, host string, port int) (string, func() error, bool, error) {
		asked = append(asked, host)
		switch host {
		case "db", "db.sweep-r1":
			if port != 5432 {
				return "", nil, true, errors.New("service db has no port 6543 (it has 5432)")
			}
			return "127.0.0.1:40001", func() error { stopped++; return nil }, true, nil
		}
		return "", nil, false, nil
	}
	for _, tc := range []struct {
		dsn, want, err string
		asked          bool
	}{
		{"postgres://sweep:secret@db:5432/sweep?sslmode=disable", "postgres://sweep:secret@127.0.0.1:40001/sweep?sslmode=disable", "", true},
		{"postgresql://sweep:secret@db.sweep-r1/sweep", "postgresql://sweep:secret@127.0.0.1:40001/sweep", "", true},
		{"host=db port=5432 user=sweep password=secret dbname=sweep", "host=db port=5432 user=sweep password=secret dbname=sweep host=127.0.0.1 port=40001", "", true},
		{"postgres://sweep:secret@elsewhere.example:5432/sweep", "postgres://sweep:secret@elsewhere.example:5432/sweep", "", true},
		{"postgres://sweep:secret@10.0.0.7:5432/sweep", "postgres://sweep:secret@10.0.0.7:5432/sweep", "", false},
		{"postgres://sweep:secret@localhost:5432/sweep", "postgres://sweep:secret@localhost:5432/sweep", "", false},
		{"postgres://sweep:secret@db:6543/sweep", "", "service db has no port 6543", true},
	} {
		asked = nil
		x := &samplers{forward: fwd}
		got, err := x.viaForward(t.Context(), "db_dsn", tc.dsn)
		if tc.err != "" {
			if !errors.Is(err, sweep.ErrBadInput) || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "db_dsn") ||
				strings.Contains(err.Error(), "secret") {
				t.Errorf("%s: error %v; want bad input of db_dsn saying %q without the password", tc.dsn, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.dsn, got, err, tc.want)
		}
		if (len(asked) > 0) != tc.asked {
			t.Errorf("%s: asked to forward %v; want asked %v", tc.dsn, asked, tc.asked)
		}
		if err := x.close(); err != nil {
			t.Error(err)
		}
	}
	if stopped != 3 {
		t.Errorf("%d forwards stopped, want the 3 opened", stopped)
	}
	x := &samplers{}
	if got, err := x.viaForward(t.Context(), "db_dsn", "postgres://u:p@db/x"); err != nil || got != "postgres://u:p@db/x" {
		t.Errorf("without a forward (not Kubernetes): %q, %v; want the DSN as it is", got, err)
	}
}
