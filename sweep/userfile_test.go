package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

func writeScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// savedMeta is the sweep.json of a run made with spec.
func savedMeta(t *testing.T, spec Spec) results.Meta {
	t.Helper()
	b, err := json.Marshal(spec.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	return results.Meta{Spec: b, DBSampled: spec.DBDSN != ""}
}

// TestScriptIsPartOfTheSpec: the script's path and content hash are in
// the saved spec; a resume (SpecOf, then DiffSpecs) with the same content
// is the same spec, one with an edited script is refused and says so.
func TestScriptIsPartOfTheSpec(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "my.js")
	writeScript(t, path, "export default function () {}\n")
	script, err := ReadUserFile[K6Script](path)
	if err != nil {
		t.Fatal(err)
	}
	spec := testSpec()
	spec.Script = script
	meta := savedMeta(t, spec)
	if !strings.Contains(string(meta.Spec), `"sha256":"`+script.SHA256+`"`) || len(script.SHA256) != 64 {
		t.Fatalf("saved spec %s lacks the script's sha256", meta.Spec)
	}

	resumed, err := SpecOf(meta, "")
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Script == nil || *resumed.Script != *script {
		t.Fatalf("resumed script %+v, want %+v", resumed.Script, script)
	}
	if diff, err := DiffSpecs(meta.Spec, meta.SampledDB(), resumed); err != nil || len(diff) != 0 {
		t.Fatalf("same script: diff %q, %v", diff, err)
	}

	writeScript(t, path, "export const options = { vus: 1 };\nexport default function () {}\n")
	resumed, err = SpecOf(meta, "")
	if err != nil {
		t.Fatal(err)
	}
	diff, err := DiffSpecs(meta.Spec, meta.SampledDB(), resumed)
	if err != nil || len(diff) != 1 || !strings.HasPrefix(diff[0], "script ("+path+" changed: sha256 "+script.SHA256[:12]) {
		t.Errorf("edited script: diff %q, %v", diff, err)
	}
	if _, err := script.Verify(); !errors.Is(err, ErrFileChanged) {
		t.Errorf("Verify of an edited script: %v, want ErrFileChanged", err)
	}
}

func TestScriptDiffs(t *testing.T) {
	t.Parallel()
	base := testSpec()
	saved := savedMeta(t, base).Spec
	spec := base
	spec.Script = &Script{Path: "/x/my.js", SHA256: strings.Repeat("a", 64)}
	diff, err := DiffSpecs(saved, base.DBDSN != "", spec)
	if err != nil || strings.Join(diff, "; ") != `script (was unset, now {"path":"/x/my.js","sha256":"`+strings.Repeat("a", 64)+`"})` {
		t.Errorf("script added: %q, %v", diff, err)
	}
	other := spec
	other.Script = &Script{Path: "/y/my.js", SHA256: spec.Script.SHA256}
	diff, err = DiffSpecs(savedMeta(t, spec).Spec, base.DBDSN != "", other)
	if err != nil || strings.Join(diff, "; ") != "script (was /x/my.js, now /y/my.js)" {
		t.Errorf("script moved: %q, %v", diff, err)
	}
}

// TestScriptSaveAndMissing: Save keeps a copy in the run directory; a
// resume whose script is gone is bad input that points at the copy.
func TestScriptSaveAndMissing(t *testing.T) {
	t.Parallel()
	dir, run := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "load.js")
	writeScript(t, path, "export default function () {}\n")
	script, err := ReadUserFile[K6Script](path)
	if err != nil {
		t.Fatal(err)
	}
	checkCopy(t, script, filepath.Join(run, results.ScriptDir, "load.js"), "export default function () {}\n")
	if err := (*Script)(nil).Save(run); err != nil {
		t.Errorf("no script: %v", err)
	}
	spec := testSpec()
	spec.Script = script
	meta := savedMeta(t, spec)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	_, err = SpecOf(meta, "")
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "{script}") || !strings.Contains(err.Error(), "script/ folder") {
		t.Errorf("script gone: %v", err)
	}
	if _, err := ReadUserFile[K6Script](filepath.Join(dir, "nope.js")); !errors.Is(err, ErrBadInput) {
		t.Errorf("missing script: %v, want bad input", err)
	}
}

// checkCopy saves f into the run directory copy is in and checks that
// copy holds want.
func checkCopy(t *testing.T, f interface{ Save(runDir string) error }, copy, want string) {
	t.Helper()
	if err := f.Save(filepath.Dir(filepath.Dir(copy))); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(copy); err != nil || string(got) != want {
		t.Errorf("copy %q, %v", got, err)
	}
}

