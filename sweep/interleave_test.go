package sweep

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// interleavedSpec is testSpec on the interleaved schedule: 10 s slices,
// rounds auto over a 1 minute phase.
func interleavedSpec() Spec {
	s := testSpec()
	s.Schedule, s.Slice, s.RoundsAuto = ScheduleInterleaved, Duration(10*time.Second), true
	s.Duration = Duration(time.Minute)
	return s
}

func TestValidateSchedule(t *testing.T) {
	t.Parallel()
	checkValidate(t, interleavedSpec, []validateCase{
		{"sequential", func(s *Spec) { *s = testSpec() }, ""},
		{"interleaved, rounds auto", func(*Spec) {}, ""},
		{"interleaved, 4 rounds", func(s *Spec) { s.RoundsAuto, s.Rounds = false, 4 }, ""},
		{"interleaved, default slice", func(s *Spec) { s.Slice = 0 }, ""},
		{"unknown schedule", func(s *Spec) { s.Schedule = "parallel" }, "schedule"},
		{"slice without the schedule", func(s *Spec) { s.Schedule = "" }, "slice"},
		{"rounds without the schedule", func(s *Spec) { s.Schedule, s.Slice = "", 0 }, "rounds"},
		{"slice longer than the phase", func(s *Spec) { s.Slice = s.Duration + 1 }, "slice"},
		{"slice negative", func(s *Spec) { s.Slice = -1 }, "slice"},
		{"no rounds", func(s *Spec) { s.RoundsAuto = false }, "rounds"},
		{"rounds and auto", func(s *Spec) { s.Rounds = 3 }, "rounds"},
		{"one round", func(s *Spec) { s.RoundsAuto, s.Rounds = false, 1 }, "rounds"},
		{"repeat 2", func(s *Spec) { s.Repeat = 2 }, "repeat"},
		{"repeat auto", func(s *Spec) { s.RepeatAuto, s.MaxRepeat = true, 3 }, "repeat"},
		{"halving on 4 rounds", func(s *Spec) { s.Strategy, s.RoundsAuto, s.Rounds = StrategyHalving, false, 4 }, ""},
		{"halving on 3 rounds, no rung", func(s *Spec) { s.Strategy, s.RoundsAuto, s.Rounds = StrategyHalving, false, 3 }, "rounds"},
		{"find limit", func(s *Spec) { s.FindLimit = &FindLimit{SLO: "p99<=1s"} }, "find_limit"},
		{"swarm", func(s *Spec) { s.Swarm = true }, ""},
		{"swarm lanes", func(s *Spec) { s.Swarm, s.Parallel = true, 2 }, "parallel"},
		{"kubernetes", func(s *Spec) {
			s.Kubernetes, s.Manifests, s.LoadImage = true, []string{"k.yaml"}, "sweep-drive:1"
		}, ""},
		{"kubernetes lanes", func(s *Spec) {
			s.Kubernetes, s.Manifests, s.LoadImage, s.Parallel = true, []string{"k.yaml"}, "sweep-drive:1", 2
		}, "parallel"},
		{"lanes", func(s *Spec) { s.Parallel = 2 }, "parallel"},
		{"precision", func(s *Spec) { s.Precision = 0.02 }, "precision"},
		{"order shuffle", func(s *Spec) { s.Order = OrderShuffle }, "order"},
		{"a control cell", func(s *Spec) { s.Control = "cpu_1__web_1__db_2" }, "control"},
		{"variants", func(s *Spec) { s.Variants = []Variant{{Name: "a", Files: []string{"a.yaml"}}} }, "variants"},
		{"pool of a pooler", func(s *Spec) { s.PoolEnv = "pgbouncer:DEFAULT_POOL_SIZE" }, "pool_env"},
		{"axis of another service", func(s *Spec) { s.Axes = []Axis{{Service: "db", Name: "X", Values: []string{"1"}}} }, "axes"},
		{"axis of the target", func(s *Spec) { s.Axes = []Axis{{Name: "X", Values: []string{"1", "2"}}} }, ""},
	})
}

