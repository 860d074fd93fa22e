package metrics

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/boundtest"
)

// silentDB is the address of a server that accepts connections and reads
// what it is sent, and never answers, as a database host whose
// PostgreSQL hangs does; closed at the test's end.
func silentDB(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	return "postgres://u:p@" + l.Addr().String() + "/app?sslmode=disable"
}

// TestSamplersEndWithTheirContext: every call of the database samplers
// on a server that never answers returns soon after its context ends (the
// runner bounds the reset and the limits by the call timeout); Open's
// check of the DSN is a ConnectError then.
func TestSamplersEndWithTheirContext(t *testing.T) {
	t.Parallel()
	dsn := silentDB(t)
	db, b := &DB{}, &PgBouncer{}
	if err := db.parse("db", dsn); err != nil {
		t.Fatal(err)
	}
	if err := b.parse("pgbouncer", dsn); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		call       func(ctx context.Context) error
	}{
		{"open", "db at 127.0.0.1", func(ctx context.Context) error { _, err := Open(ctx, dsn, Wait{}); return err }},
		{"reset", "db reset", func(ctx context.Context) error { return db.Reset(ctx, "TRUNCATE t") }},
		{"limits", "connect to db", func(ctx context.Context) error { _, err := db.Limits(ctx); return err }},
		{"pooler limits", "connect to pgbouncer", func(ctx context.Context) error { _, err := b.Limits(ctx); return err }},
		{"pooler reading", "connect to pgbouncer", func(ctx context.Context) error { _, err := b.Read(ctx); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			boundtest.Call(t, tc.want, tc.call)
		})
	}
}

// TestSamplerReadingIsBoundedByATick: a reading of the database sampler
// ends within a tick even without a deadline of its caller's, so a
// sampler's loop and its Stop never wait on a silent server.
func TestSamplerReadingIsBoundedByATick(t *testing.T) {
	t.Parallel()
	db := &DB{}
	if err := db.parse("db", silentDB(t)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := db.read(context.WithoutCancel(t.Context())); err == nil {
		t.Fatal("a reading of a silent server succeeded")
	}
	if took := time.Since(start); took > 10*connectTimeout {
		t.Errorf("the reading took %s; its bound is %s", took, connectTimeout)
	}
}
