package session

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/compose"
)

// TestLocalDSNNobodyServes: a DSN of this host (loopback, localhost) at a
// port the stack does not publish and where a connection is refused is
// bad input of its field, naming the address, what the stack publishes
// and the fix, never the password; any other DSN passes to the later
// checks.
func TestLocalDSNNobodyServes(t *testing.T) {
	t.Parallel()
	demo := compose.HostPorts{Published: []uint16{15432, 18080}}
	refused := func(context.Context, string) bool { return true }
	listening := func(context.Context, string) bool { return false }
	for _, tc := range []struct {
		name, dsn string
		ports     compose.HostPorts
		refused   func(context.Context, string) bool
		bad       bool
	}{
		{"loopback port nobody serves", "postgres://u:s3cret@127.0.0.1:1/db", demo, refused, true},
		{"localhost", "postgres://u:s3cret@localhost:1/db", demo, refused, true},
		{"ipv6 loopback", "postgres://u:s3cret@[::1]:1/db", demo, refused, true},
		{"keyword form", "host=127.0.0.2 port=1 user=u password=s3cret dbname=db", demo, refused, true},
		{"published by the stack", "postgres://u:s3cret@127.0.0.1:15432/db", demo, refused, false},
		{"something listens", "postgres://u:s3cret@127.0.0.1:1/db", demo, listening, false},
		{"another host", "postgres://u:s3cret@db.example:1/db", demo, refused, false},
		{"a service on the host's network", "postgres://u:s3cret@127.0.0.1:1/db", compose.HostPorts{HostNetwork: "db"}, refused, false},
		{"a lane's node", "postgres://u:s3cret@{node}:1/db", demo, refused, false},
		{"a socket", "host=/var/run/postgresql port=1 user=u dbname=db", demo, refused, false},
		{"several hosts", "postgres://u:s3cret@127.0.0.1:1,127.0.0.1:2/db", demo, refused, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := localDSN{field: "pooler_dsn", what: "PgBouncer", env: "SWEEP_POOLER_DSN", dsn: tc.dsn}
			err := d.check(t.Context(), tc.ports, tc.refused)
			if !tc.bad {
				if err != nil {
					t.Fatalf("check = %v, want it passed on", err)
				}
				return
			}
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if badField(err) != "pooler_dsn" || strings.Contains(msg, "s3cret") {
				t.Fatalf("check = %v, want bad input of pooler_dsn without the password", err)
			}
			for _, want := range []string{":1 ", "publishes 15432, 18080", "ports:", "SWEEP_POOLER_DSN"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the message lacks %q: %s", want, msg)
				}
			}
		})
	}
}

// TestRefusedHere: a port with a listener is not refused, the same port
// once closed is.
func TestRefusedHere(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if refusedHere(t.Context(), addr) {
		t.Errorf("%s has a listener, yet the connection was refused", addr)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if !refusedHere(t.Context(), addr) {
		t.Errorf("%s has no listener, yet the connection was not refused", addr)
	}
}
