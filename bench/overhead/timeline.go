package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/docker/docker/api/types/filters"
	dswarm "github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/swarm"
)

// timeline watches the tasks of one service during a swarm cell: when
// the old task was told to stop and stopped, and when the new one went
// through each state, by the manager's timestamps of each state (polled
// every 20 ms), from the moment the watch began (just before the update).
type timeline struct {
	cancel context.CancelFunc
	done   chan map[string]time.Duration
}

func watchTasks(ctx context.Context, mgr swarm.Manager, service string) *timeline {
	ctx, cancel := context.WithCancel(ctx)
	tl := &timeline{cancel: cancel, done: make(chan map[string]time.Duration, 1)}
	start := time.Now()
	go func() {
		seen := map[string]time.Duration{}
		old := map[string]bool{}
		first := true
		for ctx.Err() == nil {
			tasks, err := mgr.TaskList(ctx, dswarm.TaskListOptions{Filters: filters.NewArgs(filters.Arg("service", service))})
			if err == nil {
				for _, t := range tasks {
					if first && t.Status.State == dswarm.TaskStateRunning {
						old[t.ID] = true
					}
					who := "new "
					if old[t.ID] {
						who = "old "
						if t.DesiredState != dswarm.TaskStateRunning {
							note(seen, who+"told to stop", time.Since(start))
						}
					} else if first {
						continue // an older task that ended before
					}
					at := t.Status.Timestamp.Sub(start)
					note(seen, who+string(t.Status.State), max(at, 0))
				}
				first = false
			}
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
		tl.done <- seen
	}()
	return tl
}

// note keeps the first time a step was seen.
func note(seen map[string]time.Duration, step string, at time.Duration) {
	if _, ok := seen[step]; !ok {
		seen[step] = at
	}
}

// stop ends the watch, adds its steps to steps and returns them as a line.
func (tl *timeline) stop(steps map[string][]time.Duration) string {
	tl.cancel()
	seen := <-tl.done
	for k, v := range seen {
		steps[k] = append(steps[k], v)
	}
	return " (" + ordered(seen) + ")"
}

// ordered lists steps by time.
func ordered(seen map[string]time.Duration) string {
	keys := slices.SortedFunc(maps.Keys(seen), func(a, b string) int { return int(seen[a] - seen[b]) })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %.2f", k, seen[k].Seconds()))
	}
	return strings.Join(parts, ", ")
}

// medians is each step's median over the cells, by time.
func medians(steps map[string][]time.Duration) string {
	m := map[string]time.Duration{}
	for k, v := range steps {
		m[k] = median(v)
	}
	return ordered(m)
}
