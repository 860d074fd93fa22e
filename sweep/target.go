package sweep

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/sweep-tool/sweep/results"
)

// targetConfig is what cell asks of the target: its CPU limit, memory,
// cpuset, the swept variables and the env axes of every service.
func (r *Runner) targetConfig(cell Cell, dir string) TargetConfig {
	env := map[string]string{r.Spec.WebEnv: fmt.Sprint(cell.WebThreads)}
	if r.Spec.NameEnv != "" {
		env[r.Spec.NameEnv] = cell.ID
	}
	cfg := TargetConfig{Dir: dir, CPUs: cell.CPUs, CPUSet: r.Spec.CPUSet, Memory: cell.Extras.Memory,
		Env: env, Labels: map[string]string{LabelCell: cell.ID}}
	if pool := r.Spec.PoolTarget(); pool.Service == "" {
		env[pool.Name] = fmt.Sprint(cell.DBPool)
	} else {
		setServiceEnv(&cfg, pool.Service, pool.Name, fmt.Sprint(cell.DBPool))
	}
	for _, a := range r.Spec.Axes {
		v, ok := cell.Extras.Env[a.Key()]
		switch {
		case !ok:
		case a.Service == "" || a.Service == r.Spec.Service:
			env[a.Name] = v
		default:
			setServiceEnv(&cfg, a.Service, a.Name, v)
		}
	}
	return cfg
}

func (r *Runner) sweptEnv() []string { return r.Spec.SweptEnv() }

// checkApplied compares what the engine reports with what the cell asked.
func checkApplied(cfg TargetConfig, got results.Applied, names []string) error {
	var diffs []string
	if want, _ := MemoryBytes(cfg.Memory); cfg.Memory != "" && got.MemoryBytes != want {
		diffs = append(diffs, fmt.Sprintf("memory %d bytes, asked %s", got.MemoryBytes, cfg.Memory))
	}
	if math.Abs(got.CPUs-cfg.CPUs) > 1e-6 {
		diffs = append(diffs, fmt.Sprintf("cpus %s, asked %s", FormatNumber(got.CPUs), FormatNumber(cfg.CPUs)))
	}
	for _, n := range names {
		if got.Env[n] != cfg.Env[n] {
			diffs = append(diffs, fmt.Sprintf("%s=%q, asked %q", n, got.Env[n], cfg.Env[n]))
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		return fmt.Errorf("target runs with %s", strings.Join(diffs, ", "))
	}
	return nil
}
