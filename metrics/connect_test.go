package metrics

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
)

// TestOpenWaits checks the DSN check's rules against a real PostgreSQL: a
// wrong password or database is refused at once, however long the wait;
// a port where nothing answers is tried for the whole wait; a server that
// starts listening during the wait is connected.
func TestOpenWaits(t *testing.T) {
	base := postgresURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dsn string
	}{
		{"wrong password", strings.Replace(base, pgPassword, "wr0ng-"+pgPassword, 1)},
		{"no such database", base + "_missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := Open(t.Context(), tc.dsn, Wait{For: time.Minute})
			var ce *ConnectError
			if !errors.As(err, &ce) || !ce.Refused || ce.Host != u.Host || ce.What != "db" {
				t.Fatalf("Open = %v, want a refusal by db at %s", err, u.Host)
			}
			// Half the minute's wait: a retried refusal takes all of it.
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("a refusal took %s: it was retried", took)
			}
			if strings.Contains(err.Error(), pgPassword) {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
	t.Run("nothing answers", func(t *testing.T) {
		closed := setPort(t, base, testenv.FreePort(t))
		start := time.Now()
		_, err := Open(t.Context(), closed, Wait{For: 1500 * time.Millisecond})
		var ce *ConnectError
		if !errors.As(err, &ce) || ce.Refused || !strings.Contains(err.Error(), "did not answer within 1.5s") {
			t.Fatalf("Open = %v, want no answer within the wait", err)
		}
		if took := time.Since(start); took < 1500*time.Millisecond || took > 20*time.Second {
			t.Errorf("gave up after %s, want about the 1.5 s wait", took)
		}
	})
	t.Run("answers later", func(t *testing.T) {
		port := testenv.FreePort(t)
		go func() {
			time.Sleep(time.Second)
			if _, err := testenv.ServeOn(t, "127.0.0.1:"+strconv.Itoa(port), forward(u.Host)); err != nil {
				t.Error(err)
			}
		}()
		db, err := Open(t.Context(), setPort(t, base, port), Wait{For: 20 * time.Second})
		if err != nil {
			t.Fatalf("Open = %v, want a connection once the server listens", err)
		}
		_ = db.Close(context.Background())
	})
}

// setPort returns dsn with its port replaced.
func setPort(t *testing.T, dsn string, port int) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = "127.0.0.1:" + strconv.Itoa(port)
	return u.String()
}

// forward copies a connection both ways to and from addr.
func forward(addr string) func(net.Conn) {
	return func(c net.Conn) {
		s, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		defer s.Close()
		go func() { _, _ = io.Copy(s, c) }()
		_, _ = io.Copy(c, s)
	}
}
