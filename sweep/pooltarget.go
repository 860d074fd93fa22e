package sweep

import "strings"

// PoolTarget is where a cell's pool size goes: a variable of the target
// (Service empty) or, with --pool-env SERVICE:NAME, of another service
// of the stack (PgBouncer's default_pool_size), which is then recreated
// with every cell as an env axis of that service is.
type PoolTarget struct {
	Service string `json:"service,omitempty"`
	Name    string `json:"name"`
}

// PoolTarget reads Spec.PoolEnv: NAME, or SERVICE:NAME; the target's own
// service named is the target.
func (s Spec) PoolTarget() PoolTarget {
	svc, name, ok := strings.Cut(s.PoolEnv, ":")
	if !ok {
		return PoolTarget{Name: s.PoolEnv}
	}
	if svc == s.Service {
		svc = ""
	}
	return PoolTarget{Service: svc, Name: name}
}

// String is the pool variable as given to --pool-env.
func (p PoolTarget) String() string {
	if p.Service == "" {
		return p.Name
	}
	return p.Service + ":" + p.Name
}

// validPoolEnv checks --pool-env: a variable name, or SERVICE:NAME; a
// pool in another service is not per web worker.
func (s Spec) validPoolEnv() error {
	svc, name, ok := strings.Cut(s.PoolEnv, ":")
	switch {
	case !ok:
		return nil
	case !serviceRe.MatchString(svc):
		return BadInput("pool_env", "%q is not a compose service name; give NAME or SERVICE:NAME", svc)
	case !envNameRe.MatchString(name):
		return BadInput("pool_env", "%q is not an environment variable name; give NAME or SERVICE:NAME", name)
	case s.PoolPerWeb && s.PoolTarget().Service != "":
		return BadInput("pool_per_web", "the pool goes to service %s ({pool_env} %s), not to the target's web workers; "+
			"drop {pool_per_web} or the service", svc, s.PoolEnv)
	}
	return nil
}

// setServiceEnv sets name=v on service svc in cfg.ServiceEnv.
func setServiceEnv(cfg *TargetConfig, svc, name, v string) {
	if cfg.ServiceEnv == nil {
		cfg.ServiceEnv = map[string]map[string]string{}
	}
	if cfg.ServiceEnv[svc] == nil {
		cfg.ServiceEnv[svc] = map[string]string{}
	}
	cfg.ServiceEnv[svc][name] = v
}
