package session

// The ports a DSN names. The DSNs are checked once the services the
// target needs are up (samplers.prepare), and a server that does not
// answer is waited for up to the ready timeout: the right wait for a
// database that is still starting, but a vain one for a port of this host
// that no service of the stack publishes and nothing listens on. That
// much is known before anything starts, from the compose files and one
// connection attempt, so it is bad input at once. On a swarm, a port
// published through the routing mesh by a service that is healthy when
// the DSNs are checked answers at once or never (see mesh.go).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/metrics"
	"github.com/sweep-tool/sweep/sweep"
)

// dialTimeout bounds the one connection attempt that tells whether
// something listens on a port of this host.
const dialTimeout = time.Second

// checkDSNPorts looks at the ports the DSNs name before anything starts:
// a DSN of this host that nobody serves is bad input (localDSN.check);
// on a swarm, a loopback URL or DSN is bad input unless this host is a
// node (swarmhost.go), and the samplers learn which ports go through the
// routing mesh (meshPorts).
func (s *Session) checkDSNPorts(ctx context.Context) error {
	if s.spec.Swarm {
		if err := s.checkSwarmLoopback(ctx, net.InterfaceAddrs); err != nil {
			return err
		}
	}
	if (s.spec.DBDSN == "" && s.spec.PoolerDSN == "") || s.spec.Kubernetes {
		// a Kubernetes stack publishes no port of this host: a DSN the
		// user gives reaches the cluster some way of theirs
		return nil
	}
	bases, err := s.bases()
	if err != nil {
		return err
	}
	ports := hostPorts(bases)
	for _, d := range []localDSN{
		{field: "db_dsn", what: "the database", env: "SWEEP_DB_DSN", dsn: s.spec.DBDSN},
		{field: "pooler_dsn", what: "PgBouncer", env: "SWEEP_POOLER_DSN", dsn: s.spec.PoolerDSN},
	} {
		if err := d.check(ctx, ports, refusedHere); err != nil {
			return err
		}
	}
	if s.spec.Swarm {
		mesh := meshPorts(bases, s.spec.Service)
		s.db.mesh = mesh
		for _, l := range s.lanes {
			l.db.mesh = mesh
		}
	}
	return nil
}

// bases reads the compose files of every stack of the run (each
// variant's), as the stacks did.
func (s *Session) bases() ([]compose.Base, error) {
	sets := [][]string{s.spec.Compose}
	if len(s.spec.Variants) > 0 {
		sets = sets[:0]
		for _, v := range s.spec.Variants {
			sets = append(sets, v.Files)
		}
	}
	var bases []compose.Base
	for _, files := range sets {
		base, err := compose.ReadBase(files, sweep.ProjectName(s.runID), s.opts.Env)
		if err != nil {
			return nil, err
		}
		bases = append(bases, base)
	}
	return bases, nil
}

// hostPorts is what the bases publish on the host, together.
func hostPorts(bases []compose.Base) compose.HostPorts {
	var all compose.HostPorts
	for _, b := range bases {
		h := b.HostPorts()
		all.Published = append(all.Published, h.Published...)
		all.HostNetwork = cmp.Or(all.HostNetwork, h.HostNetwork)
	}
	slices.Sort(all.Published)
	all.Published = slices.Compact(all.Published)
	return all
}

// localDSN is a DSN of the spec, by its field, what it names and the
// variable that may set it.
type localDSN struct{ field, what, env, dsn string }

// check is bad input of d's field when its DSN names a port of this host
// that ports does not publish and nothing listens on (refused says a
// connection to the address was refused). A DSN it cannot read as one
// TCP host and port (a socket, several hosts, {node}) passes: the later
// checks judge it.
func (d localDSN) check(ctx context.Context, ports compose.HostPorts, refused func(ctx context.Context, addr string) bool) error {
	if d.dsn == "" || strings.Contains(d.dsn, "{") {
		return nil
	}
	cfg, err := pgx.ParseConfig(d.dsn)
	if err != nil || !isLoopback(cfg.Host) || ports.Publishes(cfg.Port) {
		return nil
	}
	for _, f := range cfg.Fallbacks { // the same address without TLS, or other hosts
		if f.Host != cfg.Host || f.Port != cfg.Port {
			return nil
		}
	}
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	if !refused(ctx, addr) {
		return nil
	}
	published := "none"
	if len(ports.Published) > 0 {
		published = joinPorts(ports.Published)
	}
	return sweep.BadInput(d.field, "%s: nothing listens on %s and no service of the stack publishes port %d (it publishes %s), "+
		"so %s could never answer there; give the port its service publishes in the compose files (ports: \"HOST:CONTAINER\"), "+
		"here or in %s, or start %s before sweep",
		metrics.RedactDSN(d.dsn), addr, cfg.Port, published, d.what, d.env, d.what)
}

// isLoopback reports whether host is this host by name or loopback
// address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// refusedHere reports whether a TCP connection to addr is refused: no
// process listens there. Anything else (it connects, or times out) is not
// proof that nothing will answer.
func refusedHere(ctx context.Context, addr string) bool {
	d := net.Dialer{Timeout: dialTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err == nil {
		_ = conn.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// joinPorts is ports as "15432, 18080".
func joinPorts(ports []uint16) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, ", ")
}
