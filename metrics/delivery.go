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
// reads the engine's counters for the target with one-shot stats requests
// just before the phase (Start) and just after it (Stop), so the two
// readings bracket every byte the driver sent: the streamed samples of
// Run arrive on the engine's own one-second clock and would miss up to a
// second at either end. Engine 20.10 answers a one-shot request at its
// next collection, so each reading takes up to a second (half on
// average); Start returns only once its reading is taken, which is what
// keeps the driver's first byte inside the bracket. The counters are those of the container's network
// interfaces (rx bytes and packets, every interface summed), as the stats
// stream's networks field has them; a target without interfaces of its
// own (network_mode host, or another container's network) is proven by
// the owner of the URL's listening socket instead (see hostproof.go).
type Reception struct {
	eng   Engine
	id    string
	url   string
	procs string // the proc file system, "/proc" outside tests
	begin reading
	err   error // the first reading's failure
}

// reading is one one-shot stats reading of a container.
type reading struct {
	at        time.Time
	networks  bool // the container has interfaces of its own
	rxBytes   uint64
	rxPackets uint64
	cpuNS     uint64
}

// StartReception takes the first reading of container id, the target
// that url's load should reach. It does not fail: a reading that cannot
// be taken makes Stop report that no proof was possible.
func StartReception(ctx context.Context, eng Engine, id, url string) *Reception {
	r := &Reception{eng: eng, id: id, url: url, procs: "/proc"}
	r.begin, r.err = readOnce(ctx, eng, id)
	return r
}

// Stop takes the second reading and returns what the target received
// between the two, ready for sweep.CheckDelivery (which adds the sent
// side and the verdict).
func (r *Reception) Stop(ctx context.Context) *results.Delivery {
	if r.err != nil {
		return none("the target's counters could not be read before the phase: %v", r.err)
	}
	end, err := readOnce(ctx, r.eng, r.id)
	if err != nil {
		return none("the target's counters could not be read after the phase: %v", err)
	}
	if !r.begin.networks || !end.networks {
		return r.hostProof(ctx, end)
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
