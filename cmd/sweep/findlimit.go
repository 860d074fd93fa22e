package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sweep-tool/sweep/strategy/limit"
	"github.com/sweep-tool/sweep/sweep"
)

// searchFlagNames are the flags newSearchFlags defines.
var searchFlagNames = []string{"slo", "model", "start-level", "max-level", "factor", "max-steps", "db-service"}

// newSearchFlags defines the safe-limit search flags that sweep limit and
// run --find-limit share.
func newSearchFlags(fs *pflag.FlagSet) *sweep.FindLimit {
	f := &sweep.FindLimit{}
	fs.StringVar(&f.SLO, "slo", limit.DefaultSLO, "objective: success>=X%, error<=X%, avg|p50|p90|p95|p99<=N ms|s, comma-separated")
	fs.StringVar(&f.Model, "model", "", "what a level counts: vus (closed model) or rate (open, iterations/s); default: --load's kind")
	fs.IntVar(&f.Start, "start-level", limit.DefaultStartLevel, "first level of the ramp, in --model's unit (VUs or iterations/s)")
	fs.IntVar(&f.Max, "max-level", limit.DefaultMaxLevel, "highest level the ramp may reach, in --model's unit")
	fs.Float64Var(&f.Factor, "factor", limit.DefaultFactor, "the ramp multiplies the level by this while the SLO holds")
	fs.IntVar(&f.MaxSteps, "max-steps", limit.DefaultMaxSteps, "measured levels at most, ramp and bisection together")
	fs.StringVar(&f.DBService, "db-service", sweep.DefaultDBService, "the database's service, whose CPU the levels' table shows (its DB CPU row) "+
		"and the bottleneck reads")
	return f
}

// findLimitFlags are run's --find-limit and the search flags.
type findLimitFlags struct {
	on     bool
	search *sweep.FindLimit
}

// newFindLimitFlags defines --find-limit and the search flags on fs, in
// their group; plan, which counts the levels but measures none, has no
// --db-service.
func newFindLimitFlags(fs *pflag.FlagSet, cmd string) *findLimitFlags {
	all := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	f := &findLimitFlags{search: newSearchFlags(all)}
	all.BoolVar(&f.on, "find-limit", false, "search every cell's safe limit (as sweep limit does) instead of measuring one load; "+
		"cells/<id>/r<N>/limit.json holds the levels, the report a safe-limit matrix")
	all.VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "find-limit" {
			fl.Usage = "with --find-limit: " + fl.Usage
		}
		if cmd != cmdPlan || fl.Name != "db-service" {
			fs.AddFlag(fl)
			inGroup(fs, groupSearch, fl.Name)
		}
	})
	return f
}

// resolveGrid resolves the spec of plan, run and check: the shared flags
// and config file, then the search (fl nil: a command without one).
func resolveGrid(cmd *cobra.Command, flags *specFlags, fl *findLimitFlags) (sweep.Spec, error) {
	spec, err := flags.resolve(cmd)
	if err != nil || fl == nil {
		return spec, err
	}
	return spec, fl.apply(cmd.Flags(), &spec)
}

// apply puts the search into spec, its model resolved; search flags
// without --find-limit are bad input, as is a search that does not parse.
func (f *findLimitFlags) apply(fs *pflag.FlagSet, spec *sweep.Spec) error {
	if !f.on {
		for _, name := range searchFlagNames {
			if fs.Changed(name) {
				return sweep.BadInput(name, "needs --find-limit")
			}
		}
		return nil
	}
	var err error
	spec.FindLimit, err = limit.Resolved(*f.search, spec.Load)
	return err
}
