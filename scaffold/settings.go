package scaffold

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sweep-tool/sweep/sweep"
)

// A Setting is one key init writes into sweep.yaml (a flag's name) with
// its value, and Why: the comment above it, which init prints too. A
// Todo is what init could not guess: its comment is a TODO line that
// `sweep check` names until it is deleted. A Setting without a Key is a
// comment alone; one without a Value leaves the flag at its default.
type Setting struct {
	Key   string
	Value any // string, []string, []float64 or bool
	Why   string
	Todo  bool
}

// settings are the keys of sweep.yaml for the target init found in st.
func settings(st stack, f found, files []string) []Setting {
	out := platformSettings(st, f, files)
	out = append(out, knobSettings(st, f)...)
	out = append(out, readiness(st, f.svc))
	out = append(out, dsn(st, f.db))
	return append(out, cpus(f.svc))
}

// platformSettings are the stack's files, the target and its URL.
func platformSettings(st stack, f found, files []string) []Setting {
	reach := fmt.Sprintf("reaches %s, the PostgreSQL %s (%s)", f.db.name, f.db.kind, f.why)
	if f.via != "" {
		reach += ", through " + f.via
	}
	target := Setting{Key: "service", Value: f.svc.name, Why: fmt.Sprintf("The target: %s and %s.", f.describe(st.on), reach)}
	if len(f.others) > 0 {
		target.Why += fmt.Sprintf(" Could be too: %s (name another with service).", strings.Join(f.others, ", "))
	}
	url := f.baseURL().String()
	if st.on == onCompose {
		return []Setting{{Key: "compose", Value: files}, target,
			{Key: "url", Value: url, Why: fmt.Sprintf("Where the load goes: %s's port %d as the host reaches it.", f.svc.name, f.url.target)}}
	}
	out := []Setting{{Key: "kubernetes", Value: true, Why: "The stack, applied in a namespace of the run's own."},
		{Key: "manifests", Value: files}, target}
	if f.svc.containers > 1 {
		out = append(out, Setting{Key: "container", Value: f.svc.container,
			Why: fmt.Sprintf("Of %s's %d containers, the one whose variables look like knobs.", f.svc.name, f.svc.containers)})
	}
	return append(out,
		Setting{Key: "url", Value: url, Why: fmt.Sprintf("Where the load goes: the Service %s as a pod sees it (the load runs as a Job in the cluster).", f.url.host)},
		Setting{Key: "load-image", Value: "sweep-drive:latest", Todo: true,
			Why: "The image holding sweep that the load's Jobs run; the nodes must have it or pull it (make demo-images builds sweep-drive:<hash>)."})
}

// knobSettings are the variables of the web threads and the pool, and
// the values they have today as the baseline.
func knobSettings(st stack, f found) []Setting {
	web, pool := knobsOf(f.svc, webScore), knobsOf(f.svc, poolScore)
	if len(pool) == 0 {
		pool = poolElsewhere(st, f.svc)
	}
	var out []Setting
	if len(web) == 0 {
		out = append(out, Setting{Key: "web-env", Todo: true, Why: fmt.Sprintf("The variable that sets %s's web threads: "+
			"none of its variables with an integer value has %s in its name.", f.svc.name, wordList(webWords))})
	} else {
		out = append(out, Setting{Key: "web-env", Value: web[0].name, Why: "Web threads: " + knobWhy(web, f.svc.name)})
	}
	if len(pool) == 0 {
		out = append(out, Setting{Key: "pool-env", Todo: true, Why: fmt.Sprintf("The variable that sets %s's database pool: "+
			"none of its variables with an integer value, nor those of the services it reaches, has %s in its name.",
			f.svc.name, wordList(poolWords))})
		return out
	}
	name := pool[0].name
	if pool[0].service != f.svc.name {
		name = pool[0].service + ":" + name
	}
	out = append(out, Setting{Key: "pool-env", Value: name, Why: "Database pool: " + knobWhy(pool, f.svc.name)})
	if pooler, ok := st.service(pool[0].service); ok && isPooler(pooler) && len(pooler.addrs) > 0 {
		out = append(out, Setting{Why: fmt.Sprintf("%s's pool stats per cell (clients waiting, server connections): "+
			"its admin console's DSN in the environment, where sweep reads it, with its user and password:\n"+
			"  export SWEEP_POOLER_DSN='postgres://USER:%s@%s/pgbouncer?sslmode=disable'", pooler.name, dsnPassword, pooler.addrs[0].hostPort())})
	}
	if len(web) > 0 {
		out = append(out, Setting{Key: "baseline", Value: fmt.Sprintf("web=%s,pool=%s", web[0].value, pool[0].value),
			Why: "Your settings today: one more cell per CPU limit, which the picks' gain is measured against."})
	}
	return out
}

