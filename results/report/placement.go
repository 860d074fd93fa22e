package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

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
