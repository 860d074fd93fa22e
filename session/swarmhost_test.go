package session

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/sweep"
)

// TestLoopbackOffSwarm: with --swarm a loopback DSN or URL waited out the
// ready timeout when this host is not a node; now it is bad input naming
// the field, this host's address and the nodes', before anything starts,
// and passes when this host is a node (a one-node swarm on the local
// engine).
func TestLoopbackOffSwarm(t *testing.T) {
	t.Parallel()
	ipnet := func(s string) net.Addr { return &net.IPNet{IP: net.ParseIP(s), Mask: net.CIDRMask(24, 32)} }
	here := []net.Addr{ipnet("127.0.0.1"), ipnet("192.168.7.5")}
	uses := []addrUse{{field: "db_dsn", host: "127.0.0.1", shown: "postgres://sweep:xxxxx@127.0.0.1:15432/sweep"}}

	err := loopbackOffSwarm(uses, []string{"10.88.0.2", "10.88.0.3"}, here)
	var bad *sweep.BadInputError
	if !errors.As(err, &bad) || bad.Field != "db_dsn" {
		t.Fatalf("loopback DSN, swarm elsewhere: %v, want bad input in db_dsn", err)
	}
	for _, want := range []string{"127.0.0.1 is this host", "10.88.0.2, 10.88.0.3", "{place}", "xxxxx"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if err := loopbackOffSwarm(uses, []string{"10.88.0.2", "192.168.7.5"}, here); err != nil {
		t.Errorf("this host is a node: %v, want nil", err)
	}
	if err := loopbackOffSwarm(nil, []string{"10.88.0.2"}, here); err != nil {
		t.Errorf("no loopback address: %v, want nil", err)
	}
}

// TestSwarmLoopbacks: which of the spec's addresses are this host's.
func TestSwarmLoopbacks(t *testing.T) {
	t.Parallel()
	fields := func(s sweep.Spec) string {
		var f []string
		for _, u := range (&Session{spec: s}).swarmLoopbacks() {
			f = append(f, u.field)
		}
		return strings.Join(f, ",")
	}
	cases := []struct {
		name string
		spec sweep.Spec
		want string
	}{
		{"loopback everywhere", sweep.Spec{URL: "http://localhost:18080", DBDSN: "postgres://u:p@127.0.0.1:15432/d",
			PoolerDSN: "host=::1 port=16432 user=u"}, "db_dsn,pooler_dsn,url"},
		{"node addresses", sweep.Spec{URL: "http://10.0.0.2:18080", DBDSN: "postgres://u:p@10.0.0.3:15432/d"}, ""},
		{"templated", sweep.Spec{URL: "http://{node}:18080", DBDSN: "postgres://u:p@{node}:15432/d"}, ""},
	}
	for _, c := range cases {
		if got := fields(c.spec); got != c.want {
			t.Errorf("%s: loopback fields %q, want %q", c.name, got, c.want)
		}
	}
}
