// Command benchparallel measures what running cells side by side on
// several swarm nodes saves, through the CLI as a user runs it: the same
// 4 demo cells are swept with `sweep run --swarm --parallel 1`, then with
// `--parallel 2`, in one invocation, on the multi-node fixture (make
// swarm-up), and the two runs' recommendations are compared. With two
// lanes every lane first measures the first cell at once (the control,
// as a user gets it by default). Each run's cells are timed per phase
// from their records, and each record's start and end (seconds after
// the run started) are listed by node, so the lines per run say where
// its seconds went.
//
// Cells are 5 s of warm-up and 40 s measured (the control 10 s, a
// quarter): with the 2 s + 5 s cells of before, a run was 45 s of which
// the stacks' start and teardown and each cell's new task took most, so
// the ratio measured those fixed costs, not what running cells side by
// side saves on real cells, which are minutes long. Both runs together
// take about 5.5 minutes.
//
// Usage:
//
//	go run ./bench/parallel     (make bench-parallel)
//	SWEEP_BENCH_KEEP=1 go run ./bench/parallel   (keeps the run directories and logs, and says where)
//
// Its last line is `parallel 2 / parallel 1 wall time: R; recommendations
// agree: yes|no`.
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/internal/swarmfixture"
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchparallel:", err)
		os.Exit(1)
	}
}

// args are the 4 cells, CPU limits small enough that two cells (with
// their databases and the drivers in sweep's process) fit the fixture's
// two cores, every service of a lane on its node, URL and DSN at it.
// The web threads and pools are those of 0.25,0.5 × 4,8 (1 and 2, 2 and
// 4; pools twice that) at half the CPU: at 0.25 and 0.5 the two lanes'
// cells measured 40-85 % below the same cells one at a time (the host
// out of CPU). At half they still measured 37-40 % below (2026-12-01,
// host CPU pressure 99 % with a niced mutation run beside), evenly, the
// lanes' controls 1 % apart: two cells do not quite fit here yet. Alone
// on the machine: 0.65 and 0.64 of --parallel 1's wall time, the same
// picks, side-by-side cells 18-70 % below one at a time.
func args(n int, nodes []string, out string) []string {
	return []string{"run", "--swarm", "--parallel", fmt.Sprint(n), "--lane-nodes", strings.Join(nodes, ","),
		"--compose", "compose/demo/docker-compose.yaml", "--compose", "compose/demo/docker-compose.swarm.yaml",
		"--service", "app", "--url", "http://{node}:18080", "--ready-path", "/health", "--ready-timeout", "3m",
		"--db-dsn", "postgres://sweep:sweep@{node}:15432/sweep?sslmode=disable",
		"--cpus", "0.125,0.25", "--web-mult", "8,16", "--db-mult", "2",
		"--warmup", "5s", "--duration", "40s", "--load", "vus=8", "--driver", "builtin", "--out", out}
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
	base, err := os.MkdirTemp("", "benchparallel")
	if err != nil {
		return err
	}
	if os.Getenv("SWEEP_BENCH_KEEP") != "" {
		fmt.Fprintf(out, "keeping the runs and their logs in %s\n", base)
	} else {
		defer os.RemoveAll(base)
	}
	bin := filepath.Join(base, "sweep")
	if b, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/sweep").CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/sweep: %v: %s", err, b)
	}
	var walls [2]time.Duration
	var picks [2]string
	for i, n := range []int{1, 2} {
		dir := filepath.Join(base, fmt.Sprint("p", n))
		cmd := exec.CommandContext(ctx, bin, args(n, nodes, dir)...)
		cmd.Env = append(os.Environ(), "DOCKER_HOST="+st.ManagerHost)
		logf, err := os.Create(filepath.Join(base, fmt.Sprint("p", n, ".log")))
		if err != nil {
			return err
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		start := time.Now()
		err = cmd.Run()
		walls[i] = time.Since(start)
		_ = logf.Close()
		if err != nil {
			b, _ := os.ReadFile(logf.Name())
			return fmt.Errorf("parallel %d: sweep run: %v\n%s", n, err, tail(string(b), 30))
		}
		b, _ := os.ReadFile(logf.Name())
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "sweep: control cell") || strings.HasPrefix(line, "sweep: the lanes") || strings.HasPrefix(line, "sweep: warning") {
				fmt.Fprintf(out, "  %s\n", line)
			}
		}
		rep, phases, err := readRun(dir)
		if err != nil {
			return fmt.Errorf("parallel %d: %w", n, err)
		}
		picks[i] = describe(rep.Profiles)
		fmt.Fprintf(out, "parallel %d: %.1f s wall; cell phases (median s): %s; recommendation %s\n", n, walls[i].Seconds(), phases, picks[i])
		if tl, err := timeline(dir, start); err == nil {
			fmt.Fprint(out, tl)
		}
		for _, nc := range rep.Nodes {
			fmt.Fprintf(out, "  node %s measured %s\n", nc.Node, strings.Join(nc.Cells, ", "))
		}
		for _, w := range rep.Warnings {
			fmt.Fprintf(out, "  warning: %s\n", w)
		}
	}
	agree := "no"
	if picks[0] == picks[1] {
		agree = "yes"
	}
	fmt.Fprintf(out, "parallel 2 / parallel 1 wall time: %.2f; recommendations agree: %s\n",
		walls[1].Seconds()/walls[0].Seconds(), agree)
	return nil
}

