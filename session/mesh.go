package session

// A DSN at a port of a swarm's routing mesh. A port published in mode
// ingress answers on every node through the mesh, which needs IPVS in the
// nodes' kernels; where there is none (sweep's own test fixture), it is
// refused or silent while the service behind it is healthy. The DSNs are
// checked once the services the target needs are up and healthy (the
// swarm backend's StartDeps), so a mesh port of such a service with a
// healthcheck is not waited for the whole ready timeout, and its error
// says where the fault is and how to publish instead.

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/metrics"
	"github.com/sweep-tool/sweep/swarm"
	"github.com/sweep-tool/sweep/sweep"
)

// meshWait bounds the wait for a DSN at a mesh port of a healthy
// service: a healthy database behind a working mesh answers at once.
const meshWait = 10 * time.Second

// meshPort is a port a service of the swarm stack publishes through the
// routing mesh.
type meshPort struct {
	service string
	// healthy: the service starts before the target and has a
	// healthcheck, so its tasks are healthy when the DSNs are checked.
	healthy bool
}

// meshPorts maps the ports the bases publish in mode ingress to their
// service, for a swarm stack whose target is target.
func meshPorts(bases []compose.Base, target string) map[uint16]meshPort {
	out := map[uint16]meshPort{}
	for _, b := range bases {
		deps := b.Deps(target)
		for port, svc := range b.HostPorts().Ingress {
			hc := b.Model.Services[svc].HealthCheck
			healthy := hc != nil && !hc.Disable && len(hc.Test) > 0 && hc.Test[0] != "NONE"
			out[port] = meshPort{service: svc, healthy: healthy && slices.Contains(deps, svc)}
		}
	}
	return out
}

// meshOf is the mesh port dsn names and its number, if it names one.
func (x *samplers) meshOf(dsn string) (meshPort, uint16, bool) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil || x.mesh == nil {
		return meshPort{}, 0, false
	}
	m, ok := x.mesh[cfg.Port]
	return m, cfg.Port, ok
}

// connectError is prepare's bad input of field for err, the DSN's error:
// where dsn names a mesh port and nothing answered there, it says so and
// how to publish instead.
func (x *samplers) connectError(field, env, dsn string, err error) error {
	var ce *metrics.ConnectError
	m, port, mesh := x.meshOf(dsn)
	if !mesh || !errors.As(err, &ce) || ce.Refused {
		return &sweep.BadInputError{Field: field, Msg: err.Error() + "; check the DSN (or " + env + ")", Err: err}
	}
	state := fmt.Sprintf("service %s runs", m.service)
	if m.healthy {
		state = fmt.Sprintf("service %s is healthy", m.service)
	}
	msg := fmt.Sprintf("%s; %s; %s (or %s)", ce.Error(), state, swarm.MeshHint(port, m.service, field), env)
	return &sweep.BadInputError{Field: field, Msg: msg, Err: err}
}

// waitFor is how prepare waits for what at dsn: up to the ready timeout,
// or meshWait at a mesh port of a healthy service, saying so once the
// wait has lasted a few seconds.
func (x *samplers) waitFor(what, dsn string) metrics.Wait {
	wait := x.wait
	if m, _, ok := x.meshOf(dsn); ok && m.healthy {
		wait = min(wait, meshWait)
	}
	return metrics.Wait{For: wait, Notify: func(err error) {
		x.notify(Waiting{What: what, For: wait, Err: err})
	}}
}
