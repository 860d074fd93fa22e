package session

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/metrics"
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/swarm"
	"github.com/sweep-tool/sweep/sweep"
)

// lane is one of the stacks of a run with Spec.Parallel: its node, the
// spec with the node's address in the URL and DSNs, its stack (every
// service pinned to the node), the engine its containers are read
// through (nil on Kubernetes), samplers and load driver.
type lane struct {
	node   sweep.LaneNode
	spec   sweep.Spec
	stack  Stack
	engine metrics.Engine
	db     *samplers
	driver sweep.Driver
}

// buildLanes picks the lanes' nodes from the swarm or the Kubernetes
// cluster and builds a stack, samplers and driver per lane; the first
// lane's are the session's main ones (facts, CPU check, cleanup). Too
// few usable nodes, or a named one the platform lacks, is bad input.
func (s *Session) buildLanes(ctx context.Context) error {
	var err error
	if s.spec.Kubernetes {
		err = s.buildKubeLanes(ctx)
	} else {
		err = s.buildSwarmLanes(ctx)
	}
	if err != nil {
		return err
	}
	s.stack, s.db = s.lanes[0].stack, s.lanes[0].db
	return nil
}

// laneNodesErr is the bad input LaneNodes' errors mean.
func laneNodesErr(err error) error {
	switch {
	case errors.Is(err, sweep.ErrFewNodes):
		return sweep.BadInput("parallel", "%v; lower {parallel} or add nodes", err)
	case errors.Is(err, sweep.ErrNoSuchNode):
		return sweep.BadInput("lane_nodes", "%v", err)
	}
	return err
}

// buildSwarmLanes is buildLanes on a swarm.
func (s *Session) buildSwarmLanes(ctx context.Context) error {
	if len(s.spec.Compose) == 0 {
		return sweep.BadInput("compose", "no compose file; give {compose} FILE (repeatable)")
	}
	mgr, err := swarm.Connect(ctx, s.opts.Env)
	if errors.Is(err, engine.ErrEngine) || errors.Is(err, swarm.ErrNotSwarm) {
		return sweep.BadInput("swarm", "%v", err)
	}
	if err != nil {
		return err
	}
	nodes, err := swarm.LaneNodes(ctx, mgr, s.spec.LaneNodes, s.spec.Parallel)
	if err != nil {
		return laneNodesErr(err)
	}
	loadPlace, err := swarm.ParsePlace(s.spec.StackPlace())
	if err != nil {
		return err
	}
	for k, n := range nodes {
		l := &lane{node: n, spec: s.spec.ForLane(n.Addr), driver: s.driver}
		st, err := s.swarmStack(ctx, swarm.Options{StackOptions: s.stackOptions(s.spec.Compose, l.spec.URL), Place: loadPlace,
			Manager: mgr, Lane: fmt.Sprint("l", k+1), PinTo: n.ID})
		if err != nil {
			return err
		}
		l.stack, l.engine = st, st.Engine()
		if err := s.addLane(l, k, func() (sweep.Driver, error) { return s.laneLoad(st) }); err != nil {
			return err
		}
	}
	return nil
}

// addLane gives lane l (the k-th, from 0) its samplers and load driver
// and adds it to the session.
func (s *Session) addLane(l *lane, k int, load func() (sweep.Driver, error)) error {
	notify := s.notify
	if k > 0 { // one notice that nothing samples a database is enough
		notify = func(e Event) {
			if _, ok := e.(NoDatabase); !ok {
				s.notify(e)
			}
		}
	}
	var err error
	if l.db, err = newSamplers(l.spec, notify); err != nil {
		return err
	}
	if l.driver, err = load(); err != nil {
		return err
	}
	s.lanes = append(s.lanes, l)
	s.stacks = append(s.stacks, l.stack)
	return nil
}

// lanesPlaced is the event that says where the lanes run.
func (s *Session) lanesPlaced() LanesPlaced {
	var e LanesPlaced
	for k, l := range s.lanes {
		e.Lanes = append(e.Lanes, LaneInfo{Lane: k + 1, Node: l.node, Project: l.stack.Project(), URL: l.spec.URL})
	}
	return e
}

// runLanes runs the jobs on the lanes side by side (sweep.Lanes), with the
// schedule's first cell measured on every lane as the control when
// there are two or more and the whole grid runs.
func (s *Session) runLanes(ctx context.Context) (sweep.Summary, error) {
	jobs := s.opts.Jobs
	lanes := &sweep.Lanes{Control: len(s.lanes) > 1 && jobs == nil, Progress: s.opts.Progress}
	if jobs == nil {
		jobs = sweep.Schedule(s.spec.Cells(), s.spec.Repeat, s.spec.Order, s.spec.Seed)
	}
	var facts sync.Once
	for _, l := range s.lanes {
		r := s.runner()
		r.Spec, r.Stack, r.Driver, r.Replicas = l.spec, l.stack, l.driver, 1
		r.RetryFailed, r.Observer = s.opts.RetryFailed, s.opts.Observer
		r.Reset, r.Limits = l.db.resetFunc(), l.db.limitsFunc()
		r.Monitor = l.db.monitor(l.engine, []Stack{l.stack}, l.spec)
		r.Prepare = func(ctx context.Context) error {
			var ferr error
			facts.Do(func() { ferr = s.recordFacts(ctx) })
			return errors.Join(l.db.prepare(ctx), ferr)
		}
		if s.opts.CheckGenerator != nil {
			r.Measure = sweep.GeneratorHook(r, builtin.New(s.builtin), s.opts.CheckGenerator)
		}
		lanes.Runners = append(lanes.Runners, r)
	}
	sum, controls, err := lanes.Run(ctx, jobs)
	if len(controls) > 1 {
		spread, warn := sweep.ControlSpread(controls, report.DefaultOptions().NoiseBand)
		ev := LaneControl{Cell: controls[0].Rec.Cell.ID, Spread: spread, Warning: warn}
		for _, c := range controls {
			ev.Lanes = append(ev.Lanes, LaneFigure{Lane: c.Lane, Node: s.lanes[c.Lane-1].node, Status: string(c.Rec.Status), RPS: c.RPS, P99: c.P99})
		}
		s.notify(ev)
	}
	return sum, err
}