// lanesOf picks the fixture's worker nodes' ids, one per distinct CPU
// list, the app node first.
func lanesOf(st swarmfixture.State) []string {
	var out []string
	seen := map[string]bool{}
	if app, ok := st.ByRole("app"); ok {
		out, seen[app.CPUs] = append(out, app.ID), true
	}
	for _, n := range st.Nodes {
		if !n.Manager && !seen[n.CPUs] {
			out, seen[n.CPUs] = append(out, n.ID), true
		}
	}
	return out
}

// readRun builds the run's report and the median of each phase over its
// cells' records.
func readRun(dir string) (*report.Report, string, error) {
	run, err := results.LoadRun(dir)
	if err != nil {
		return nil, "", err
	}
	byPhase := map[string][]float64{}
	for _, rc := range run.Cells {
		for _, rep := range rc.Reps {
			if rep.Record.Status != results.StatusOK {
				return nil, "", fmt.Errorf("cell %s r%d: %s: %s", rc.ID, rep.Record.Repetition, rep.Record.Status, rep.Record.Reason)
			}
			for p, s := range rep.Record.PhasesS {
				byPhase[p] = append(byPhase[p], s)
			}
		}
	}
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(byPhase)) {
		xs := byPhase[p]
		slices.Sort(xs)
		parts = append(parts, fmt.Sprintf("%s %.2f", p, xs[len(xs)/2]))
	}
	rep, err := report.Build(run, report.DefaultOptions())
	return rep, strings.Join(parts, ", "), err
}

// timeline lists each record's start and end, in seconds after start,
// by the node that measured it.
func timeline(dir string, start time.Time) (string, error) {
	run, err := results.LoadRun(dir)
	if err != nil {
		return "", err
	}
	type entry struct {
		what     string
		from, to float64
	}
	byNode := map[string][]entry{}
	add := func(rec results.Record, what string) {
		node := rec.Applied.Nodes[run.Service].ID
		byNode[node] = append(byNode[node], entry{what, rec.StartedAt.Sub(start).Seconds(), rec.FinishedAt.Sub(start).Seconds()})
	}
	for _, rc := range run.Cells {
		for _, c := range rc.Controls {
			add(c.Record, rc.ID+" control")
		}
		for _, rep := range rc.Reps {
			add(rep.Record, fmt.Sprintf("%s r%d", rc.ID, rep.Record.Repetition))
		}
	}
	s := ""
	for _, node := range slices.Sorted(maps.Keys(byNode)) {
		es := byNode[node]
		slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(a.from, b.from) })
		var parts []string
		for _, e := range es {
			parts = append(parts, fmt.Sprintf("%s %.1f-%.1f", e.what, e.from, e.to))
		}
		s += fmt.Sprintf("  node %s (s after the start): %s\n", node, strings.Join(parts, ", "))
	}
	return s, nil
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

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
