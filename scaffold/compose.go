package scaffold

import (
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/sweep-tool/sweep/compose"
)

// fromCompose is the stack of compose files as compose read them.
func fromCompose(b compose.Base) stack {
	st := stack{on: onCompose}
	for _, name := range b.Services {
		svc := b.Model.Services[name]
		s := service{kind: "service", name: name, image: b.Images[name], names: []string{name}, dependsOn: b.DependsOn[name],
			health: composeHealth(svc.HealthCheck), cpus: composeCPUs(svc)}
		for _, n := range svc.Networks {
			if n != nil {
				s.names = append(s.names, n.Aliases...)
			}
		}
		for k, v := range svc.Environment {
			e := envVar{name: k, known: v != nil}
			if v != nil {
				e.value = *v
			}
			s.env = append(s.env, e)
		}
		slices.SortFunc(s.env, func(a, b envVar) int { return strings.Compare(a.name, b.name) })
		s.addrs = publishedPorts(svc.Ports)
		st.services = append(st.services, s)
	}
	return st
}

// composeHealth is a healthcheck's command as one line ("" when there is
// none or it is disabled).
func composeHealth(h *types.HealthCheckConfig) string {
	if h == nil || h.Disable || len(h.Test) == 0 || h.Test[0] == "NONE" {
		return ""
	}
	test := h.Test
	if test[0] == "CMD" || test[0] == "CMD-SHELL" {
		test = test[1:]
	}
	return strings.Join(test, " ")
}

// composeCPUs is the service's CPU limit, where the files keep it.
func composeCPUs(svc types.ServiceConfig) float64 {
	if svc.CPUS > 0 {
		return float64(svc.CPUS)
	}
	if d := svc.Deploy; d != nil && d.Resources.Limits != nil {
		return float64(d.Resources.Limits.NanoCPUs)
	}
	return 0
}

// publishedPorts are the TCP ports a service publishes on the host, each
// at the address it is bound to (127.0.0.1 for every address).
func publishedPorts(ports []types.ServicePortConfig) []addr {
	var out []addr
	for _, p := range ports {
		if p.Protocol != "" && p.Protocol != "tcp" {
			continue
		}
		published := compose.PortRange(p.Published)
		if len(published) == 0 {
			continue // the engine picks the port: none the files can name
		}
		host := p.HostIP
		switch host {
		case "", "0.0.0.0", "::":
			host = "127.0.0.1"
		}
		out = append(out, addr{host: host, port: int(published[0]), target: int(p.Target)})
	}
	return out
}
