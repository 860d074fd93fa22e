package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The commands that take the spec's flags and a --config file.
const (
	cmdPlan  = "plan"
	cmdRun   = "run"
	cmdCheck = "check"
	cmdLimit = "limit"
)

var (
	inPlanRunCheckLimit = []string{cmdPlan, cmdRun, cmdCheck, cmdLimit}
	inPlanRunCheck      = []string{cmdPlan, cmdRun, cmdCheck}
	inPlanRun           = []string{cmdPlan, cmdRun}
	inRunCheckLimit     = []string{cmdRun, cmdCheck, cmdLimit}
	inRunCheck          = []string{cmdRun, cmdCheck}
	inRunLimit          = []string{cmdRun, cmdLimit}
	inRunOnly           = []string{cmdRun}
)

// specFlagUse gives each flag bindSpec defines its group and the
// commands whose code reads it; a command is given no other. plan starts
// nothing: it reads what decides the cells and their time (the grid, the
// load model, durations, repetitions, controls, lanes). check runs the
// grid's first cell once, briefly, into a directory of its own: no
// strategy, repetitions, schedule, controls or output. limit measures
// one configuration (--cpus C --web W --pool P) at levels it sets: no
// grid beyond it, no load axis, no lanes.
var specFlagUse = []struct {
	group string
	cmds  []string
	names []string
}{
	{groupGrid, inPlanRunCheckLimit, []string{"cpus", "axis", "memory", "variant"}},
	{groupGrid, inPlanRunCheck, []string{"web-mult", "db-mult", "load-levels"}},
	{groupGrid, inPlanRun, []string{"baseline", "strategy"}},
	{groupStack, inRunCheckLimit, []string{"compose", "service", "web-env", "pool-env", "name-env", "url", "ready-path",
		"ready-timeout", "call-timeout", "db-dsn", "pooler-dsn", "db-reset-sql", "cpuset", "pool-per-web", "keep"}},
	{groupStack, inRunCheck, []string{"over-limit"}}, // limit's one cell is not held to the connection limit
	{groupLoad, inPlanRunCheckLimit, []string{"load", "max-vus"}},
	{groupLoad, inRunCheckLimit, []string{"driver", "k6", "script", "scenario"}},
	{groupMeasurement, inPlanRunCheckLimit, []string{"warmup", "duration", "precision", "min-duration"}},
	{groupMeasurement, inRunCheck, []string{"max-errors"}}, // limit judges errors by its SLO
	{groupMeasurement, inPlanRun, []string{"repeat", "max-repeat", "control", "control-every", "schedule", "slice", "rounds"}},
	{groupMeasurement, inRunOnly, []string{"order", "seed", "retries", "max-failures", "cooldown"}},
	{groupOutput, inRunLimit, []string{"out"}},
	{groupSwarm, inRunCheckLimit, []string{"swarm", "place"}},
	{groupKubernetes, inRunCheckLimit, []string{"kubernetes", "manifests", "kube-context", "container"}},
	{groupKubernetes, inRunOnly, []string{"in-place"}}, // a resize between cells; check and limit apply one
	{groupNodes, inRunCheckLimit, []string{"load-image", "k6-image"}},
	{groupNodes, inPlanRunCheck, []string{"parallel"}},
	{groupNodes, inRunCheck, []string{"lane-nodes"}},
	{"", inPlanRunCheckLimit, []string{"config"}},
}

// usageOf are the words of a spec flag where one command reads it
// otherwise than run does.
var usageOf = map[string]map[string]string{
	cmdCheck: {
		"cpus": "the target's CPU limits, a list of CPUs, e.g. 2,4,6,8 (required; check runs the grid's first cell)",
		"scenario": "your own requests as a scenario file (a subset of Artillery's YAML, docs/guides/load.md): check sends one iteration " +
			"of each of its scenarios to the running stack at --url and prints every step, instead of running a cell (default: none)",
	},
	cmdLimit: {
		"cpus":    "the configuration's CPU limit, one number of CPUs, e.g. 2 (required without --from)",
		"axis":    "an env variable NAME=v of the target, or SERVICE:NAME=v of another service, one value each (repeatable; default: none)",
		"memory":  "the target's memory limit, bytes with a suffix, e.g. 1g (default: the stack's own)",
		"variant": "the stack variant NAME=FILE[+FILE] to measure, in place of --compose (default: none)",
		"out":     "the directory of limit.json and the levels' records (default runs/limit-<run id>)",
		"compose": "compose file of the stack (repeatable, in order; required without --from or --kubernetes)",
		"service": "the target service in the stack (required without --from; on Kubernetes its Deployment)",
		"url":     "base URL the load goes to, e.g. http://127.0.0.1:8080 (required without --from)",
	},
}

// adopt defines on dst, each in its group, the flags of all that the
// command cmd reads by specFlagUse, in cmd's words (usageOf).
func adopt(dst, all *pflag.FlagSet, cmd string) {
	for name, usage := range usageOf[cmd] {
		all.Lookup(name).Usage = usage
	}
	for _, u := range specFlagUse {
		if !slices.Contains(u.cmds, cmd) {
			continue
		}
		for _, name := range u.names {
			fl := all.Lookup(name)
			if fl == nil {
				panic(fmt.Sprintf("specFlagUse names --%s, which bindSpec does not define", name))
			}
			dst.AddFlag(fl)
		}
		if u.group != "" {
			inGroup(dst, u.group, u.names...)
		}
	}
}

// readsConfig reports whether c takes a --config file.
func readsConfig(c *cobra.Command) bool { return c.Flags().Lookup("config") != nil }

// othersOf are the flags of the other commands that read a --config
// file which cmd does not have: a key of the file naming one is passed
// over (one sweep.yaml serves plan, run, check and limit).
func othersOf(cmd *cobra.Command) []string {
	var names []string
	if !cmd.HasParent() {
		return nil
	}
	for _, c := range cmd.Parent().Commands() {
		if c == cmd || !readsConfig(c) {
			continue
		}
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if cmd.Flags().Lookup(fl.Name) == nil && !slices.Contains(names, fl.Name) {
				names = append(names, fl.Name)
			}
		})
	}
	return names
}

// takenBy names the commands reading --config, other than cmd, that have
// the flag name, e.g. "run and limit"; "" when none has.
func takenBy(cmd *cobra.Command, name string) string {
	var by []string
	if !cmd.HasParent() {
		return ""
	}
	for _, c := range cmd.Parent().Commands() {
		if c != cmd && readsConfig(c) && c.Flags().Lookup(name) != nil {
			by = append(by, c.Name())
		}
	}
	if len(by) < 2 {
		return strings.Join(by, "")
	}
	return strings.Join(by[:len(by)-1], ", ") + " and " + by[len(by)-1]
}
