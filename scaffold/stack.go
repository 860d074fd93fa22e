// Package scaffold writes the first sweep.yaml of a user's stack (sweep
// init). It reads the stack as the backends read it (compose's model of
// the compose files, kube's manifests), guesses the target service, the
// variables of its web threads and pool with their values today, its
// readiness, the database's DSN and the CPU budget, says why for each,
// and marks what it could not guess with a TODO line that `sweep check`
// names (TODOs). Beside it goes a scenario for the built-in driver, from
// nothing or from a browser's recording (a HAR file).
//
// It is pure: the caller reads the files and writes the results, so
// every guess is a function of parsed input a test can state. Compose
// files and manifests are first turned into one small model of services
// (stack), so each guess is written once for both platforms.
package scaffold

import (
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// platform is what runs the stack: what the config says and how the
// target and its database are reached.
type platform int

const (
	onCompose platform = iota
	onKubernetes
)

// platformWords are how init's messages name a platform's things.
type platformWords struct {
	service     string // what runs a database
	target      string // what a target is
	serves      string // how a target serves HTTP where sweep reaches it
	reachedBy   string // how init sees that a service reaches another
	unreachable string // why sweep cannot reach a service
}

func (p platform) words() platformWords {
	if p == onKubernetes {
		return platformWords{service: "Deployment or StatefulSet", target: "Deployment", serves: "has a Service with an HTTP port",
			reachedBy: "a DSN or host name in its environment", unreachable: "has no Service"}
	}
	return platformWords{service: "service", target: "service", serves: "publishes an HTTP port on the host",
		reachedBy: "depends_on, links, or a DSN or host name in its environment", unreachable: "publishes no port on the host"}
}

// stack is the user's stack as init reads it, whatever the platform.
type stack struct {
	on       platform
	services []service
}

// service is one service of the stack: a compose service, or a
// Deployment or StatefulSet with the container init reads.
type service struct {
	kind  string // "service" on compose; Deployment or StatefulSet
	name  string
	image string
	env   []envVar // sorted by name
	// names are the host names other services reach it by: the compose
	// service's name, the names of the Kubernetes Services selecting it.
	names []string
	// addrs are where sweep reaches it: ports published on the host,
	// the ports of its Kubernetes Services.
	addrs     []addr
	dependsOn []string
	// health is its healthcheck's command as one line, or its readiness
	// probe's kind; "" for none. probePath is an HTTP probe's path.
	health    string
	probePath string
	cpus      float64 // its CPU limit; 0 for none
	// container names the container read when the pod has several
	// (Kubernetes); containers is how many it has.
	container  string
	containers int
}

// envVar is one variable of a service; a value the files do not hold
// (a Kubernetes secret's, an unset compose variable) is not known.
type envVar struct {
	name, value string
	known       bool
}

// addr is a port sweep reaches a service at: host:port, forwarded to the
// container's port target.
type addr struct {
	host         string
	port, target int
}

// hostPort is the address as a URL's or DSN's host part.
func (a addr) hostPort() string { return net.JoinHostPort(a.host, strconv.Itoa(a.port)) }

// service is the service of st named name.
func (st stack) service(name string) (service, bool) {
	i := slices.IndexFunc(st.services, func(s service) bool { return s.name == name })
	if i < 0 {
		return service{}, false
	}
	return st.services[i], true
}

// lookup is the variable name of s, if s has it.
func (s service) lookup(name string) (envVar, bool) {
	i := slices.IndexFunc(s.env, func(e envVar) bool { return e.name == name })
	if i < 0 {
		return envVar{}, false
	}
	return s.env[i], true
}

// value is the known value of the variable name of s, or "".
func (s service) value(name string) string {
	e, _ := s.lookup(name)
	return e.value
}

// reaches reports whether s depends on other (depends_on, links) or
// names one of its host names in a variable (a DSN, a host, host:port).
func (s service) reaches(other service) bool {
	if slices.Contains(s.dependsOn, other.name) {
		return true
	}
	for _, e := range s.env {
		for _, h := range hostsIn(e.value) {
			if slices.Contains(other.names, h) {
				return true
			}
		}
	}
	return false
}

// hostsIn finds the host names a variable's value may name: a URL's
// (postgres://u@db:5432/x, jdbc:postgresql://db/x), a libpq conninfo's
// host=, or the value itself when it is a host or host:port.
func hostsIn(v string) []string {
	v = strings.TrimSpace(v)
	if strings.Contains(v, "://") {
		u, err := url.Parse(strings.TrimPrefix(v, "jdbc:"))
		if err != nil {
			return nil
		}
		return []string{u.Hostname()}
	}
	var hosts []string
	for _, f := range strings.Fields(v) {
		if h, ok := strings.CutPrefix(f, "host="); ok {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) > 0 || strings.ContainsAny(v, " =/@") {
		return hosts
	}
	if h, _, err := net.SplitHostPort(v); err == nil {
		return []string{h}
	}
	return []string{v}
}
