package sweep

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// TestValidate takes each check of a spec to its bounds: the last value
// accepted and the first refused.
// validateCase is a change to a valid spec and the field Validate then
// names ("" when the spec stays valid).
type validateCase struct {
	name   string
	change func(*Spec)
	field  string
}

// checkValidate runs Validate on each case's change to base().
func checkValidate(t *testing.T, base func() Spec, cases []validateCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := base()
			tc.change(&s)
			err := s.Validate()
			if got := badField(err); got != tc.field {
				t.Errorf("Validate() = %v, want bad input in %q", err, tc.field)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	checkValidate(t, testSpec, []validateCase{
		{"test spec", func(*Spec) {}, ""},
		{"no cpus", func(s *Spec) { s.CPUs = nil }, "cpus"},
		{"no web mult", func(s *Spec) { s.WebMult = nil }, "web_mult"},
		{"no db mult", func(s *Spec) { s.DBMult = nil }, "db_mult"},
		{"no service", func(s *Spec) { s.Service = "" }, "service"},
		{"no web env", func(s *Spec) { s.WebEnv = "" }, "web_env"},
		{"no pool env", func(s *Spec) { s.PoolEnv = "" }, "web_env"},
		{"ready timeout 0", func(s *Spec) { s.ReadyTimeout = 0 }, "ready_timeout"},
		{"ready timeout 1ns", func(s *Spec) { s.ReadyTimeout = 1 }, ""},
		{"duration 0", func(s *Spec) { s.Duration = 0 }, "duration"},
		{"duration 1ns", func(s *Spec) { s.Duration = 1 }, ""},
		{"warm-up 0", func(s *Spec) { s.Warmup = 0 }, ""},
		{"warm-up negative", func(s *Spec) { s.Warmup = -1 }, "warmup"},
		{"ready path without slash", func(s *Spec) { s.ReadyPath = "health" }, "ready_path"},
		{"repeat 0", func(s *Spec) { s.Repeat = 0 }, "repeat"},
		{"repeat 100", func(s *Spec) { s.Repeat = 100 }, ""},
		{"repeat 101", func(s *Spec) { s.Repeat = 101 }, "repeat"},
		{"unknown order", func(s *Spec) { s.Order = "random" }, "order"},
		{"retries 10", func(s *Spec) { s.Retries = 10 }, ""},
		{"retries 11", func(s *Spec) { s.Retries = 11 }, "retries"},
		{"retries negative", func(s *Spec) { s.Retries = -1 }, "retries"},
		{"max failures 0", func(s *Spec) { s.MaxFailures = 0 }, ""},
		{"max failures negative", func(s *Spec) { s.MaxFailures = -1 }, "max_failures"},
		{"cooldown 0", func(s *Spec) { s.Cooldown = 0 }, ""},
		{"cooldown negative", func(s *Spec) { s.Cooldown = -1 }, "cooldown"},
		{"precision 2 %", func(s *Spec) { s.Precision = 0.02 }, ""},
		{"repeat auto, cap 5", func(s *Spec) { s.RepeatAuto, s.MaxRepeat = true, 5 }, ""},
		{"repeat auto, cap 1", func(s *Spec) { s.RepeatAuto, s.MaxRepeat = true, 1 }, "max_repeat"},
		{"repeat auto, cap below the first repetitions", func(s *Spec) { s.RepeatAuto, s.Repeat, s.MaxRepeat = true, 3, 2 }, "max_repeat"},
		{"repeat auto, cap 101", func(s *Spec) { s.RepeatAuto, s.MaxRepeat = true, 101 }, "max_repeat"},
		{"cap without repeat auto", func(s *Spec) { s.MaxRepeat = 5 }, "max_repeat"},
		{"precision negative", func(s *Spec) { s.Precision = -0.01 }, "precision"},
		{"precision 100 %", func(s *Spec) { s.Precision = 1 }, "precision"},
		{"precision NaN", func(s *Spec) { s.Precision = math.NaN() }, "precision"},
		{"min duration equal to duration", func(s *Spec) { s.Precision, s.MinDuration = 0.02, s.Duration }, ""},
		{"min duration above duration", func(s *Spec) { s.Precision, s.MinDuration = 0.02, s.Duration+1 }, "min_duration"},
		{"min duration negative", func(s *Spec) { s.Precision, s.MinDuration = 0.02, -1 }, "min_duration"},
		{"min duration without precision", func(s *Spec) { s.MinDuration = 1 }, "min_duration"},
		{"cpuset list", func(s *Spec) { s.CPUSet = "0-1,3" }, ""},
		{"cpuset words", func(s *Spec) { s.CPUSet = "first" }, "cpuset"},
		{"https url", func(s *Spec) { s.URL = "https://example.test" }, ""},
		{"ftp url", func(s *Spec) { s.URL = "ftp://h/" }, "url"},
		{"url without host", func(s *Spec) { s.URL = "http:///x" }, "url"},
		{"env name with space", func(s *Spec) { s.NameEnv = "A B" }, "web_env"},
		{"driver k6", func(s *Spec) { s.Driver = "k6" }, ""},
		{"load placed with its image", func(s *Spec) { s.Swarm, s.Place, s.LoadImage = true, []string{"load=node.id==n1"}, "sweep-drive:1" }, ""},
		{"load placed without an image", func(s *Spec) { s.Swarm, s.Place = true, []string{"load=node.id==n1"} }, "load_image"},
		{"load image without a placed load", func(s *Spec) { s.Swarm, s.Place, s.LoadImage = true, []string{"app=node.id==n1"}, "sweep-drive:1" }, "load_image"},
		{"load placed with k6 without its image", func(s *Spec) {
			s.Swarm, s.Place, s.LoadImage, s.Driver = true, []string{"load=node.id==n1"}, "sweep-drive:1", "k6"
		}, "k6_image"},
		{"load placed with a k6 script without the image", func(s *Spec) {
			s.Swarm, s.Place, s.LoadImage, s.Driver, s.Script = true, []string{"load=node.id==n1"}, "sweep-drive:1", "auto", &Script{Path: "/s.js"}
		}, "k6_image"},
		{"load placed with k6 from its image", func(s *Spec) {
			s.Swarm, s.Place, s.LoadImage, s.Driver, s.K6Image = true, []string{"load=node.id==n1"}, "sweep-drive:1", "k6", "grafana/k6"
		}, ""},
		{"load placed with a k6 script from the image", func(s *Spec) {
			s.Swarm, s.Place, s.LoadImage, s.Driver, s.Script, s.K6Image = true, []string{"load=node.id==n1"}, "sweep-drive:1", "auto", &Script{Path: "/s.js"}, "grafana/k6"
		}, ""},
		{"k6 image on a swarm without a placed load", func(s *Spec) {
			s.Swarm, s.Place, s.Driver, s.K6Image = true, []string{"app=node.id==n1"}, "k6", "grafana/k6"
		}, "k6_image"},
		{"k6 image on a placed load with the built-in driver", func(s *Spec) {
			s.Swarm, s.Place, s.LoadImage, s.Driver, s.K6Image = true, []string{"load=node.id==n1"}, "sweep-drive:1", "builtin", "grafana/k6"
		}, "k6_image"},
		{"k6 image on a placed load without its load image", func(s *Spec) {
			s.Swarm, s.Place, s.Driver, s.K6Image = true, []string{"load=node.id==n1"}, "k6", "grafana/k6"
		}, "load_image"},
		{"k6 on kubernetes from its image", func(s *Spec) { kube(s); s.Driver, s.K6Image = "k6", "grafana/k6" }, ""},
		{"k6 on kubernetes placed", func(s *Spec) {
			kube(s)
			s.Driver, s.K6Image, s.Place = "k6", "grafana/k6", []string{"load=kubernetes.io/hostname=n2"}
		}, ""},
		{"k6 on kubernetes without its image", func(s *Spec) { kube(s); s.Driver = "k6" }, "k6_image"},
		{"a k6 script on kubernetes without the image", func(s *Spec) { kube(s); s.Driver, s.Script = "auto", &Script{Path: "/s.js"} }, "k6_image"},
		{"k6 image with the load in sweep's process", func(s *Spec) { s.K6Image = "grafana/k6" }, "k6_image"},
		{"k6 image with the built-in driver", func(s *Spec) { kube(s); s.Driver, s.K6Image = "builtin", "grafana/k6" }, "k6_image"},
		{"k6 image with a scenario", func(s *Spec) {
			kube(s)
			s.Driver, s.K6Image, s.Scenario = "auto", "grafana/k6", &Scenario{Path: "/s.yaml"}
		}, "k6_image"},
		{"driver auto", func(s *Spec) { s.Driver = "auto" }, ""},
		{"unknown driver", func(s *Spec) { s.Driver = "wrk" }, "driver"},
		{"find-limit with load levels", func(s *Spec) {
			s.FindLimit, s.LoadLevels = &FindLimit{SLO: "p99<=1s"}, []LoadSpec{{VUs: 1}}
		}, "find_limit"},
	})
}

// kube makes s a Kubernetes stack's spec, the built-in driver's.
func kube(s *Spec) {
	s.Kubernetes, s.Manifests, s.LoadImage, s.Compose = true, []string{"/m.yaml"}, "sweep-drive:1", nil
}

// badField is the spec field a bad-input error names; "" for nil or
// another error.
func badField(err error) string {
	var bad *BadInputError
	if !errors.As(err, &bad) {
		return ""
	}
	return bad.Field
}

func TestParseNumberList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want []float64
	}{
		{"2,4, 6,8", []float64{2, 4, 6, 8}},
		{"0.5", []float64{0.5}},
		{"1000000", []float64{1e6}},
		{"1000001", nil},
		{"", nil},
		{" ", nil},
		{"1,,2", nil},
		{"1,x", nil},
		{"0", nil},
		{"-1", nil},
		{"NaN", nil},
	} {
		t.Run(tc.text, func(t *testing.T) {
			t.Parallel()
			got, err := ParseNumberList("cpus", tc.text)
			if !reflect.DeepEqual(got, tc.want) || (err != nil) != (tc.want == nil) {
				t.Errorf("ParseNumberList(%q) = %v, %v; want %v", tc.text, got, err, tc.want)
			}
			if err != nil && badField(err) != "cpus" {
				t.Errorf("error %q does not name the list", err)
			}
		})
	}
}

