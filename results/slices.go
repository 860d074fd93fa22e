package results

import (
	"regexp"
	"sort"
	"strings"
)

// Slice names the values of the extra axes a cell has (variant, load
// level, memory, env axes), e.g. "memory=256m pgbouncer:POOL_MODE=session";
// empty for a cell of a plain grid. Cells of one slice form one grid of
// CPU × web × pool, which is what a report analyses.
func (c CellInfo) Slice() string {
	var parts []string
	if c.Variant != "" {
		parts = append(parts, "variant="+c.Variant)
	}
	if c.LoadLevel != "" {
		parts = append(parts, "load="+c.LoadLevel)
	}
	if c.Memory != "" {
		parts = append(parts, "memory="+c.Memory)
	}
	keys := make([]string, 0, len(c.Axes))
	for k := range c.Axes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+c.Axes[k])
	}
	return strings.Join(parts, " ")
}

// Slices lists the run's slices in plan order (one empty name for a plain
// grid).
func (r *Run) Slices() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range r.Cells {
		if s := c.Slice(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// LoadSlices counts an interleaved run's slices of load and their
// seconds of load (the measured phases; none in a sequential run).
func (r *Run) LoadSlices() (n int, loadS float64) {
	for _, c := range r.Cells {
		for _, rep := range c.Reps {
			if rep.LoadSlice != nil {
				n++
				loadS += rep.DurationS
			}
		}
	}
	return n, loadS
}

// Only returns a copy of the run with only the cells of one slice.
func (r *Run) Only(slice string) *Run {
	out := *r
	out.Cells, out.Missing = nil, nil
	for _, c := range r.Cells {
		if c.Slice() == slice {
			out.Cells = append(out.Cells, c)
			if len(c.Reps) == 0 {
				out.Missing = append(out.Missing, c.ID)
			}
		}
	}
	return &out
}

var slugRe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// SliceSlug is a folder name for a slice.
func SliceSlug(slice string) string {
	if slice == "" {
		return "all"
	}
	return strings.Trim(slugRe.ReplaceAllString(slice, "_"), "_")
}
