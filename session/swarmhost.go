package session

// A loopback address with --swarm. The stack's ports are published on the
// swarm's nodes; a loopback address in --url or a DSN is this host, so it
// reaches the stack only when this host is one of the nodes (a one-node
// swarm on the local engine). Otherwise nothing the stack publishes can
// ever answer there, and the run would wait out the ready timeout at the
// first DSN check: that is known before anything starts.

import (
	"context"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sweep-tool/sweep/metrics"
	"github.com/sweep-tool/sweep/swarm"
	"github.com/sweep-tool/sweep/sweep"
)

// addrUse is an address of the spec by its field and how to show it.
type addrUse struct {
	field, host, shown string
}

// swarmLoopbacks are the spec's addresses that name this host by
// loopback: the DSNs, and the URL unless the load runs on a node (where
// loopback is the load's container, not this host). Templated ones
// ({node}) and ones that do not parse are left to the later checks.
func (s *Session) swarmLoopbacks() []addrUse {
	var out []addrUse
	for _, d := range []struct{ field, dsn string }{{"db_dsn", s.spec.DBDSN}, {"pooler_dsn", s.spec.PoolerDSN}} {
		if d.dsn == "" || strings.Contains(d.dsn, "{") {
			continue
		}
		if cfg, err := pgx.ParseConfig(d.dsn); err == nil && isLoopback(cfg.Host) {
			out = append(out, addrUse{field: d.field, host: cfg.Host, shown: metrics.RedactDSN(d.dsn)})
		}
	}
	if len(s.spec.LoadPlace()) == 0 && !strings.Contains(s.spec.URL, "{") {
		if u, err := url.Parse(s.spec.URL); err == nil && isLoopback(u.Hostname()) {
			out = append(out, addrUse{field: "url", host: u.Hostname(), shown: s.spec.URL})
		}
	}
	return out
}

// checkSwarmLoopback refuses a loopback address of the spec (swarmLoopbacks)
// when no node of the swarm is this host (local lists this host's
// addresses).
func (s *Session) checkSwarmLoopback(ctx context.Context, local func() ([]net.Addr, error)) error {
	uses := s.swarmLoopbacks()
	st, ok := s.stack.(*swarm.Stack)
	if len(uses) == 0 || !ok {
		return nil
	}
	nodes, err := st.NodeAddrs(ctx)
	if err != nil {
		return err
	}
	addrs, err := local()
	if err != nil {
		return nil // cannot tell: the later checks judge
	}
	return loopbackOffSwarm(uses, nodes, addrs)
}

// loopbackOffSwarm is bad input for the first use when none of the nodes'
// addresses is one of this host's.
func loopbackOffSwarm(uses []addrUse, nodes []string, local []net.Addr) error {
	for _, a := range local {
		if ipn, ok := a.(*net.IPNet); ok && slices.ContainsFunc(nodes, func(n string) bool {
			ip := net.ParseIP(n)
			return ip != nil && ip.Equal(ipn.IP)
		}) {
			return nil
		}
	}
	if len(uses) == 0 || len(nodes) == 0 {
		return nil
	}
	u := uses[0]
	return sweep.BadInput(u.field, "%s: %s is this host, which is not a node of the swarm (its nodes are at %s); "+
		"the stack's ports are published on the nodes, so nothing of it can answer here: give the address of the node "+
		"that runs the service (placed with {place}, or {node} with {parallel})", u.shown, u.host, strings.Join(nodes, ", "))
}
