package limit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// StackRun names the safe-limit searches of one stack: a sweep limit
// run's directory or a run --find-limit's, under a name (php, node, go).
type StackRun struct {
	Name, Dir string
}

// ParseStackRuns parses NAME=DIR arguments; names must be distinct.
func ParseStackRuns(args []string) ([]StackRun, error) {
	if len(args) == 0 {
		return nil, sweep.BadInput("stacks", "none given; give NAME=DIR for each stack, e.g. php=runs/php node=runs/node")
	}
	seen := map[string]bool{}
	out := make([]StackRun, 0, len(args))
	for _, a := range args {
		name, dir, ok := strings.Cut(a, "=")
		name, dir = strings.TrimSpace(name), strings.TrimSpace(dir)
		switch {
		case !ok || name == "" || dir == "":
			return nil, sweep.BadInput("stacks", "%q is not NAME=DIR (a stack's name and its limit run's directory)", a)
		case seen[name]:
			return nil, sweep.BadInput("stacks", "%q is named twice", name)
		}
		seen[name] = true
		out = append(out, StackRun{Name: name, Dir: dir})
	}
	return out, nil
}

// StackLimit is one stack's safe limit: the best of its run's searches,
// its levels read again from their records.
type StackLimit struct {
	Name string
	// Dir holds the search shown: the run's directory (sweep limit) or
	// its best cell repetition's (run --find-limit).
	Dir string
	// File is that search's limit.json, its levels and bottleneck read
	// again from the levels' records (see LoadStack).
	File File
	// Searched counts the searches the run holds; the row is the best.
	Searched int
	// At is the level the evidence is from: the first that failed, else
	// the highest measured; nil when no level was measured.
	At *Level
}

// LoadStack reads the searches of run: dir/limit.json, or every
// cells/<id>/r<N>/limit.json of a run --find-limit, and keeps the one
// with the highest safe limit (fewer web threads, then a smaller pool,
// on a tie). Each level of it is read again from its record
// (levels/<model>-<level>/result.json, beside limit.json) by FromRecord
// with the run's stack (StackOf; db the database's service unless the
// run names one), so the pooler's figures and the sessions a pool per
// web worker allows are there for searches recorded before they were;
// a level without its record stays as limit.json has it. The bottleneck
// is named again at the first failing level.
func LoadStack(run StackRun, db string) (StackLimit, error) {
	paths, err := limitFiles(run.Dir)
	if err != nil {
		return StackLimit{}, err
	}
	out := StackLimit{Name: run.Name, Searched: len(paths)}
	for _, p := range paths {
		f, err := readFile(p)
		if err != nil {
			return StackLimit{}, err
		}
		if out.Dir == "" || better(f, out.File) {
			out.Dir, out.File = filepath.Dir(p), f
		}
	}
	out.File.Result = reread(out.File, out.Dir, db)
	out.At = evidenceLevel(out.File.Result)
	return out, nil
}

// limitFiles lists the limit.json files of a run directory.
func limitFiles(dir string) ([]string, error) {
	top := filepath.Join(dir, FileName)
	if _, err := os.Stat(top); err == nil {
		return []string{top}, nil
	}
	paths, err := filepath.Glob(filepath.Join(dir, "cells", "*", "r*", FileName))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return nil, sweep.BadInput("stacks", "%s: no such directory", dir)
		}
		return nil, sweep.BadInput("stacks", "%s holds no %s: not a sweep limit run nor a run --find-limit", dir, FileName)
	}
	sort.Strings(paths)
	return paths, nil
}

// readFile reads one limit.json.
func readFile(path string) (File, error) {
	var f File
	data, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, sweep.BadInput("stacks", "%s: not a limit.json: %v", path, err)
	}
	if f.Status == "" || f.Cell.ID == "" {
		return f, sweep.BadInput("stacks", "%s: not a limit.json: no status or cell", path)
	}
	return f, nil
}

// level is the safe limit of f, 0 when none held.
func level(f File) int {
	if f.SafeLimit == nil {
		return 0
	}
	return f.SafeLimit.Level
}

// better reports whether a is a better search than b: a higher safe
// limit, or the same with fewer web threads, then a smaller pool.
func better(a, b File) bool {
	switch {
	case level(a) != level(b):
		return level(a) > level(b)
	case a.Cell.WebThreads != b.Cell.WebThreads:
		return a.Cell.WebThreads < b.Cell.WebThreads
	}
	return a.Cell.DBPool < b.Cell.DBPool
}

// reread reads f's levels again from their records in dir and names the
// bottleneck at the first failing level.
func reread(f File, dir, db string) Result {
	if f.Spec.FindLimit != nil && f.Spec.FindLimit.DBService != "" {
		db = f.Spec.FindLimit.DBService
	}
	st := StackOf(f.Spec, db)
	r := f.Result
	r.Levels = make([]Level, len(f.Levels))
	r.Bottleneck = nil
	for i, l := range f.Levels {
		path := filepath.Join(dir, "levels", fmt.Sprintf("%s-%d", f.Config.Model, l.Level), "result.json")
		if rec, err := results.ReadRecord(path); err == nil {
			again := FromRecord(rec, st)
			again.Level, again.Step, again.SLOOK, again.Why = l.Level, l.Step, l.SLOOK, l.Why
			l = again
		}
		r.Levels[i] = l
		if !l.SLOOK && r.Bottleneck == nil {
			b := Classify(l)
			r.Bottleneck = &b
		}
	}
	return r
}