// TestLoadFor: vus-per-web resolves against the cell's web threads
// (half to even, at least 1), and a load level keeps the spec's max VUs.
func TestLoadFor(t *testing.T) {
	t.Parallel()
	level := LoadSpec{Rate: 400}
	for _, tc := range []struct {
		name string
		load LoadSpec
		cell Cell
		want results.LoadInfo
	}{
		{"vus", LoadSpec{VUs: 5}, Cell{WebThreads: 3},
			results.LoadInfo{Driver: "k6", Model: "closed", VUs: 5}},
		{"vus per web, tie to even", LoadSpec{VUsPerWeb: 2.5}, Cell{WebThreads: 3},
			results.LoadInfo{Driver: "k6", Model: "closed", VUs: 8, VUsPerWeb: 2.5}},
		{"vus per web, at least one", LoadSpec{VUsPerWeb: 0.1}, Cell{WebThreads: 2},
			results.LoadInfo{Driver: "k6", Model: "closed", VUs: 1, VUsPerWeb: 0.1}},
		{"load level", LoadSpec{VUs: 5, MaxVUs: 30}, Cell{WebThreads: 3, Extras: Extras{Load: &level}},
			results.LoadInfo{Driver: "k6", Model: "open", Rate: 400, VUs: 30, MaxVUs: 30}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := testSpec()
			s.Load = tc.load
			if got := s.LoadFor(tc.cell, "k6"); got != tc.want {
				t.Errorf("LoadFor = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestLoadForNamesTheFile: a cell's load names the user's file its driver
// runs, by base name and hash: k6 the script, the built-in driver the
// scenario; the built-in reference beside a k6 script runs neither.
func TestLoadForNamesTheFile(t *testing.T) {
	t.Parallel()
	script := &Script{Path: "/x/load.js", SHA256: strings.Repeat("a", 64)}
	scenario := &Scenario{Path: "/x/orders.yaml", SHA256: strings.Repeat("b", 64)}
	for _, tc := range []struct {
		name         string
		script       *Script
		scenario     *Scenario
		driver       string
		wantScript   string
		wantScenario string
	}{
		{"k6 script", script, nil, "k6", "load.js " + script.SHA256, ""},
		{"scenario", nil, scenario, "builtin", "", "orders.yaml " + scenario.SHA256},
		{"the reference beside a k6 script", script, nil, "builtin", "", ""},
		{"the bundled load", nil, nil, "k6", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := testSpec()
			s.Script, s.Scenario = tc.script, tc.scenario
			got := s.LoadFor(s.Cells()[0], tc.driver)
			name := func(f *results.FileRef) string {
				if f == nil {
					return ""
				}
				return f.Name + " " + f.SHA256
			}
			if name(got.Script) != tc.wantScript || name(got.Scenario) != tc.wantScenario {
				t.Errorf("script %+v, scenario %+v; want %q, %q", got.Script, got.Scenario, tc.wantScript, tc.wantScenario)
			}
		})
	}
}

func TestProjectName(t *testing.T) {
	t.Parallel()
	// Each kept range with its neighbours: ` a z { / 0 9 : @ A Z [
	if got := ProjectName("`az{/09:@AZ[-_.20240101"); got != "sweepaz09az20240101" {
		t.Errorf("ProjectName = %q, want sweepaz09az20240101", got)
	}
}

func TestFindCell(t *testing.T) {
	t.Parallel()
	s := testSpec()
	s.CPUs = []float64{1, 2, 3}
	c, err := s.FindCell("cpu_2__web_4__db_8")
	if err != nil || c.CPUs != 2 || c.WebThreads != 4 || c.DBPool != 8 {
		t.Errorf("FindCell = %+v, %v", c, err)
	}
	_, err = s.FindCell("cpu_9__web_1__db_1")
	want := `"cpu_9__web_1__db_1" is not a cell of this run; cells: cpu_1__web_1__db_2, ` +
		"cpu_1__web_2__db_4, cpu_2__web_2__db_4, cpu_2__web_4__db_8, cpu_3__web_3__db_6, …"
	var bad *BadInputError
	if !errors.As(err, &bad) || badField(err) != "cell" || bad.Msg != want {
		t.Errorf("FindCell error\n got %v\nwant bad input in cell: %s", err, want)
	}
}

func TestNextRep(t *testing.T) {
	t.Parallel()
	run := t.TempDir()
	if got := NextRep(run, "c"); got != 1 {
		t.Errorf("NextRep of a cell never run = %d, want 1", got)
	}
	for _, name := range []string{"r1", "r3", "rx", "x9", "r2"} {
		if err := os.MkdirAll(filepath.Join(run, results.CellsDir, "c", name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := NextRep(run, "c"); got != 4 {
		t.Errorf("NextRep = %d, want 4 (after r3)", got)
	}
}

func TestDurationJSON(t *testing.T) {
	t.Parallel()
	d := Duration(90 * time.Second)
	b, err := d.MarshalJSON()
	if err != nil || string(b) != `"1m30s"` {
		t.Fatalf("MarshalJSON = %s, %v", b, err)
	}
	var back Duration
	if err := back.UnmarshalJSON(b); err != nil || back != d {
		t.Errorf("UnmarshalJSON = %v, %v; want %v", back, err, d)
	}
	if err := back.UnmarshalJSON([]byte(`"soon"`)); err == nil {
		t.Error("UnmarshalJSON accepted a non-duration")
	}
}

// TestK6AwayOnASwarmNode: k6 drives a load placed on a swarm node when
// asked for (k6, or auto with a script or a k6 image), never with a
// scenario file, and never when the load runs in sweep's process.
func TestK6AwayOnASwarmNode(t *testing.T) {
	placed := func(s *Spec) { s.Swarm, s.Place = true, []string{"load=node.id==n1"} }
	for _, tc := range []struct {
		name string
		mod  func(*Spec)
		want bool
	}{
		{"placed, k6", func(s *Spec) { placed(s); s.Driver = "k6" }, true},
		{"placed, auto with a script", func(s *Spec) { placed(s); s.Driver, s.Script = "auto", &Script{Path: "/s.js"} }, true},
		{"placed, auto with a k6 image", func(s *Spec) { placed(s); s.Driver, s.K6Image = "auto", "grafana/k6" }, true},
		{"placed, auto alone", func(s *Spec) { placed(s); s.Driver = "auto" }, false},
		{"placed, builtin", func(s *Spec) { placed(s); s.Driver = "builtin" }, false},
		{"placed, a scenario file", func(s *Spec) { placed(s); s.Driver, s.Scenario = "auto", &Scenario{Path: "/s.yaml"} }, false},
		{"a swarm, the load here, k6", func(s *Spec) { s.Swarm, s.Place, s.Driver = true, []string{"app=node.id==n1"}, "k6" }, false},
		{"compose, k6", func(s *Spec) { s.Driver = "k6" }, false},
	} {
		s := Spec{Driver: "auto"}
		tc.mod(&s)
		if got := s.K6Away(); got != tc.want {
			t.Errorf("%s: K6Away() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
