// Command benchoverhead measures sweep's per-cell overhead (apply and
// ready: from the change of the target's CPU limit and env until the new
// container is ready) on several backends in one run with the cells
// alternated, so that all meet the same machine: compose (the local
// engine), swarm (the multi-node fixture, make swarm-up: the app on its
// app node, the database on its db node), kubernetes (the Kubernetes
// fixture, make k8s-up: a new pod rolled out per cell) and
// kubernetes-in-place (the same, the pod resized in place, --in-place).
// Each cell alternates the CPU limit between the two of -cpus; the env
// changes with it except on kubernetes-in-place, which resizes only when
// the CPU limit alone changes.
//
// Usage:
//
//	go run ./bench/overhead [-cells 10] [-backends compose,swarm] [-cpus 0.5,1]
//
// Its last lines are `B / compose per-cell overhead: R (median S s vs C s)`,
// one per backend B after compose.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/internal/k8sfixture"
	"github.com/sweep-tool/sweep/internal/swarmfixture"
	"github.com/sweep-tool/sweep/kube"
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
	// cpuOnly: its cells change the CPU limit alone (in-place resize)
	cpuOnly bool
	took    []time.Duration
	inPlace int
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("benchoverhead", flag.ContinueOnError)
	cells := fs.Int("cells", 10, "cells per backend (after the first start)")
	names := fs.String("backends", "compose,swarm", "the backends, compose first: compose, swarm, kubernetes, kubernetes-in-place")
	cpus := []float64{0.5, 1}
	fs.Var(sweep.Numbers{Field: "cpus", Vals: &cpus}, "cpus", "the two CPU limits the cells alternate (both Kubernetes backends' pods share node 1's CPUs: 0.5,0.75 there)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if len(cpus) != 2 {
		return fmt.Errorf("-cpus: want two CPU limits, e.g. 0.5,1; got %v", cpus)
	}
	dir, err := os.MkdirTemp("", "benchoverhead")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	backends, err := stacks(ctx, strings.Split(*names, ","), dir)
	defer func() {
		for _, b := range backends {
			tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), teardown)
			if err := b.stack.Down(tctx); err != nil {
				fmt.Fprintf(os.Stderr, "benchoverhead: down %s: %v\n", b.name, err)
			}
			cancel()
		}
	}()
	if err != nil {
		return err
	}
	steps := map[string][]time.Duration{}
	for i := -1; i < *cells; i++ {
		for _, b := range backends {
			cfg := sweep.TargetConfig{Dir: dir, CPUs: cpus[(i+2)%2], Env: map[string]string{webEnv: strconv.Itoa(2 + (i+2)%2)}}
			if b.cpuOnly {
				cfg.Env[webEnv] = "2"
			}
			var tl *timeline
			if ss, ok := b.stack.(*swarm.Stack); ok && i >= 0 {
				tl = watchTasks(ctx, ss.Manager(), ss.Project()+"_"+target)
			}
			took, inPlace, err := cell(ctx, b.stack, cfg, i < 0)
			line := ""
			if tl != nil {
				line = tl.stop(steps)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", b.name, err)
			}
			if i >= 0 { // the first start is not a cell's overhead
				b.took = append(b.took, took)
				if inPlace {
					b.inPlace++
					line += " (resized in place)"
				}
				fmt.Fprintf(out, "%-19s cell %2d: %5.2f s%s\n", b.name, i+1, took.Seconds(), line)
			}
		}
	}
	if len(steps) > 0 {
		fmt.Fprintf(out, "swarm task timeline, medians from the update: %s\n", medians(steps))
	}
	for _, b := range backends {
		if b.cpuOnly && b.inPlace != *cells {
			return fmt.Errorf("%s: %d of %d cells resized in place", b.name, b.inPlace, *cells)
		}
	}
	c := median(backends[0].took)
	for _, b := range backends[1:] {
		m := median(b.took)
		fmt.Fprintf(out, "%s / %s per-cell overhead: %.2f (median %.2f s vs %.2f s, %d cells each)\n",
			b.name, backends[0].name, m.Seconds()/c.Seconds(), m.Seconds(), c.Seconds(), *cells)
	}
	return nil
}

