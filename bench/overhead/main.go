// Command benchoverhead measures sweep's per-cell overhead (apply and
// ready: from the change of the target's CPU limit and env until the new
// container is ready) on the compose backend and on the swarm backend, in
// one run with the cells alternated, so that both meet the same machine.
// The compose stack runs on the local engine, the swarm stack on the
// multi-node fixture (make swarm-up), the app on the fixture's app node and
// the database on its db node.
//
// Usage:
//
//	go run ./bench/overhead [-cells 10]
//
// Its last line is `swarm / compose per-cell overhead: R (median S s vs C s)`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"time"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/internal/swarmfixture"
	"github.com/sweep-tool/sweep/swarm"
	"github.com/sweep-tool/sweep/sweep"
)

// demo are the demo's compose files; the swarm adds dnsrr and host ports.
var demo = []string{"compose/demo/docker-compose.yaml"}

const (
	target   = "app"
	webEnv   = "BOX_WEB_THREAD"
	timeout  = 3 * time.Minute
	teardown = 2 * time.Minute
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "benchoverhead:", err)
		os.Exit(1)
	}
}

// backend is one stack under measurement.
type backend struct {
	name  string
	stack sweep.Stack
	took  []time.Duration
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("benchoverhead", flag.ContinueOnError)
	cells := fs.Int("cells", 10, "cells per backend (after the first start)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	backends, err := stacks(ctx)
	if err != nil {
		return err
	}
	defer func() {
		for _, b := range backends {
			tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), teardown)
			if err := b.stack.Down(tctx); err != nil {
				fmt.Fprintf(os.Stderr, "benchoverhead: down %s: %v\n", b.name, err)
			}
			cancel()
		}
	}()
	dir, err := os.MkdirTemp("", "benchoverhead")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	steps := map[string][]time.Duration{}
	for i := -1; i < *cells; i++ {
		cfg := sweep.TargetConfig{Dir: dir, CPUs: []float64{0.5, 1}[(i+2)%2],
			Env: map[string]string{webEnv: strconv.Itoa(2 + (i+2)%2)}}
		for _, b := range backends {
			var tl *timeline
			if ss, ok := b.stack.(*swarm.Stack); ok && i >= 0 {
				tl = watchTasks(ctx, ss.Manager(), ss.Project()+"_"+target)
			}
			took, err := cell(ctx, b.stack, cfg, i < 0)
			line := ""
			if tl != nil {
				line = tl.stop(steps)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", b.name, err)
			}
			if i >= 0 { // the first start is not a cell's overhead
				b.took = append(b.took, took)
				fmt.Fprintf(out, "%-7s cell %2d: %5.2f s%s\n", b.name, i+1, took.Seconds(), line)
			}
		}
	}
	fmt.Fprintf(out, "swarm task timeline, medians from the update: %s\n", medians(steps))
	c, s := median(backends[0].took), median(backends[1].took)
	fmt.Fprintf(out, "swarm / compose per-cell overhead: %.2f (median %.2f s vs %.2f s, %d cells each)\n",
		s.Seconds()/c.Seconds(), s.Seconds(), c.Seconds(), *cells)
	return nil
}

// stacks builds the compose stack on the local engine and the swarm stack
// on the fixture.
func stacks(ctx context.Context) ([]*backend, error) {
	st, err := swarmfixture.Load(swarmfixture.Dir())
	if err != nil {
		return nil, err
	}
	app, okA := st.ByRole("app")
	db, okD := st.ByRole("db")
	if !okA || !okD {
		return nil, errors.New("the fixture has no app and db nodes (SWARM_NODES=3)")
	}
	id := strconv.FormatInt(time.Now().Unix(), 36)
	env := sweep.Env(os.Environ())
	cs, err := compose.New(ctx, compose.Options{StackOptions: sweep.StackOptions{Files: demo, Service: target,
		RunID: "benchc" + id, ReadyURL: "http://127.0.0.1:18080/health", SweptEnv: []string{webEnv}, Env: env}})
	if err != nil {
		return nil, err
	}
	mgr, err := swarm.ManagerAt(ctx, st.ManagerHost)
	if err != nil {
		return nil, err
	}
	ss, err := swarm.New(ctx, swarm.Options{StackOptions: sweep.StackOptions{
		Files: append(slices.Clip(demo), "compose/demo/docker-compose.swarm.yaml"), Service: target,
		RunID: "benchs" + id, SweptEnv: []string{webEnv}, Env: env},
		Manager: mgr, Place: map[string][]string{"app": {"node.id==" + app.ID}, "db": {"node.id==" + db.ID}}})
	if err != nil {
		return nil, err
	}
	return []*backend{{name: "compose", stack: cs}, {name: "swarm", stack: ss}}, nil
}

// cell applies cfg as the runner does (the first time with the
// dependencies first) and returns how long apply and ready took; it checks
// the CPU limit read back.
func cell(ctx context.Context, st sweep.Stack, cfg sweep.TargetConfig, first bool) (time.Duration, error) {
	if first {
		if err := st.StartDeps(ctx, cfg, timeout); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	if err := st.Apply(ctx, cfg); err != nil {
		return 0, err
	}
	if err := st.WaitReady(ctx, timeout); err != nil {
		return 0, err
	}
	took := time.Since(start)
	a, err := st.ReadBack(ctx)
	if err != nil {
		return 0, err
	}
	if a.CPUs != cfg.CPUs || a.Env[webEnv] != cfg.Env[webEnv] {
		return 0, fmt.Errorf("read back %v CPUs and %s=%s, asked %v and %s", a.CPUs, webEnv, a.Env[webEnv], cfg.CPUs, cfg.Env[webEnv])
	}
	return took, nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	return s[len(s)/2]
}
