package sweep

import "strings"

// NodePlaceholder stands, in the URL and the DSNs of a spec with
// Parallel, for the address of the node a lane runs on.
const NodePlaceholder = "{node}"

// MaxParallel bounds Parallel.
const MaxParallel = 32

// LaneURL is the URL with the lane node's address in place of
// NodePlaceholder.
func (s Spec) LaneURL(addr string) string { return strings.ReplaceAll(s.URL, NodePlaceholder, addr) }

// ForLane is the spec one lane runs: its URL and DSNs with the lane
// node's address in place of NodePlaceholder.
func (s Spec) ForLane(addr string) Spec {
	s.URL = s.LaneURL(addr)
	s.DBDSN = strings.ReplaceAll(s.DBDSN, NodePlaceholder, addr)
	s.PoolerDSN = strings.ReplaceAll(s.PoolerDSN, NodePlaceholder, addr)
	return s
}

// validateLanes checks Parallel and LaneNodes: lanes need a swarm, pin
// every service themselves, cannot share one URL or database, and run
// the grid (not halving's rounds, automatic repetitions, safe-limit
// searches or variants, which decide as they go).
func (s Spec) validateLanes() error {
	hasNode := func(v string) bool { return strings.Contains(v, NodePlaceholder) }
	switch {
	case s.Parallel < 0 || s.Parallel > MaxParallel:
		return BadInput("parallel", "must be from 1 to %d (cells measured at once, one swarm node each)", MaxParallel)
	case s.Parallel == 0 && len(s.LaneNodes) > 0:
		return BadInput("lane_nodes", "names the nodes of the lanes; give {parallel} N too")
	case s.Parallel == 0 && (hasNode(s.URL) || hasNode(s.DBDSN) || hasNode(s.PoolerDSN)):
		return BadInput("parallel", "%s in the URL or a DSN stands for a lane's node address; give {parallel} N (with {swarm})", NodePlaceholder)
	case s.Parallel == 0:
		return nil
	case !s.Swarm:
		return BadInput("parallel", "runs cells on several swarm nodes at once; give {swarm} too")
	case len(s.LaneNodes) > 0 && len(s.LaneNodes) < s.Parallel:
		return BadInput("lane_nodes", "names %d node(s) for %d lanes; name one per lane", len(s.LaneNodes), s.Parallel)
	case len(s.StackPlace()) > 0:
		return BadInput("place", "with {parallel} every service of a lane's stack runs on the lane's node; drop the SERVICE=CONSTRAINT entries (load=CONSTRAINT may stay)")
	case s.Strategy == StrategyHalving || s.RepeatAuto || s.FindLimit != nil || len(s.Variants) > 0:
		return BadInput("parallel", "runs the grid's cells side by side; halving, automatic repetitions, the safe-limit search and variants run one stack")
	case s.Parallel >= 2 && !hasNode(s.URL):
		return BadInput("url", "with {parallel} %d each lane's target is reached on its own node: write %s where the node's address goes, e.g. http://%s:18080",
			s.Parallel, NodePlaceholder, NodePlaceholder)
	case s.Parallel >= 2 && s.DBDSN != "" && !hasNode(s.DBDSN):
		return BadInput("db_dsn", "with {parallel} %d each lane has its own database: write %s where the node's address goes", s.Parallel, NodePlaceholder)
	case s.Parallel >= 2 && s.PoolerDSN != "" && !hasNode(s.PoolerDSN):
		return BadInput("pooler_dsn", "with {parallel} %d each lane has its own pooler: write %s where the node's address goes", s.Parallel, NodePlaceholder)
	}
	return nil
}