// stacks builds the backends named: compose on the local engine, the
// swarm stack on the swarm fixture, the Kubernetes ones on the
// Kubernetes fixture (manifests written into dir).
func stacks(ctx context.Context, names []string, dir string) ([]*backend, error) {
	id := strconv.FormatInt(time.Now().Unix(), 36)
	env := sweep.Env(os.Environ())
	var out []*backend
	for _, name := range names {
		var st sweep.Stack
		var err error
		switch name {
		case "compose":
			// the demo's ports, or others through its variables
			// (SWEEP_DEMO_PORT, SWEEP_DEMO_PG_PORT) beside another demo
			port := cmp.Or(env.Get("SWEEP_DEMO_PORT"), "18080")
			st, err = compose.New(ctx, compose.Options{StackOptions: sweep.StackOptions{Files: demo, Service: target,
				RunID: "benchc" + id, ReadyURL: "http://127.0.0.1:" + port + "/health", SweptEnv: []string{webEnv}, Env: env}})
		case "swarm":
			st, err = swarmStack(ctx, id, env)
		case "kubernetes", "kubernetes-in-place":
			st, err = kubeStack(ctx, id, name == "kubernetes-in-place", dir)
		default:
			err = fmt.Errorf("-backends: no backend %q (compose, swarm, kubernetes, kubernetes-in-place)", name)
		}
		if err != nil {
			return out, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, &backend{name: name, stack: st, cpuOnly: name == "kubernetes-in-place"})
	}
	if len(out) < 2 {
		return out, errors.New("-backends: name two or more, the first the reference (compose)")
	}
	return out, nil
}

func swarmStack(ctx context.Context, id string, env sweep.Env) (sweep.Stack, error) {
	st, err := swarmfixture.Load(swarmfixture.Dir())
	if err != nil {
		return nil, err
	}
	app, okA := st.ByRole("app")
	db, okD := st.ByRole("db")
	if !okA || !okD {
		return nil, errors.New("the fixture has no app and db nodes (SWARM_NODES=3)")
	}
	mgr, err := swarm.ManagerAt(ctx, st.ManagerHost)
	if err != nil {
		return nil, err
	}
	return swarm.New(ctx, swarm.Options{StackOptions: sweep.StackOptions{
		Files: append(slices.Clip(demo), "compose/demo/docker-compose.swarm.yaml"), Service: target,
		RunID: "benchs" + id, SweptEnv: []string{webEnv}, Env: env},
		Manager: mgr, Place: map[string][]string{"app": {"node.id==" + app.ID}, "db": {"node.id==" + db.ID}}})
}

// kubeStack is the demo from the fixture's manifests (the app on node 1,
// PostgreSQL on node 2) in a namespace of its own.
func kubeStack(ctx context.Context, id string, inPlace bool, dir string) (sweep.Stack, error) {
	st, err := k8sfixture.Load(k8sfixture.Dir())
	if err != nil {
		return nil, err
	}
	sub, err := os.MkdirTemp(dir, "k8s")
	if err != nil {
		return nil, err
	}
	file, err := st.WriteManifests(".", sub, "demo.yaml")
	if err != nil {
		return nil, err
	}
	runID := "benchk" + id
	if inPlace {
		runID = "benchi" + id
	}
	return kube.New(ctx, kube.Options{StackOptions: sweep.StackOptions{Files: []string{file}, Service: target, RunID: runID,
		SweptEnv: []string{webEnv}, Env: sweep.Env{"KUBECONFIG=" + st.Kubeconfig}}, InPlace: inPlace})
}

// cell applies cfg as the runner does (the first time with the
// dependencies first) and returns how long apply and ready took and
// whether the pod was resized in place; it checks the CPU limit read
// back.
func cell(ctx context.Context, st sweep.Stack, cfg sweep.TargetConfig, first bool) (time.Duration, bool, error) {
	if first {
		if err := st.StartDeps(ctx, cfg, timeout); err != nil {
			return 0, false, err
		}
	}
	start := time.Now()
	if err := st.Apply(ctx, cfg); err != nil {
		return 0, false, err
	}
	if err := st.WaitReady(ctx, timeout); err != nil {
		return 0, false, err
	}
	took := time.Since(start)
	a, err := st.ReadBack(ctx)
	if err != nil {
		return 0, false, err
	}
	if a.CPUs != cfg.CPUs || a.Env[webEnv] != cfg.Env[webEnv] {
		return 0, false, fmt.Errorf("read back %v CPUs and %s=%s, asked %v and %s", a.CPUs, webEnv, a.Env[webEnv], cfg.CPUs, cfg.Env[webEnv])
	}
	return took, a.ResizedInPlace, nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	return s[len(s)/2]
}
