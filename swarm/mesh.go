package swarm

// A port published through the routing mesh (ports mode ingress, compose's
// default) answers on every node through IPVS in the nodes' kernels; where
// there is none (sweep's own test fixture) it is refused or silent while
// the service behind it runs. What is wrong and how to publish instead is
// said in one place, MeshHint, for the URL (ProbeURL) and the DSNs
// (package session).

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/sweep-tool/sweep/sweep"
)

// MeshHint says that port, which service publishes through the routing
// mesh, does not answer here and how to publish it instead; field is the
// spec field that names the address ({url}, {db_dsn}, …).
func MeshHint(port uint16, service, field string) string {
	return fmt.Sprintf("service %s publishes port %d through the swarm's routing mesh (ports mode: ingress, the default), "+
		"which does not answer here (a node kernel without IPVS has no mesh); publish the port on the node that runs "+
		"the task instead: mode: host in the service's ports (for the demo, add compose/demo/docker-compose.swarm.yaml "+
		"with {compose}), and give that node's address in {%s}", service, port, field)
}

// ProbeURL probes url as sweep.Probe does (the runner's first request to
// the target); when nothing answered at a port a service of the stack
// publishes through the routing mesh, the error says so (MeshHint).
func (s *Stack) ProbeURL(ctx context.Context, target string) error {
	err := sweep.Probe(ctx, target)
	var pe *sweep.ProbeError
	if !errors.As(err, &pe) {
		return err
	}
	port, ok := urlPort(target)
	if !ok {
		return err
	}
	svc, mesh := s.base.HostPorts().Ingress[port]
	if !mesh {
		return err
	}
	pe.Err = fmt.Errorf("%w; %s", pe.Err, MeshHint(port, svc, "url"))
	return pe
}

// urlPort is the TCP port a URL names, its scheme's when it names none.
func urlPort(target string) (uint16, bool) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return 0, false
	}
	p := u.Port()
	if p == "" {
		switch u.Scheme {
		case "http":
			p = "80"
		case "https":
			p = "443"
		}
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return 0, false
	}
	return uint16(n), true
}

var _ sweep.URLProber = (*Stack)(nil)
