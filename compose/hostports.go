package compose

import (
	"slices"
	"strconv"
	"strings"
)

// HostPorts are the TCP ports of the host the base files' services
// publish, as far as the files tell before anything starts.
type HostPorts struct {
	// Published lists every published port (each port of a range, on any
	// host address, ingress or host mode), sorted, without duplicates.
	Published []uint16
	// HostNetwork names a service that shares the host's network
	// (network_mode: host): it may listen on any port of the host without
	// publishing it. Empty when none does.
	HostNetwork string
	// Ingress maps each port published in mode ingress (compose's default:
	// on a swarm, through its routing mesh, which answers on every node)
	// to the service that publishes it.
	Ingress map[uint16]string
}

// Publishes reports whether port may be served on the host by a service
// of the files: it is published, or a service shares the host's network.
func (h HostPorts) Publishes(port uint16) bool {
	return h.HostNetwork != "" || slices.Contains(h.Published, port)
}

// HostPorts reads the TCP ports the base files publish on the host. A
// port left to the engine to choose (no published port) is none the
// files can name.
func (b Base) HostPorts() HostPorts {
	h := HostPorts{Ingress: map[uint16]string{}}
	if b.Model == nil {
		return h
	}
	for _, name := range b.Services {
		svc := b.Model.Services[name]
		if svc.NetworkMode == "host" && h.HostNetwork == "" {
			h.HostNetwork = name
		}
		for _, p := range svc.Ports {
			if p.Protocol != "" && p.Protocol != "tcp" {
				continue
			}
			ports := PortRange(p.Published)
			h.Published = append(h.Published, ports...)
			if p.Mode == "" || p.Mode == "ingress" {
				for _, port := range ports {
					h.Ingress[port] = name
				}
			}
		}
	}
	slices.Sort(h.Published)
	h.Published = slices.Compact(h.Published)
	return h
}

// PortRange is the ports of a published port, "15432" or "8000-8010";
// none when it is empty or unreadable.
func PortRange(s string) []uint16 {
	lo, hi, isRange := strings.Cut(s, "-")
	if !isRange {
		hi = lo
	}
	a, err1 := strconv.ParseUint(lo, 10, 16)
	z, err2 := strconv.ParseUint(hi, 10, 16)
	if err1 != nil || err2 != nil || a > z {
		return nil
	}
	var out []uint16
	for p := a; p <= z; p++ {
		out = append(out, uint16(p))
	}
	return out
}
