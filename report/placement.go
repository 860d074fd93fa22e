package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/sweep-tool/sweep/results"
)

// placementWarnings says, for a run on a swarm, which cells measured the
// target on a node it shared with another service of the stack (its
// database) or with the load: those figures include the neighbour's CPU
// use, which is what spreading the stack over nodes was for. One line per
// kind of sharing, naming the node and up to three cells.
func placementWarnings(run *results.Run) []string {
	type key struct{ node, with string }
	cells := map[key][]string{}
	var order []key
	for _, rc := range run.Cells {
		for _, rep := range rc.Reps {
			for _, k := range shared(rep.Record, run.Service) {
				kk := key{k[0], k[1]}
				if _, ok := cells[kk]; !ok {
					order = append(order, kk)
				}
				if !slices.Contains(cells[kk], rc.ID) {
					cells[kk] = append(cells[kk], rc.ID)
				}
			}
		}
	}
	var out []string
	for _, k := range order {
		ids := cells[k]
		more := ""
		if len(ids) > 3 {
			ids, more = ids[:3], fmt.Sprintf(" and %d more", len(cells[k])-3)
		}
		out = append(out, fmt.Sprintf("the target %s shared swarm node %s with %s in %s%s: "+
			"its figures include that neighbour's CPU use (place them apart)",
			run.Service, k.node, k.with, strings.Join(ids, ", "), more))
	}
	return out
}

// shared lists, for one record, [node, neighbour] pairs: the services and
// the load that ran on the target's node.
func shared(rec results.Record, target string) [][2]string {
	node, ok := rec.Applied.Nodes[target]
	if !ok || node.ID == "" {
		return nil
	}
	var out [][2]string
	for _, svc := range slices.Sorted(maps.Keys(rec.Applied.Nodes)) {
		if svc != target && rec.Applied.Nodes[svc].ID == node.ID {
			out = append(out, [2]string{node.ID, svc})
		}
	}
	if rec.LoadNode != nil && rec.LoadNode.ID == node.ID {
		out = append(out, [2]string{node.ID, "the load"})
	}
	return out
}

// NodeCells is a swarm node that measured the target, with the cells it
// measured (and how often each).
type NodeCells struct {
	Node     string   `json:"node"`
	Hostname string   `json:"hostname,omitempty"`
	Cells    []string `json:"cells"`
}

// nodeCells lists, for a run whose target ran on two or more swarm nodes
// (run --parallel: one lane per node), which node measured which cell,
// in the order of the run's cells, each cell's control (its short
// measurement on every lane, "<id> control") before its repetitions;
// nil when one node (or none) did.
func nodeCells(run *results.Run) []NodeCells {
	var out []NodeCells
	at := map[string]int{}
	add := func(rec results.Record, what string) {
		n, ok := rec.Applied.Nodes[run.Service]
		if !ok || n.ID == "" {
			return
		}
		i, seen := at[n.ID]
		if !seen {
			i, at[n.ID] = len(out), len(out)
			out = append(out, NodeCells{Node: n.ID, Hostname: n.Hostname})
		}
		out[i].Cells = append(out[i].Cells, what)
	}
	for _, rc := range run.Cells {
		for _, c := range rc.Controls {
			add(c.Record, rc.ID+" control")
		}
		for _, rep := range rc.Reps {
			add(rep.Record, fmt.Sprintf("%s r%d", rc.ID, rep.Record.Repetition))
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// nodeWarnings flags, when the nodes' RPS differ by more than band (the
// report's noise band for single figures), every control cell of run
// --parallel (the same short load on every lane's node at once) and
// every cell whose repetitions two or more nodes measured: then the
// nodes do not measure alike, and cells measured on different nodes
// cannot be compared as if measured on one.
func nodeWarnings(run *results.Run, band float64) []string {
	var out []string
	for _, rc := range run.Cells {
		var controls, reps []results.Record
		for _, c := range rc.Controls {
			controls = append(controls, c.Record)
		}
		for _, rep := range rc.Reps {
			reps = append(reps, rep.Record)
		}
		if w := nodesApart(run.Service, controls, band); w != "" {
			out = append(out, "the lanes' nodes measured the control cell "+rc.ID+" "+w)
		}
		if w := nodesApart(run.Service, reps, band); w != "" {
			out = append(out, "the nodes measured "+rc.ID+" "+w)
		}
	}
	return out
}

// nodesApart compares the mean RPS of the ok records per node of the
// target: how far apart they are, with each node's figure, when two or
// more nodes differ by more than band; "" otherwise.
func nodesApart(target string, recs []results.Record, band float64) string {
	rps := map[string][]float64{}
	for _, rec := range recs {
		n, ok := rec.Applied.Nodes[target]
		if ok && n.ID != "" && rec.Status == results.StatusOK {
			rps[n.ID] = append(rps[n.ID], rec.RPS)
		}
	}
	if len(rps) < 2 {
		return ""
	}
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	var parts []string
	for _, id := range slices.Sorted(maps.Keys(rps)) {
		m := stat.Mean(rps[id], nil)
		lo, hi, sum = min(lo, m), max(hi, m), sum+m
		parts = append(parts, fmt.Sprintf("%s %.0f", id, m))
	}
	spread := (hi - lo) / (sum / float64(len(rps)))
	if sum == 0 || spread <= band {
		return ""
	}
	return fmt.Sprintf("%.0f %% apart in RPS (%s), more than the %g %% noise band: "+
		"the nodes do not measure alike, so cells measured on different nodes are not comparable as they stand",
		100*spread, strings.Join(parts, ", "), 100*band)
}
