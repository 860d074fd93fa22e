package benchcli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LoadSampler reads the host's 1-minute load average every so often
// until stopped.
type LoadSampler struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	loads  []float64
}

// StartLoad starts reading /proc/loadavg every so often, at once first.
func StartLoad(ctx context.Context, every time.Duration) *LoadSampler {
	ctx, cancel := context.WithCancel(ctx)
	s := &LoadSampler{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s.read()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *LoadSampler) read() {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return
	}
	if l, err := oneMinute(string(b)); err == nil {
		s.mu.Lock()
		s.loads = append(s.loads, l)
		s.mu.Unlock()
	}
}

// Stop ends the sampling, takes one last reading and returns them all.
func (s *LoadSampler) Stop() []float64 {
	s.cancel()
	<-s.done
	s.read()
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.loads)
}

// oneMinute is the 1-minute load average of a /proc/loadavg line.
func oneMinute(line string) (float64, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return 0, fmt.Errorf("/proc/loadavg: %q is not a load line", line)
	}
	return strconv.ParseFloat(f[0], 64)
}

// LoadSummary is the range and median of the load readings.
func LoadSummary(loads []float64, every time.Duration) string {
	if len(loads) == 0 {
		return "not read (no /proc/loadavg)"
	}
	return fmt.Sprintf("1-min load average %s (%d readings of /proc/loadavg, every %s)", LoadRange(loads), len(loads), every)
}

// LoadRange is the load readings' range and median, e.g. "1.00–9.00,
// median 3.50"; "not read" without any.
func LoadRange(loads []float64) string {
	if len(loads) == 0 {
		return "not read"
	}
	s := slices.Sorted(slices.Values(loads))
	return fmt.Sprintf("%.2f–%.2f, median %.2f", s[0], s[len(s)-1], (s[(len(s)-1)/2]+s[len(s)/2])/2)
}
