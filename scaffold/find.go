package scaffold

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sweep-tool/sweep/sweep"
)

// postgresEnv are the variables of PostgreSQL's server image: a service
// with one of them (and no client's PGHOST or POSTGRES_HOST) is one.
var postgresEnv = []string{"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_PASSWORD_FILE", "POSTGRES_DB",
	"POSTGRES_HOST_AUTH_METHOD", "POSTGRES_INITDB_ARGS"}

// poolerImages are the connection poolers in front of PostgreSQL: never
// the target.
var poolerImages = []string{"pgbouncer", "pgpool", "odyssey", "pgcat", "supavisor"}

// nonHTTPPorts are container ports of databases, poolers and brokers; a
// published port of another number may be HTTP.
var nonHTTPPorts = []int{5432, 6432, 3306, 6379, 11211, 27017, 5672, 9092, 2181, 4222}

// httpPorts are the container ports web servers usually listen on, the
// likelier URL when a service publishes several.
var httpPorts = []int{80, 8080, 8000, 3000, 5000, 8081, 8888, 9000, 4000, 443, 8443}

// imageName is an image reference's name: no registry, path, tag or
// digest ("docker.io/library/postgres:15" is postgres).
func imageName(ref string) string {
	ref, _, _ = strings.Cut(ref, "@")
	ref = ref[strings.LastIndex(ref, "/")+1:]
	name, _, _ := strings.Cut(ref, ":")
	return strings.ToLower(name)
}

// isPostgres says whether s is a PostgreSQL server, and why.
func isPostgres(s service) (bool, string) {
	if n := imageName(s.image); strings.HasPrefix(n, "postgres") || strings.HasPrefix(n, "postgis") {
		return true, "its image is " + s.image
	}
	if _, client := s.lookup("PGHOST"); client {
		return false, ""
	}
	if _, client := s.lookup("POSTGRES_HOST"); client {
		return false, ""
	}
	for _, name := range postgresEnv {
		if _, ok := s.lookup(name); ok {
			return true, "its environment has " + name
		}
	}
	return false, ""
}

// isPooler reports whether s is a connection pooler, by its image.
func isPooler(s service) bool {
	n := imageName(s.image)
	return slices.ContainsFunc(poolerImages, func(p string) bool { return strings.Contains(n, p) })
}

// httpAddr is the address of s that likely serves HTTP: a usual web
// port, else the first that is no database's or broker's.
func httpAddr(s service) (addr, bool) {
	for _, p := range httpPorts {
		if i := slices.IndexFunc(s.addrs, func(a addr) bool { return a.target == p }); i >= 0 {
			return s.addrs[i], true
		}
	}
	i := slices.IndexFunc(s.addrs, func(a addr) bool { return !slices.Contains(nonHTTPPorts, a.target) })
	if i < 0 {
		return addr{}, false
	}
	return s.addrs[i], true
}

// candidate is a service that may be the target, with the database it
// reaches and how well it fits.
type candidate struct {
	svc    service
	db     service
	via    string // the service it reaches db through; "" directly
	url    addr
	points int
}

// found is what init found in a stack: the target and its database.
type found struct {
	candidate
	why    string   // why db is PostgreSQL
	others []string // the other services that could be the target
}

// find picks the PostgreSQL service and the target that reaches it. The
// stack's files, as source names them, are the field's input in errors.
func find(st stack, field, source string) (found, error) {
	dbs := map[string]string{}
	for _, s := range st.services {
		if ok, why := isPostgres(s); ok {
			dbs[s.name] = why
		}
	}
	if len(dbs) == 0 {
		return found{}, sweep.BadInput(field, "%s: no PostgreSQL service: sweep init looks for a %s whose image is named postgres* "+
			"(or postgis*) or whose environment has %s", source, st.on.words().service, strings.Join(postgresEnv[:4], ", "))
	}
	var cands []candidate
	for _, s := range st.services {
		if c, ok := asTarget(st, s, dbs); ok {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		w := st.on.words()
		return found{}, sweep.BadInput(field, "%s: no %s %s and reaches %s, the PostgreSQL service (through %s); "+
			"sweep init looks for the web service to sweep there", source, w.target, w.serves,
			strings.Join(slices.Sorted(maps.Keys(dbs)), " or "), w.reachedBy)
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		return cmp.Or(b.points-a.points, strings.Compare(a.svc.name, b.svc.name))
	})
	f := found{candidate: cands[0], why: dbs[cands[0].db.name]}
	for _, c := range cands[1:] {
		f.others = append(f.others, c.svc.name)
	}
	return f, nil
}

// asTarget says whether s can be the target: not a database or pooler,
// serving HTTP where sweep reaches it, and reaching a PostgreSQL
// service directly or through one service it reaches (a pooler).
func asTarget(st stack, s service, dbs map[string]string) (candidate, bool) {
	url, ok := httpAddr(s)
	if _, isDB := dbs[s.name]; isDB || isPooler(s) || !ok || st.on == onKubernetes && s.kind != "Deployment" {
		return candidate{}, false // on Kubernetes sweep targets a Deployment
	}
	c := candidate{svc: s, url: url}
	if c.db, ok = dbOf(st, s, dbs); !ok {
		for _, hop := range st.services {
			if d, found := dbOf(st, hop, dbs); found && hop.name != s.name && s.reaches(hop) {
				c.db, c.via, ok = d, hop.name, true
				break
			}
		}
	}
	if !ok {
		return candidate{}, false
	}
	c.points = len(knobsOf(s, webScore))*2 + len(knobsOf(s, poolScore))
	if c.via == "" {
		c.points += 2
	}
	if s.health != "" {
		c.points++
	}
	return c, true
}

// dbOf is the PostgreSQL service s reaches directly.
func dbOf(st stack, s service, dbs map[string]string) (service, bool) {
	for _, d := range st.services {
		if _, isDB := dbs[d.name]; isDB && d.name != s.name && s.reaches(d) {
			return d, true
		}
	}
	return service{}, false
}

// describe is the target's address as the notes say it.
func (f found) describe(on platform) string {
	if on == onKubernetes {
		return fmt.Sprintf("the Service %s selects its pods", f.url.host)
	}
	return fmt.Sprintf("it publishes %s (port %d)", f.url.hostPort(), f.url.target)
}
