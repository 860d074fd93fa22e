package report

import (
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestPoolRuleColumn pins the rule-of-thumb figures of the mixed fixture,
// whose database container has a 2-CPU limit: rule 2 × 2 + 0 = 4 against
// the best pools, their ties' span and the distance in percent.
func TestPoolRuleColumn(t *testing.T) {
	t.Parallel()
	rep := buildFixture(t, "mixed")
	want := []PoolRule{
		{CPUs: 1, DBCores: 2, CoresFrom: CoresFromDB, Pool: 4,
			Throughput: PoolMatch{Cell: "cpu_1__web_2__db_6", Pool: 6, PoolLo: 3, PoolHi: 6, DistancePct: 50, WithinTies: true},
			Latency:    PoolMatch{Cell: "cpu_1__web_1__db_2", Pool: 2, PoolLo: 2, PoolHi: 2, DistancePct: -50}},
		{CPUs: 2, DBCores: 2, CoresFrom: CoresFromDB, Pool: 4,
			Throughput: PoolMatch{Cell: "cpu_2__web_4__db_6", Pool: 6, PoolLo: 6, PoolHi: 12, DistancePct: 50},
			Latency:    PoolMatch{Cell: "cpu_2__web_2__db_3", Pool: 3, PoolLo: 3, PoolHi: 4, DistancePct: -25, WithinTies: true}},
	}
	if len(rep.PoolRules) != len(want) {
		t.Fatalf("pool rules %+v, want %+v", rep.PoolRules, want)
	}
	for i, w := range want {
		if rep.PoolRules[i] != w {
			t.Errorf("CPU %g:\n got %+v\nwant %+v", w.CPUs, rep.PoolRules[i], w)
		}
	}
}

// TestPoolRuleCores: the database container's limit wins over the host's
// CPUs; without it the host's count is used, labelled; without either
// there is no rule. Fractional cores round as the grid does.
func TestPoolRuleCores(t *testing.T) {
	t.Parallel()
	cell := func(id string, pool int, db *results.ResourceStats) *Cell {
		c := &Cell{CellInfo: results.CellInfo{ID: id, DBPool: pool}}
		rec := results.Record{Resources: map[string]results.ResourceStats{"app": {CPULimitCores: 1}}}
		if db != nil {
			rec.Resources["postgres"] = *db
		}
		c.reps = []results.Rep{{Record: rec}}
		return c
	}
	cases := []struct {
		name      string
		db        *results.ResourceStats
		host      int
		cores     float64
		from      string
		pool      int
		distPct   float64
		wantNoRow bool
	}{
		{"db limit over host", &results.ResourceStats{CPULimitCores: 3}, 2, 3, CoresFromDB, 6, -50, false},
		{"db without a figure: host", &results.ResourceStats{}, 2, 2, CoresFromHost, 4, -25, false},
		{"no db block: host", nil, 8, 8, CoresFromHost, 16, -81.25, false},
		{"0.75 cores: 1.5 -> 2", &results.ResourceStats{CPULimitCores: 0.75}, 0, 0.75, CoresFromDB, 2, 50, false},
		{"1.25 cores: 2.5 -> 2", &results.ResourceStats{CPULimitCores: 1.25}, 0, 1.25, CoresFromDB, 2, 50, false},
		{"neither", nil, 0, 0, "", 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			best := cell("cpu_1__web_1__db_3", 3, c.db)
			cr := &CPUReport{CPUs: 1, Cells: []*Cell{best}, BestRPS: Pick{Cell: best}, BestP99: Pick{Cell: best}}
			got := poolRules([]*CPUReport{cr}, sweep.PoolShape{}, "postgres", c.host)
			if c.wantNoRow {
				if len(got) != 0 {
					t.Errorf("rules %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].DBCores != c.cores || got[0].CoresFrom != c.from || got[0].Pool != c.pool ||
				got[0].Throughput.DistancePct != c.distPct || got[0].Latency.Pool != 3 {
				t.Errorf("rules %+v, want cores %g from %s, rule pool %d, distance %g %%", got, c.cores, c.from, c.pool, c.distPct)
			}
		})
	}
}

// TestPoolRuleNeedsCores: a run with neither figure says why it has no
// rule, and shows no table.
func TestPoolRuleNeedsCores(t *testing.T) {
	t.Parallel()
	rep := buildFixture(t, "gop")
	if _, ok := poolRuleTable(rep); ok || len(rep.PoolRules) != 0 {
		t.Errorf("gop fixture: rules %+v, want none", rep.PoolRules)
	}
	want := "No rule of thumb: the records carry no CPU limit of the database service db and sweep.json no host CPU count."
	if got := poolRuleParas(rep); len(got) != 1 || got[0] != want {
		t.Errorf("paragraphs %q, want %q", got, want)
	}
}
