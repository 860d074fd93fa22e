package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/results"
)

// Reception watches what the target container receives over a measured
// phase, for the runner's proof of delivery (sweep.CheckDelivery). It
// reads the target's counters just before the phase (Start) and just
// after it (Stop), so the two readings bracket every byte the driver
// sent. The counters are those of the container's network interfaces (rx
// bytes and packets, every interface but loopback summed), as the stats
// stream's networks field has them. Where the target's processes are
// visible on this machine (sweep on the engine's host, as root, the
// target in a network of its own) they are read from its network
// namespace's /proc/<pid>/net/dev, at once; elsewhere from a one-shot
// stats request, which Engine 20.10 answers at its next once-a-second
// collection (half a second on average, up to one, for each of the two
// readings). Either way Start returns only once its reading is taken,
// which is what keeps the driver's first byte inside the bracket, and a
// streamed sample would miss up to a second at either end. A target
// without interfaces of its own (network_mode host, or another
// container's network) is proven by the owner of the URL's listening
// socket instead (see hostproof.go).
type Reception struct {
	eng   Engine
	id    string
	url   string
	procs string // the proc file system, "/proc" outside tests
	begin reading
	err   error // the first reading's failure
}

// reading is one reading of a container's counters.
type reading struct {
	at        time.Time
	networks  bool // the container has interfaces of its own
	rxBytes   uint64
	rxPackets uint64
	cpuNS     uint64
	// pid is the target's process the reading came from in /proc, 0
	// for a stats reading: a pid that changed is a restart.
	pid int
}

// StartReception takes the first reading of container id, the target
// that url's load should reach. It does not fail: a reading that cannot
// be taken makes Stop report that no proof was possible.
func StartReception(ctx context.Context, eng Engine, id, url string) *Reception {
	return startReception(ctx, eng, id, url, "/proc")
}

// startReception is StartReception with the proc file system at procs.
func startReception(ctx context.Context, eng Engine, id, url, procs string) *Reception {
	r := &Reception{eng: eng, id: id, url: url, procs: procs}
	r.begin, r.err = r.read(ctx)
	return r
}

// read takes one reading of the target: from /proc where its network
// namespace is visible here, else from a one-shot stats request.
func (r *Reception) read(ctx context.Context) (reading, error) {
	if rd, ok := procReading(ctx, r.eng, procFS(r.procs), r.id); ok {
		return rd, nil
	}
	return readOnce(ctx, r.eng, r.id)
}

// Stop takes the second reading and returns what the target received
// between the two, ready for sweep.CheckDelivery (which adds the sent
// side and the verdict).
func (r *Reception) Stop(ctx context.Context) *results.Delivery {
	if r.err != nil {
		return none("the target's counters could not be read before the phase: %v", r.err)
	}
	end, err := r.read(ctx)
	if err != nil {
		return none("the target's counters could not be read after the phase: %v", err)
	}
	if !r.begin.networks || !end.networks {
		return r.hostProof(ctx, end)
	}
	if r.begin.pid != 0 && end.pid != 0 && end.pid != r.begin.pid {
		return none("the target's process changed during the phase (it restarted)")
	}
	if end.rxBytes < r.begin.rxBytes || end.rxPackets < r.begin.rxPackets {
		return none("the target's network counters went back during the phase (it restarted)")
	}
	return &results.Delivery{
		Method:          results.DeliveryNetwork,
		ReceivedBytes:   int64(end.rxBytes - r.begin.rxBytes),
		ReceivedPackets: int64(end.rxPackets - r.begin.rxPackets),
		WindowS:         end.at.Sub(r.begin.at).Seconds(),
	}
}

func none(format string, args ...any) *results.Delivery {
	return &results.Delivery{Method: results.DeliveryNone, Note: fmt.Sprintf(format, args...)}
}

// readOnce takes one stats reading of container id without waiting for
// the engine's next collection (the one-shot request of API 1.41; an
// older engine answers after its next collection, a second at most).
func readOnce(ctx context.Context, eng Engine, id string) (reading, error) {
	resp, err := eng.ContainerStatsOneShot(ctx, id)
	if err != nil {
		return reading{}, err
	}
	defer resp.Body.Close()
	var st container.StatsResponse
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return reading{}, fmt.Errorf("decode stats of %.12s: %w", id, err)
	}
	if st.Read.IsZero() {
		return reading{}, fmt.Errorf("container %.12s is not running", id)
	}
	rd := reading{at: st.Read, networks: len(st.Networks) > 0, cpuNS: st.CPUStats.CPUUsage.TotalUsage}
	for _, n := range st.Networks {
		rd.rxBytes += n.RxBytes
		rd.rxPackets += n.RxPackets
	}
	return rd, nil
}

// procReading reads container id's network counters from the proc file
// system p: the rx bytes and packets of every interface but loopback in
// /proc/<pid>/net/dev of its process. ok is false, and the caller asks
// the engine, unless the container runs with a network namespace of its
// own (not host, another container's or none) and its process is this
// machine's: its cgroup names the container (an engine on another
// machine, or sweep in a container, sees other processes or none).
func procReading(ctx context.Context, eng Engine, p procFS, id string) (reading, bool) {
	c := inspect(ctx, eng, id)
	if c == nil || c.HostConfig == nil {
		return reading{}, false
	}
	if m := c.HostConfig.NetworkMode; m.IsHost() || m.IsContainer() || m.IsNone() {
		return reading{}, false
	}
	if _, ok := p.groupOf(c); !ok {
		return reading{}, false
	}
	at := time.Now()
	bytes, packets, err := p.netDev(c.State.Pid)
	if err != nil {
		return reading{}, false
	}
	return reading{at: at, networks: true, pid: c.State.Pid, rxBytes: bytes, rxPackets: packets}, true
}
