// Command benchparallel measures what running cells side by side on
// several swarm nodes (sweep.Lanes, one stack per node) saves: the same
// cells of the demo are swept once on one node and once on two nodes, in
// one invocation, on the multi-node fixture (make swarm-up), and the two
// runs' recommendations are compared. With two lanes the first cell is
// also measured on both nodes (the control cell), and the spread of its
// RPS says whether the nodes measure alike.
//
// Usage:
//
//	go run ./swarm/benchparallel     (make bench-parallel)
//
// Its last line is `parallel 2 / parallel 1 wall time: R; recommendations
// agree: yes|no`.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"time"

	"github.com/sweep-tool/sweep/internal/swarmfixture"
	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/metrics"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/results/report"
	"github.com/sweep-tool/sweep/swarm"
	"github.com/sweep-tool/sweep/sweep"
)

var files = []string{"compose/demo/docker-compose.yaml", "compose/demo/docker-compose.swarm.yaml"}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchparallel:", err)
		os.Exit(1)
	}
}

// spec is 4 cells small enough that a cell fits one core of a node.
func spec() sweep.Spec {
	return sweep.Spec{CPUs: []float64{0.5, 1}, WebMult: []float64{2, 4}, DBMult: []float64{2},
		Service: "app", WebEnv: "BOX_WEB_THREAD", PoolEnv: "BOX_DB_POOL_MAXIMUM_POOL_SIZE", NameEnv: "BOX_INSTANCE_NAME",
		ReadyPath: "/health", ReadyTimeout: sweep.Duration(3 * time.Minute),
		Warmup: sweep.Duration(2 * time.Second), Duration: sweep.Duration(5 * time.Second),
		Load: sweep.LoadSpec{VUs: 8}, Driver: "builtin", Repeat: 1, Order: sweep.OrderGrid}
}

func run(ctx context.Context, out io.Writer) error {
	st, err := swarmfixture.Load(swarmfixture.Dir())
	if err != nil {
		return err
	}
	nodes := lanesOf(st)
	if len(nodes) < 2 {
		return errors.New("the fixture needs two worker nodes on different CPUs (SWARM_NODES=3 on 2 cores)")
	}
	mgr, err := swarm.ManagerAt(ctx, st.ManagerHost)
	if err != nil {
		return err
	}
	base, err := os.MkdirTemp("", "benchparallel")
	if err != nil {
		return err
	}
	defer os.RemoveAll(base)
	var walls [2]time.Duration
	var profiles [2][]report.Profile
	for i, n := range []int{1, 2} {
		dir := filepath.Join(base, fmt.Sprint("p", n))
		start := time.Now()
		rep, err := sweepOn(ctx, out, mgr, nodes[:n], dir)
		walls[i] = time.Since(start)
		if err != nil {
			return fmt.Errorf("parallel %d: %w", n, err)
		}
		profiles[i] = rep.Profiles
		fmt.Fprintf(out, "parallel %d: %.1f s wall, recommendation %s\n", n, walls[i].Seconds(), describe(rep.Profiles))
	}
	agree := "no"
	if describe(profiles[0]) == describe(profiles[1]) {
		agree = "yes"
	}
	fmt.Fprintf(out, "parallel 2 / parallel 1 wall time: %.2f; recommendations agree: %s\n",
		walls[1].Seconds()/walls[0].Seconds(), agree)
	return nil
}

// lanesOf picks the fixture's worker nodes, one per distinct CPU list,
// the app node first.
func lanesOf(st swarmfixture.State) []swarmfixture.Node {
	var out []swarmfixture.Node
	seen := map[string]bool{}
	if app, ok := st.ByRole("app"); ok {
		out, seen[app.CPUs] = append(out, app), true
	}
	for _, n := range st.Nodes {
		if !n.Manager && !seen[n.CPUs] {
			out, seen[n.CPUs] = append(out, n), true
		}
	}
	return out
}

// sweepOn runs the spec's cells on one lane per node, every service of a
// lane's stack on its node, and builds the report.
func sweepOn(ctx context.Context, out io.Writer, mgr swarm.Manager, nodes []swarmfixture.Node, dir string) (*report.Report, error) {
	sp := spec()
	runID := "bench" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	if err := writeMeta(dir, runID, sp); err != nil {
		return nil, err
	}
	lanes := &sweep.Lanes{Control: len(nodes) > 1}
	var stacks []*swarm.Stack
	defer func() {
		for _, st := range stacks {
			tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
			_ = st.Down(tctx)
			cancel()
		}
	}()
	driver := builtin.New(builtin.Options{})
	for k, n := range nodes {
		lsp := sp
		lsp.URL = fmt.Sprintf("http://%s:18080", n.Addr)
		on := []string{"node.id==" + n.ID}
		st, err := swarm.New(ctx, swarm.Options{Files: files, Service: sp.Service, RunID: runID, RunDir: dir,
			SweptEnv: sp.SweptEnv(), Manager: mgr, Lane: fmt.Sprint("l", k+1),
			Place: map[string][]string{"app": on, "db": on}})
		if err != nil {
			return nil, err
		}
		stacks = append(stacks, st)
		lanes.Runners = append(lanes.Runners, &sweep.Runner{Spec: lsp, RunID: runID, Dir: dir, Stack: st, Driver: driver,
			Monitor: &metrics.Monitor{Engine: st.Engine(), Containers: st.Containers, Target: sp.Service, URL: lsp.URL}})
	}
	sum, controls, err := lanes.Run(ctx, sweep.Schedule(sp.Cells(), sp.Repeat, sp.Order, sp.Seed))
	if err != nil {
		return nil, err
	}
	if sum.Failed() > 0 {
		return nil, fmt.Errorf("%d of %d cells failed", sum.Failed(), len(sum.Records))
	}
	for _, c := range controls {
		fmt.Fprintf(out, "  control cell %s on lane %d (node %s): %.0f RPS, p99 %.1f ms\n",
			c.Rec.Cell.ID, c.Lane, c.Rec.Applied.Nodes[sp.Service].ID, c.RPS, c.P99)
	}
	if spread, warn := sweep.ControlSpread(controls, 0.1); warn != "" {
		fmt.Fprintf(out, "  %s\n", warn)
	} else if len(controls) > 1 {
		fmt.Fprintf(out, "  the lanes' control measurements are %.0f %% apart\n", 100*spread)
	}
	run, err := results.LoadRun(dir)
	if err != nil {
		return nil, err
	}
	return report.Build(run, report.DefaultOptions())
}

// writeMeta writes the sweep.json the report reads.
func writeMeta(dir, runID string, sp sweep.Spec) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	meta := results.Meta{SchemaVersion: results.SchemaVersion, RunID: runID}
	var err error
	if meta.Spec, err = json.Marshal(sp.Redacted()); err != nil {
		return err
	}
	for _, c := range sp.Cells() {
		meta.Cells = append(meta.Cells, c.Info())
	}
	return results.WriteJSONAtomic(filepath.Join(dir, results.MetaFile), meta)
}

// describe names each profile's pick.
func describe(ps []report.Profile) string {
	s := ""
	for _, p := range ps {
		if p.Found {
			s += fmt.Sprintf("%s web×%g db×%g; ", p.Key, p.WebMult, p.DBMult)
		} else {
			s += p.Key + " none; "
		}
	}
	return s
}