type checkingDriver struct {
	fakeDriver
	got []LoadRequest
}

func (d *checkingDriver) CheckLoad(_ context.Context, req LoadRequest) (string, error) {
	d.got = append(d.got, req)
	return "notice", nil
}

// TestSpecCheckLoad: a driver that can check is asked about the first
// job's measured load (rerun's job when given), one that cannot is not.
func TestSpecCheckLoad(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.Load = LoadSpec{VUsPerWeb: 2}
	d := &checkingDriver{}
	if notice, err := spec.CheckLoad(t.Context(), d, nil); err != nil || notice != "notice" {
		t.Fatalf("CheckLoad = %q, %v", notice, err)
	}
	cells := spec.Cells()
	if _, err := spec.CheckLoad(t.Context(), d, []Job{{Cell: cells[len(cells)-1], Rep: 2}}); err != nil {
		t.Fatal(err)
	}
	if len(d.got) != 2 || d.got[0].Load.VUs != 2*cells[0].WebThreads || d.got[1].Load.VUs != 2*cells[len(cells)-1].WebThreads ||
		d.got[0].Duration != spec.Duration.Std() || d.got[0].BaseURL != spec.URL || d.got[0].Warmup {
		t.Errorf("requests %+v", d.got)
	}
	if notice, err := spec.CheckLoad(t.Context(), &fakeDriver{}, nil); notice != "" || err != nil {
		t.Errorf("a driver without CheckLoad: %q, %v", notice, err)
	}
}

// TestScenarioIsPartOfTheSpec: the scenario file is recorded like the k6
// script under its own key: an edited file is a difference named
// "scenario", its copy goes into scenario/, a file gone is bad input of
// {scenario} pointing at that copy, and Verify names a scenario file.
func TestScenarioIsPartOfTheSpec(t *testing.T) {
	t.Parallel()
	dir, run := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "orders.yaml")
	writeScript(t, path, "scenarios: []\n")
	texts := Texts{Load: "vus=3", Scenario: path}
	spec := testSpec()
	if err := texts.Apply(&spec); err != nil {
		t.Fatal(err)
	}
	if spec.Scenario == nil || spec.Scenario.Path != path || spec.Script != nil {
		t.Fatalf("applied scenario %+v, script %+v", spec.Scenario, spec.Script)
	}
	checkCopy(t, spec.Scenario, filepath.Join(run, results.ScenarioDir, "orders.yaml"), "scenarios: []\n")
	meta := savedMeta(t, spec)
	writeScript(t, path, "scenarios: [{flow: []}]\n")
	resumed, err := SpecOf(meta, "")
	if err != nil {
		t.Fatal(err)
	}
	diff, err := DiffSpecs(meta.Spec, meta.SampledDB(), resumed)
	if err != nil || len(diff) != 1 || !strings.HasPrefix(diff[0], "scenario ("+path+" changed: sha256 "+spec.Scenario.SHA256[:12]) {
		t.Errorf("edited scenario: diff %q, %v", diff, err)
	}
	if _, err := spec.Scenario.Verify(); !errors.Is(err, ErrFileChanged) || !strings.Contains(err.Error(), "the scenario file "+path+" changed") {
		t.Errorf("Verify of an edited scenario: %v", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err = SpecOf(meta, ""); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "{scenario}") ||
		!strings.Contains(err.Error(), "scenario/ folder") {
		t.Errorf("scenario gone: %v", err)
	}
	texts.Scenario = filepath.Join(dir, "nope.yaml")
	if err := texts.Apply(&spec); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "{scenario}: cannot read the scenario file") {
		t.Errorf("missing scenario: %v", err)
	}
}

// TestScenarioRunsOnBuiltin: a scenario file with a k6 script or with
// --driver k6 is bad input naming both; with auto or builtin it passes.
func TestScenarioRunsOnBuiltin(t *testing.T) {
	t.Parallel()
	scenario := &Scenario{Path: "/x/orders.yaml", SHA256: strings.Repeat("a", 64)}
	script := &Script{Path: "/x/load.js", SHA256: strings.Repeat("b", 64)}
	for _, c := range []struct {
		name   string
		driver string
		script *Script
		want   string // "" for none
	}{
		{"auto", "auto", nil, ""},
		{"builtin", "builtin", nil, ""},
		{"k6", "k6", nil, "{driver} k6 or {scenario}"},
		{"script", "auto", script, "give {scenario} or {script}, not both"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			spec.Driver, spec.Script, spec.Scenario = c.driver, c.script, scenario
			err := spec.Validate()
			if c.want == "" && err != nil || c.want != "" && (!errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("Validate: %v, want %q", err, c.want)
			}
		})
	}
}
