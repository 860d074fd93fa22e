package report

import (
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// poolShapes are the three places a run's pool lives: one per target
// process, one per web worker of the target, in a pooler service.
var poolShapes = []struct {
	name    string
	poolEnv string
	perWeb  bool
	// conns is what a cell of web 2 and pool 4 lets the database see.
	conns int
	// says is what the rule of thumb's note says the measured pool is.
	says string
}{
	{"pool per process", "DB_POOL", false, 4, "the measured pool is the target's, one per replica"},
	{"pool per web worker", "DB_POOL", true, 8, "the measured figure is DB_POOL × WEB_THREADS: each web worker holds a pool of its own, in each replica"},
	{"pool in a pooler", "pgbouncer:DEFAULT_POOL_SIZE", false, 4,
		"the measured pool is service pgbouncer's: the pooler's server connections, whatever the target's clients"},
}

// shapedRun is a run of one cell (1 CPU, web 2, pool 4) whose pool lives
// where shape says, with reps.
func shapedRun(poolEnv string, perWeb bool, reps ...results.Rep) *results.Run {
	return &results.Run{RunID: "r", Service: "app", WebEnv: "WEB_THREADS", PoolEnv: poolEnv, PoolPerWeb: perWeb, HostCPUs: 2,
		Cells: []results.RunCell{{CellInfo: results.CellInfo{ID: "cpu_1__web_2__db_4", CPUs: 1, WebThreads: 2, DBPool: 4,
			WebMult: 2, DBMult: 2, Mults: [][2]float64{{2, 2}}}, Reps: reps}}}
}

// TestPoolBottleneckPerShape: a cell is pool-starved when the sessions
// busy at once reach what its pools let the database see (as sweep
// limits judges a level), wherever the pool lives.
func TestPoolBottleneckPerShape(t *testing.T) {
	t.Parallel()
	for _, shape := range poolShapes {
		for _, peak := range []int{shape.conns - 1, shape.conns} {
			want := BottleneckNone
			if peak >= shape.conns {
				want = BottleneckPool
			}
			rep, err := Build(shapedRun(shape.poolEnv, shape.perWeb, okRep(100, 5, 0, usage(10, 10, peak))), DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.Cells[0].Bottleneck; got != want {
				t.Errorf("%s, %d sessions busy of %d: %q, want %q", shape.name, peak, shape.conns, got, want)
			}
		}
	}
}

// TestPoolRulePerShape: the rule of thumb, which sizes the connections
// the database sees, is set beside what the measured pool lets it see,
// and the note says what that is.
func TestPoolRulePerShape(t *testing.T) {
	t.Parallel()
	for _, shape := range poolShapes {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			rep, err := Build(shapedRun(shape.poolEnv, shape.perWeb, okRep(100, 5, 0, usage(10, 10, 1))), DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.PoolRules) != 1 || rep.PoolRules[0].Throughput.Pool != shape.conns || rep.PoolRules[0].Pool != 4 {
				t.Fatalf("pool rules %+v, want the rule's 4 against %d", rep.PoolRules, shape.conns)
			}
			table, _ := poolRuleTable(rep)
			if !strings.Contains(table.Note, shape.says) {
				t.Errorf("note %q lacks %q", table.Note, shape.says)
			}
		})
	}
}
