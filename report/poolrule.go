package report

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/sweep-tool/sweep/sweep"
)

// EffectiveSpindles is the spindle term of the pool-sizing rule of thumb:
// 0, for a data set the database holds in cache (the demo keeps its data
// in tmpfs), where waiting on disk does not free a core for another
// connection.
const EffectiveSpindles = 0

// Where a PoolRule's cores come from.
const (
	// CoresFromDB: the database container's resources.<db>.cpu_limit_cores
	// in the records, its CPU limit (the engine's CPUs when it has none).
	CoresFromDB = "db container"
	// CoresFromHost: the host's CPU count in sweep.json, for a run whose
	// records carry no database container figures.
	CoresFromHost = "host"
)

// PoolRule sets the widely used pool-sizing rule of thumb for PostgreSQL
// (the PostgreSQL wiki's "Number Of Database Connections", HikariCP's
// "About Pool Sizing"), connections ≈ 2 × cores + effective spindles,
// beside one CPU limit's measured best pools, counted as the connections
// they let the database see (sweep.PoolShape.Conns: pool × web workers
// with a pool per worker). It is a hint for the database side, not a
// measurement: the rule sizes the database's active connections from its
// cores, the sweep measures the target's pool or a pooler's.
type PoolRule struct {
	CPUs float64 `json:"cpus"`
	// DBCores are the database's cores and CoresFrom where they come
	// from (CoresFromDB or CoresFromHost).
	DBCores   float64 `json:"db_cores"`
	CoresFrom string  `json:"cores_from"`
	// Pool is 2 × DBCores + EffectiveSpindles, rounded half to even as
	// the grid rounds.
	Pool int `json:"pool"`
	// Throughput and Latency are the best RPS cell's and the best P99
	// cell's pools, as connections.
	Throughput PoolMatch `json:"throughput"`
	Latency    PoolMatch `json:"latency"`
}

// PoolMatch is a measured best pool against the rule.
type PoolMatch struct {
	Cell string `json:"cell"`
	Pool int    `json:"pool"`
	// PoolLo and PoolHi span the pools of the best cell and the cells
	// the data cannot separate from it.
	PoolLo int `json:"pool_lo"`
	PoolHi int `json:"pool_hi"`
	// DistancePct is (Pool − rule) / rule × 100; WithinTies says whether
	// the rule's pool lies in [PoolLo, PoolHi].
	DistancePct float64 `json:"distance_pct"`
	WithinTies  bool    `json:"within_ties"`
}

// poolRules applies the rule at every CPU limit whose database cores are
// known: from the records of dbService, else the host's CPU count; pool
// is where the pools lived.
func poolRules(per []*CPUReport, pool sweep.PoolShape, dbService string, hostCPUs int) []PoolRule {
	var out []PoolRule
	for _, cr := range per {
		r := PoolRule{CPUs: cr.CPUs, DBCores: dbCores(cr, dbService), CoresFrom: CoresFromDB}
		if r.DBCores == 0 {
			r.DBCores, r.CoresFrom = float64(hostCPUs), CoresFromHost
		}
		if r.DBCores <= 0 {
			continue
		}
		r.Pool = sweep.RoundHalfEven(2*r.DBCores + EffectiveSpindles)
		r.Throughput = poolMatch(cr.BestRPS, pool, r.Pool)
		r.Latency = poolMatch(cr.BestP99, pool, r.Pool)
		out = append(out, r)
	}
	return out
}

// dbCores is the database container's CPU limit in the first ok
// repetition of the limit's cells that recorded it; 0 when none did.
func dbCores(cr *CPUReport, service string) float64 {
	for _, c := range cr.Cells {
		for _, r := range c.reps {
			if u, ok := r.Resources[service]; ok && u.CPULimitCores > 0 {
				return u.CPULimitCores
			}
		}
	}
	return 0
}