func TestParseScheduleAndRounds(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", "sequential": "", "interleaved": "interleaved"} {
		if got, err := ParseSchedule("schedule", in); err != nil || got != want {
			t.Errorf("ParseSchedule(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseSchedule("schedule", "interleave"); badField(err) != "schedule" {
		t.Errorf("ParseSchedule(interleave) = %v, want bad input in schedule", err)
	}
	if n, auto, err := ParseRounds("rounds", "auto"); n != 0 || !auto || err != nil {
		t.Errorf("ParseRounds(auto) = %d, %t, %v", n, auto, err)
	}
	if n, auto, err := ParseRounds("rounds", "6"); n != 6 || auto || err != nil {
		t.Errorf("ParseRounds(6) = %d, %t, %v", n, auto, err)
	}
	for _, bad := range []string{"1", "0", "many", "1001", ""} {
		if _, _, err := ParseRounds("rounds", bad); badField(err) != "rounds" {
			t.Errorf("ParseRounds(%q) = %v, want bad input in rounds", bad, err)
		}
	}
}

func TestMaxRounds(t *testing.T) {
	t.Parallel()
	s := interleavedSpec()
	for _, tc := range []struct {
		slice, duration time.Duration
		want            int
	}{
		{10 * time.Second, time.Minute, 6},
		{15 * time.Second, time.Minute, 4},
		{25 * time.Second, time.Minute, 3}, // 75 s: the last slice may pass the phase's length
		{time.Minute, time.Minute, 2},      // two rounds at least
	} {
		s.Slice, s.Duration = Duration(tc.slice), Duration(tc.duration)
		if got := s.MaxRounds(); got != tc.want {
			t.Errorf("MaxRounds with %s slices of a %s phase = %d, want %d", tc.slice, tc.duration, got, tc.want)
		}
	}
	s.RoundsAuto, s.Rounds = false, 9
	if got := s.MaxRounds(); got != 9 {
		t.Errorf("MaxRounds with 9 rounds = %d", got)
	}
	s.Slice, s.Duration = 0, Duration(time.Minute)
	if got := s.SliceLength(); got != DefaultSlice {
		t.Errorf("SliceLength without a slice = %s, want %s", got, DefaultSlice)
	}
}

// TestInterleavedEstimateIsTheSequentialRun: with rounds auto, the
// interleaved run of a grid costs the sequential run's time less its
// controls, and measures no control.
func TestInterleavedEstimateIsTheSequentialRun(t *testing.T) {
	t.Parallel()
	seq := testSpec()
	seq.Warmup, seq.Duration, seq.ControlEvery = Duration(30*time.Second), Duration(5*time.Minute), DefaultControlEvery
	inter := seq
	inter.Schedule, inter.Slice, inter.RoundsAuto = ScheduleInterleaved, Duration(15*time.Second), true
	s, i := seq.Estimate(), inter.Estimate()
	if i.Controls != 0 || i.Rounds != 20 || i.Slices != 4*20 || i.Jobs != 4 {
		t.Errorf("interleaved estimate %+v, want 4 targets, 20 rounds, 80 slices, no controls", i)
	}
	if want := s.Total - time.Duration(s.Controls)*s.PerControl; i.Total != want {
		t.Errorf("interleaved run ≈ %s, want the sequential %s less its controls = %s", i.Total, s.Total, want)
	}
	inter.RoundsAuto, inter.Rounds = false, 4 // 4 × 15 s = a minute of load per cell
	if got, want := inter.Estimate().Total, 4*(CellOverhead+30*time.Second+time.Minute)+StackOverhead; got != want {
		t.Errorf("4 rounds of 15 s: %s, want %s", got, want)
	}
}

func TestGroups(t *testing.T) {
	t.Parallel()
	s := testSpec()
	s.CPUs, s.WebMult, s.DBMult = []float64{1, 2}, []float64{1, 2}, []float64{2, 3}
	cells := s.Cells() // pools 2, 3, 4, 6 at 1 CPU; 4, 6, 8, 12 at 2 CPUs
	shape := s.PoolShape(1)
	ids := func(gs []TargetGroup) [][]string {
		out := make([][]string, len(gs))
		for i, g := range gs {
			for _, c := range g.Cells {
				out[i] = append(out[i], c.ID)
			}
		}
		return out
	}
	whole := Groups(cells, shape, 0)
	if len(whole) != 2 || len(whole[0].Cells) != 4 || whole[0].Conns != 15 || whole[1].Conns != 30 || whole[1].Parts != 0 {
		t.Fatalf("groups without a limit: %v (conns %d, %d)", ids(whole), whole[0].Conns, whole[1].Conns)
	}
	if Split(whole, 0) != "" {
		t.Errorf("no split said %q", Split(whole, 0))
	}
	split := Groups(cells, shape, 16)
	want := [][]string{
		{"cpu_1__web_1__db_2", "cpu_1__web_1__db_3", "cpu_1__web_2__db_4", "cpu_1__web_2__db_6"},
		{"cpu_2__web_2__db_4", "cpu_2__web_2__db_6"},
		{"cpu_2__web_4__db_8"},
		{"cpu_2__web_4__db_12"},
	}
	if got := ids(split); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("groups within 16 connections: %v, want %v", got, want)
	}
	for i, g := range split {
		if g.Index != i+1 || g.Conns > 16 {
			t.Errorf("group %d: index %d, %d connections", i+1, g.Index, g.Conns)
		}
	}
	if split[1].Part != 1 || split[3].Part != 3 || split[3].Parts != 3 || split[0].Parts != 0 {
		t.Errorf("parts: %+v", split)
	}
	if msg := Split(split, 16); !strings.Contains(msg, "2 CPUs in 3 groups") || !strings.Contains(msg, "16 connections") {
		t.Errorf("Split = %q", msg)
	}
	over := Groups(cells, shape, 5) // cpu 2's pools of 8 and 12 are over alone: a group each
	for _, g := range over {
		if len(g.Cells) > 1 && g.Conns > 5 {
			t.Errorf("group %v holds %d connections over 5", ids([]TargetGroup{g}), g.Conns)
		}
	}
}