// evidenceLevel is the first failing level, else the highest measured.
func evidenceLevel(r Result) *Level {
	for i := range r.Levels {
		if !r.Levels[i].SLOOK {
			return &r.Levels[i]
		}
	}
	if n := len(r.Levels); n > 0 {
		return &r.Levels[n-1]
	}
	return nil
}

// stackRows are the columns of the stacks' table, after the name.
var stackRows = []struct {
	head string
	cell func(StackLimit) string
}{
	{"safe limit", func(s StackLimit) string {
		if s.File.SafeLimit == nil {
			return "none"
		}
		return strconv.Itoa(s.File.SafeLimit.Level)
	}},
	{"fails at", func(s StackLimit) string {
		if b := s.File.Bottleneck; b != nil {
			return strconv.Itoa(b.Level)
		}
		return "-"
	}},
	{"bottleneck", func(s StackLimit) string {
		if b := s.File.Bottleneck; b != nil {
			return b.Name
		}
		return "none failed"
	}},
	{"pooler CPU (cores) / clients waiting", func(s StackLimit) string {
		if s.At == nil || s.At.Signals.Pooler == nil {
			return "-"
		}
		p := s.At.Signals.Pooler
		cpu := "-"
		if p.CPUCores != nil {
			cpu = fmt.Sprintf("%.2f", *p.CPUCores)
		}
		return fmt.Sprintf("%s / %d", cpu, p.ClientsWaitingPeak)
	}},
	{"DB sessions peak / busy / pool allows", func(s StackLimit) string {
		if s.At == nil || s.At.DBSessionsPeak == nil {
			return "-"
		}
		return fmt.Sprintf("%d / %d / %d", *s.At.DBSessionsPeak, s.At.Signals.DBActivePeak, s.At.Signals.DBPool)
	}},
	{"host CPU wait (%)", func(s StackLimit) string {
		if s.At == nil || s.At.Signals.HostCPUPressure == nil {
			return "-"
		}
		return fmt.Sprintf("%.0f", 100**s.At.Signals.HostCPUPressure)
	}},
	{"DB CPU (%)", func(s StackLimit) string {
		if s.At == nil {
			return "-"
		}
		return optional("%.0f", s.At.DBCPUPct)
	}},
	{"target CPU (% of limit)", func(s StackLimit) string {
		if s.At == nil {
			return "-"
		}
		return optional("%.0f", s.At.TargetCPUPct)
	}},
	{"best web/pool", func(s StackLimit) string {
		return fmt.Sprintf("%d/%d (%d searched)", s.File.Cell.WebThreads, s.File.Cell.DBPool, s.Searched)
	}},
}

// WriteStacks prints the stacks' table (one row per stack, the evidence
// at each one's first failing level), then each bottleneck's evidence in
// words, the stacks ranked by safe limit, and what the searches did not
// share (CPU limit, SLO, model), which makes the ranking no comparison.
func WriteStacks(w io.Writer, stacks []StackLimit) error {
	head := []any{"stack"}
	for _, r := range stackRows {
		head = append(head, r.head)
	}
	rows := make([][]string, 0, len(stacks))
	for _, s := range stacks {
		cells := []string{s.Name}
		for _, r := range stackRows {
			cells = append(cells, r.cell(s))
		}
		rows = append(rows, cells)
	}
	if err := render(w, "stacks table", head, rows); err != nil {
		return err
	}
	_, err := io.WriteString(w, stacksSummary(stacks))
	return err
}

// stacksSummary is the text under the stacks' table.
func stacksSummary(stacks []StackLimit) string {
	var b strings.Builder
	for _, s := range stacks {
		fmt.Fprintf(&b, "%s: %s, cell %s", s.Name, header(s.File.Config.Model), s.File.Cell.ID)
		if bn := s.File.Bottleneck; bn != nil {
			fmt.Fprintf(&b, "; at %d %s (%s)", bn.Level, bn.Name, bn.Evidence)
		} else {
			fmt.Fprintf(&b, "; %s", s.File.Stopped)
		}
		b.WriteString("\n")
	}
	ranked := append([]StackLimit(nil), stacks...)
	sort.SliceStable(ranked, func(i, j int) bool { return level(ranked[i].File) > level(ranked[j].File) })
	parts := make([]string, len(ranked))
	for i, s := range ranked {
		parts[i] = fmt.Sprintf("%s %d", s.Name, level(s.File))
		if s.File.Bottleneck == nil {
			parts[i] = fmt.Sprintf("%s ≥%d", s.Name, level(s.File))
		}
	}
	fmt.Fprintf(&b, "ranking by safe limit: %s\n", strings.Join(parts, " > "))
	for _, d := range differences(stacks) {
		fmt.Fprintf(&b, "not comparable: %s\n", d)
	}
	return b.String()
}

// differences names what the stacks' searches did not share.
func differences(stacks []StackLimit) []string {
	keys := []struct {
		what string
		of   func(StackLimit) string
	}{
		{"CPU limits", func(s StackLimit) string { return strconv.FormatFloat(s.File.Cell.CPUs, 'g', -1, 64) }},
		{"SLOs", func(s StackLimit) string { return s.File.SLO.String() }},
		{"load models", func(s StackLimit) string { return string(s.File.Config.Model) }},
	}
	var out []string
	for _, k := range keys {
		var vals []string
		seen := map[string]bool{}
		for _, s := range stacks {
			v := k.of(s)
			if !seen[v] {
				seen[v] = true
				vals = append(vals, s.Name+" "+v)
			}
		}
		if len(seen) > 1 {
			out = append(out, fmt.Sprintf("different %s (%s)", k.what, strings.Join(vals, ", ")))
		}
	}
	return out
}