// poolElsewhere are the pool knobs of the services the target reaches
// (a pooler's pool, set on that service), the likeliest first.
func poolElsewhere(st stack, target service) []knob {
	var out []knob
	for _, s := range st.services {
		if s.name != target.name && target.reaches(s) {
			if ks := knobsOf(s, poolScore); len(ks) > 0 {
				out = append(out, ks[0])
			}
		}
	}
	return out
}

// knobWhy says which variable init took and why, and the others it
// passed over; target names the target service.
func knobWhy(ks []knob, target string) string {
	k := ks[0]
	why := fmt.Sprintf("%s (%s today): its name has %s.", k.name, k.value, k.word)
	if k.service != target {
		why = fmt.Sprintf("%s of %s (%s today): its name has %s; that service is recreated with every cell.", k.name, k.service, k.value, k.word)
	}
	if len(ks) > 1 {
		why += " Others that look alike: " + strings.Join(names(ks[1:]), ", ") + "."
	}
	return why
}

func wordList(ws []word) string {
	var out []string
	for _, w := range ws {
		out = append(out, w.text)
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}

// readyPathRe finds the path of an HTTP URL (curl, wget) or of a raw
// request line (GET /health HTTP/1.0) in a healthcheck's command.
var readyPathRe = regexp.MustCompile(`https?://[^/\s'"]+(/[^\s'"|;&]*)|GET (/\S*) HTTP/`)

// readiness is the ready path from the target's healthcheck or probe.
func readiness(st stack, s service) Setting {
	path := s.probePath
	if m := readyPathRe.FindStringSubmatch(s.health); m != nil && path == "" {
		path = m[1] + m[2]
	}
	switch {
	case path != "" && st.on == onKubernetes:
		return Setting{Key: "ready-path", Value: path, Why: fmt.Sprintf("Readiness: %s's readiness probe (GET %s); the scenario starts from it.", s.name, path)}
	case path != "":
		return Setting{Key: "ready-path", Value: path, Why: fmt.Sprintf("Readiness: %s's healthcheck, which asks for %s.", s.name, path)}
	case st.on == onKubernetes && s.health != "":
		return Setting{Why: fmt.Sprintf("Readiness: %s's readiness probe, which is not an HTTP GET.", s.name)}
	case st.on == onKubernetes:
		return Setting{Why: fmt.Sprintf("Readiness: %s has no readiness probe, so a cell starts once its rollout is complete; "+
			"an httpGet readinessProbe in the manifest makes it wait for the app.", s.name)}
	case s.health != "":
		return Setting{Why: fmt.Sprintf("Readiness: %s's healthcheck, which names no HTTP path; sweep waits until Docker calls it healthy.", s.name)}
	}
	return Setting{Key: "ready-path", Value: "/health", Todo: true,
		Why: fmt.Sprintf("The path that answers HTTP 200 once %s is ready: it has no healthcheck, and /health is a guess.", s.name)}
}

// cpus is the target's CPU limit today as the budget to measure.
func cpus(s service) Setting {
	if s.cpus > 0 {
		return Setting{Key: "cpus", Value: []float64{s.cpus}, Why: fmt.Sprintf("The CPU budget: %s's CPU limit today (%s); "+
			"add the budgets to compare (each multiplies the grid).", s.name, sweep.FormatNumber(s.cpus))}
	}
	return Setting{Key: "cpus", Value: []float64{2, 4}, Todo: true,
		Why: fmt.Sprintf("The CPU budgets to measure: %s has no CPU limit today (each budget multiplies the grid).", s.name)}
}