// poolMatch sets pick p's pool and its ties', as the connections they
// let the database see, beside the rule's.
func poolMatch(p Pick, pool sweep.PoolShape, rule int) PoolMatch {
	conns := func(c *Cell) int { return pool.Conns(c.DBPool, c.WebThreads) }
	pools := []int{conns(p.Cell)}
	for _, t := range p.Ties {
		pools = append(pools, conns(t))
	}
	m := PoolMatch{Cell: p.Cell.ID, Pool: pools[0], PoolLo: slices.Min(pools), PoolHi: slices.Max(pools)}
	m.DistancePct = 100 * float64(m.Pool-rule) / float64(rule)
	m.WithinTies = rule >= m.PoolLo && rule <= m.PoolHi
	return m
}

// poolRuleTable is the rule beside the measured best pools per CPU limit;
// false when no limit has the database's cores.
func poolRuleTable(rep *Report) (table, bool) {
	t := table{
		Title: "Pool size: the rule of thumb beside the measured best (a hint for the database side)",
		Header: []string{"CPU", "DB cores", "rule: 2 × cores + 0", "best " + measuredName(rep) + " for RPS", "vs rule",
			"best " + measuredName(rep) + " for P99", "vs rule"},
	}
	for _, r := range rep.PoolRules {
		t.Rows = append(t.Rows, []string{sweep.FormatNumber(r.CPUs),
			sweep.FormatNumber(r.DBCores) + " (" + r.CoresFrom + ")", strconv.Itoa(r.Pool),
			matchPool(r.Throughput), matchDistance(r.Throughput), matchPool(r.Latency), matchDistance(r.Latency)})
	}
	t.Note = "Rule of thumb from the PostgreSQL wiki (\"Number Of Database Connections\") and HikariCP (\"About Pool " +
		"Sizing\"): connections ≈ 2 × cores + effective spindles, spindles 0 for a data set held in cache; cores are " +
		"the database container's CPU limit (resources." + rep.Options.DBService + ".cpu_limit_cores, the engine's " +
		"CPUs when it has none), else the host's CPU count. It sizes the database's active connections, all clients " +
		"together; " + measuredPool(rep) + ". A hint for the database side, not a measurement. " +
		"Pools in brackets span the cells the data cannot separate from the best; vs rule is (best − rule) / rule, " +
		markTie + " when the rule's pool lies within that span."
	return t, len(t.Rows) > 0
}

// measuredName is what the table sets beside the rule: the pool, or the
// pool × the web workers when each holds one.
func measuredName(rep *Report) string {
	if rep.Pool.PerWeb {
		return rep.PoolEnv + " × " + rep.WebEnv
	}
	return "pool"
}

// measuredPool says what the measured pool is, for the database: the
// target's pool per replica, one per web worker, or a pooler's.
func measuredPool(rep *Report) string {
	switch {
	case rep.Pool.Service != "":
		return fmt.Sprintf("the measured pool is service %s's: the pooler's server connections, whatever the target's clients", rep.Pool.Service)
	case rep.Pool.PerWeb:
		return fmt.Sprintf("the measured figure is %s × %s: each web worker holds a pool of its own, in each replica",
			rep.PoolEnv, rep.WebEnv)
	}
	return "the measured pool is the target's, one per replica"
}

// poolRuleParas say why there is no rule-of-thumb table, when there is none.
func poolRuleParas(rep *Report) []string {
	if len(rep.PoolRules) > 0 {
		return nil
	}
	return []string{"No rule of thumb: the records carry no CPU limit of the database service " +
		rep.Options.DBService + " and sweep.json no host CPU count."}
}

func matchPool(m PoolMatch) string {
	if m.PoolLo == m.PoolHi {
		return strconv.Itoa(m.Pool)
	}
	return strconv.Itoa(m.Pool) + " [" + strconv.Itoa(m.PoolLo) + "–" + strconv.Itoa(m.PoolHi) + "]"
}

func matchDistance(m PoolMatch) string {
	s := fmt.Sprintf("%+.0f %%", m.DistancePct)
	if m.WithinTies {
		s += " " + markTie
	}
	return s
}
