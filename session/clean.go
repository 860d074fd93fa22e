package session

import (
	"context"
	"errors"
	"time"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/swarm"
	"github.com/sweep-tool/sweep/sweep"
)

// CleanEngine is the Engine API Clean works through: the engine's
// containers, networks and volumes, and on a swarm manager its services
// and their tasks. *client.Client satisfies it.
type CleanEngine interface {
	engine.Engine
	swarm.Manager
}

// Cleaned is what Clean did, run by run: on a swarm manager, the runs'
// services and networks (Swarm), then the runs' containers, networks and
// volumes on the engine (Engine). A run left alone is listed with why
// (sweep.CleanOutcome.Skipped).
type Cleaned struct {
	Swarm  []sweep.CleanOutcome[swarm.Cleaned]
	Engine []sweep.CleanOutcome[compose.Cleaned]
}

// Clean removes what sweep runs left on the engine (found by the
// sweep.run label): run runID's, or when runID is empty every run's that
// is provably dead (sweep.LockDead's proof), or all of them with force.
// On a swarm manager the runs' services go first, since the swarm would
// replace their containers removed alone; an error there stops the clean
// before the containers. A named run that is alive or cannot be told is
// bad input of {run}; without a name such runs are skipped and listed.
// A runID with no letter or digit names no run: bad input of {run}, the
// input it is here (the backends' cleanups name it {run_id}, the run id
// sweep made). The whole clean is bounded by bound (0: sweep.CleanTimeout):
// an engine that stops answering fails it with a sweep.CallTimeoutError
// naming {timeout}. It returns what it did up to an error.
func Clean(ctx context.Context, eng CleanEngine, runID string, force bool, bound time.Duration) (Cleaned, error) {
	if runID != "" && sweep.ProjectName(runID) == "sweep" {
		return Cleaned{}, sweep.BadInput("run", "%q has no letter or digit, so it names no run", runID)
	}
	out, err := sweep.BoundedGet(ctx, cleanCall("clean of the engine's leftovers", bound), func(ctx context.Context) (Cleaned, error) {
		var out Cleaned
		var err error
		if out.Swarm, err = swarm.CleanRuns(ctx, eng, runID, force); err != nil {
			return out, err
		}
		out.Engine, err = compose.CleanRuns(ctx, eng, runID, force)
		return out, err
	})
	return out, refused(err)
}

// cleanCall is sweep clean's call with its bound (0: sweep.CleanTimeout).
func cleanCall(name string, bound time.Duration) *sweep.CallTimeoutError {
	if bound <= 0 {
		bound = sweep.CleanTimeout
	}
	return &sweep.CallTimeoutError{Call: name, Bound: bound, Of: sweep.OfClean}
}

// refused is a named run that is alive or cannot be told, as bad input.
func refused(err error) error {
	if errors.Is(err, sweep.ErrRunAlive) || errors.Is(err, sweep.ErrRunUnknown) {
		return sweep.BadInput("run", "%v; pass {force} to remove it anyway", err)
	}
	return err
}

// CleanKubernetes deletes the namespaces sweep runs left on the cluster c
// reaches (found by the sweep.run label): run runID's, or every run's that
// is provably dead, or all with force, by the same rule as Clean and
// bounded as it is; a named run that is alive or cannot be told is bad
// input of {run}.
func CleanKubernetes(ctx context.Context, c *kube.Client, runID string, force bool, bound time.Duration) ([]sweep.CleanOutcome[[]string], error) {
	out, err := sweep.BoundedGet(ctx, cleanCall("clean of the cluster's namespaces", bound), func(ctx context.Context) ([]sweep.CleanOutcome[[]string], error) {
		return kube.CleanRuns(ctx, c, runID, force)
	})
	return out, refused(err)
}