// TestRoundOrderReplays: each round's order is a permutation drawn from
// the seed, the group and the round alone, so a resume replays it; the
// rounds differ.
func TestRoundOrderReplays(t *testing.T) {
	t.Parallel()
	s := testSpec()
	s.WebMult, s.DBMult = []float64{1, 2, 3, 4}, []float64{1, 2}
	g := Groups(s.Cells(), s.PoolShape(1), 0)[1]
	first := g.Round(7, 1)
	if len(first) != len(g.Cells) {
		t.Fatalf("round of %d jobs for %d targets", len(first), len(g.Cells))
	}
	seen := map[string]bool{}
	for i, j := range first {
		seen[j.Cell.ID] = true
		if j.Rep != 1 || j.Slice == nil || *j.Slice != (results.LoadSlice{Group: g.Index, Round: 1, Position: i + 1, Targets: len(g.Cells)}) {
			t.Errorf("job %d: rep %d slice %+v", i, j.Rep, j.Slice)
		}
		if j.Dir("run") != "run/cells/"+j.Cell.ID+"/r1" {
			t.Errorf("job %d files under %s", i, j.Dir("run"))
		}
	}
	if len(seen) != len(g.Cells) {
		t.Errorf("round 1 gives %d of %d targets a slice", len(seen), len(g.Cells))
	}
	if again := g.Round(7, 1); !slices.EqualFunc(first, again, func(a, b Job) bool { return a.Cell.ID == b.Cell.ID }) {
		t.Error("round 1 drawn again differs")
	}
	differs := false
	for k := 2; k <= 6; k++ {
		differs = differs || !slices.EqualFunc(first, g.Round(7, k), func(a, b Job) bool { return a.Cell.ID == b.Cell.ID })
	}
	if !differs {
		t.Error("rounds 2-6 all in round 1's order")
	}
}

// TestDiffSpecsKeepsTheInterleavedSeed: a resume may run more rounds,
// not draw other orders, nor switch the schedule.
func TestDiffSpecsKeepsTheInterleavedSeed(t *testing.T) {
	t.Parallel()
	saved, err := json.Marshal(interleavedSpec().Redacted())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(*Spec)
		want   string
	}{
		{"more rounds", func(s *Spec) { s.RoundsAuto, s.Rounds = false, 9 }, ""},
		{"another seed", func(s *Spec) { s.Seed = 99 }, "seed"},
		{"another slice", func(s *Spec) { s.Slice = Duration(5 * time.Second) }, "slice"},
		{"sequential", func(s *Spec) { s.Schedule, s.Slice, s.RoundsAuto = "", 0, false }, "schedule"},
	} {
		s := interleavedSpec()
		tc.change(&s)
		diff, err := DiffSpecs(saved, false, s)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(diff, "; ")
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: diff %q, want %q", tc.name, got, tc.want)
		}
	}
	seq, _ := json.Marshal(testSpec().Redacted())
	other := testSpec()
	other.Seed = 99
	if diff, _ := DiffSpecs(seq, false, other); len(diff) != 0 {
		t.Errorf("a sequential run's seed is operational, diff %v", diff)
	}
}
