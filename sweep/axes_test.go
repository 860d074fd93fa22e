package sweep

import (
	"strings"
	"testing"
)

func TestExtraAxesMultiplyTheGrid(t *testing.T) {
	t.Parallel()
	pool, err := ParseAxis("pgbouncer:POOL_MODE=transaction,session")
	if err != nil {
		t.Fatal(err)
	}
	gc, err := ParseAxis("GOGC=50,100")
	if err != nil {
		t.Fatal(err)
	}
	levels, err := ParseLoadLevels("vus=10,20")
	if err != nil {
		t.Fatal(err)
	}
	spec := testSpec()
	spec.CPUs, spec.WebMult, spec.DBMult = []float64{1}, []float64{1}, []float64{2}
	spec.Memory = []string{"256m"}
	spec.Axes = []Axis{pool, gc}
	spec.LoadLevels = levels
	spec.Variants = []Variant{{Name: "go", Files: []string{"go.yaml"}}}
	cells := spec.Cells()
	if len(cells) != 8 {
		t.Fatalf("got %d cells, want 1 × 2 × 2 × 2 = 8", len(cells))
	}
	want := "cpu_1__web_1__db_2__mem_256m__pgbouncer-POOL_MODE_transaction__GOGC_50__vus_10__variant_go"
	if cells[0].ID != want {
		t.Errorf("first id\n got %s\nwant %s", cells[0].ID, want)
	}
	seen := map[string]bool{}
	for _, c := range cells {
		seen[c.ID] = true
	}
	if len(seen) != 8 {
		t.Errorf("ids are not unique: %v", seen)
	}
	r := &Runner{Spec: spec}
	cfg := r.targetConfig(cells[len(cells)-1], t.TempDir())
	if cfg.Env["GOGC"] != "100" || cfg.ServiceEnv["pgbouncer"]["POOL_MODE"] != "session" || cfg.Memory != "256m" {
		t.Errorf("target config %+v", cfg)
	}
	if l := spec.LoadFor(cells[len(cells)-1], "builtin"); l.VUs != 20 {
		t.Errorf("load level not applied: %+v", l)
	}
	if got := strings.Join(spec.SweptEnv(), ","); got != "W,P,N,GOGC" {
		t.Errorf("swept env %s", got)
	}
}

func TestAxisParsingRefusesBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    func() error
		flag string
	}{
		{"axis without values", func() error { _, err := ParseAxis("A="); return err }, "{axes}"},
		{"axis bad name", func() error { _, err := ParseAxis("1A=x"); return err }, "{axes}"},
		{"axis bad service", func() error { _, err := ParseAxis("bad svc:A=x"); return err }, "{axes}"},
		{"levels not increasing", func() error { _, err := ParseLoadLevels("vus=10,5"); return err }, "{load_levels}"},
		{"levels zero", func() error { _, err := ParseLoadLevels("rate=0,5"); return err }, "{load_levels}"},
		{"memory unit", func() error { _, err := ParseMemory("12 parsecs"); return err }, "{memory}"},
		{"memory tiny", func() error { _, err := ParseMemory("1k"); return err }, "{memory}"},
		{"variant without file", func() error { _, err := ParseVariant("go"); return err }, "{variants}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f()
			if err == nil || !strings.Contains(err.Error(), tc.flag) {
				t.Errorf("err %v, want bad input naming %s", err, tc.flag)
			}
		})
	}
}
