package remote

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/load/k6"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// userK6Script is a user's k6 script with what platforms expand in an
// environment value ($, {{ }}) and options of its own that give way to
// sweep's load (--vus and --duration).
const userK6Script = `import http from 'k6/http';
import { check } from 'k6';

export const options = { vus: 7, duration: '1m' };

export default function () {
  const res = http.get(` + "`${__ENV.BASE_URL}/status?tag={{vu}}&cost=$5`" + `);
  check(res, { 'status 200': (r) => r.status === 200 });
}
`

func TestK6RequestCarriesTheScript(t *testing.T) {
	t.Parallel()
	lr := sweep.LoadRequest{BaseURL: "http://app:8080", Load: results.LoadInfo{Driver: "k6", Model: "closed", VUs: 3},
		Duration: 2 * time.Second, Warmup: true, Interval: func(results.Interval) {}}
	text := encode(t, NewK6Request(lr, &K6Script{File: "load.js", JS: userK6Script}))
	// neither a swarm's template nor Kubernetes' $(VAR) may touch it
	if strings.Contains(text, "$") || strings.Contains(text, "{{") {
		t.Errorf("request %s has $ or {{ unescaped", text)
	}
	req, err := DecodeRequest([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if req.K6 == nil || req.K6.Script == nil || req.K6.Script.File != "load.js" || req.K6.Script.JS != userK6Script {
		t.Fatalf("far end's k6 request %+v, want load.js as written", req.K6)
	}
	got, err := req.phase()
	if err != nil {
		t.Fatal(err)
	}
	lr.Interval = nil
	if !reflect.DeepEqual(got, lr) || !req.Intervals || req.Scenario != "" || req.Script != nil {
		t.Errorf("phase %+v (intervals %v), want %+v and no built-in options", got, req.Intervals, lr)
	}
	// the bundled script: no script travels
	req, err = DecodeRequest([]byte(encode(t, NewK6Request(lr, nil))))
	if err != nil || req.K6 == nil || req.K6.Script != nil {
		t.Errorf("bundled script's request %+v, %v; want k6 without a script", req, err)
	}
}

func TestCheckK6Script(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		script *K6Script
		want   error
	}{
		{"the bundled script", nil, nil},
		{"a user's script", &K6Script{File: "load.js", JS: userK6Script}, nil},
		{"a script that leaves a phase its reserve", &K6Script{File: "big.js", JS: strings.Repeat("x", MaxRequestSize-phaseReserve-200)}, nil},
		{"a script over the limit", &K6Script{File: "big.js", JS: strings.Repeat("x", 200<<10)}, ErrRequestTooLarge},
		// a $ takes six bytes once escaped
		{"a script of dollars", &K6Script{File: "big.js", JS: strings.Repeat("$", 30<<10)}, ErrRequestTooLarge},
		{"a script that is not UTF-8", &K6Script{File: "latin1.js", JS: "// caf\xe9\n"}, ErrScriptNotUTF8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckK6Script(tc.script)
			if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
				t.Fatalf("CheckK6Script = %v, want %v", err, tc.want)
			}
			if err != nil && !strings.Contains(err.Error(), "k6 script "+tc.script.File) {
				t.Errorf("error %q does not name the script", err)
			}
		})
	}
}

// TestK6ResultTravelsBack sends real k6 outputs (testdata, from k6
// v2.2.0) back as the far end does: the measurement load/k6 parses from
// the summary export, the export and k6's log as files. The near end must
// get the same measurement and write the files byte for byte into the
// cell's directory, where a local k6 leaves them; crossed thresholds
// (run d's export, where true means crossed) are a result, not an error.
func TestK6ResultTravelsBack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		export, summaryFile, logFile string
		crossed                      int
	}{
		{"summary-export.json", k6.SummaryFile, k6.LogFile, 0},
		{"summary-export-threshold-fail.json", k6.WarmupSummaryFile, k6.WarmupLogFile, 1},
	} {
		t.Run(tc.export, func(t *testing.T) {
			t.Parallel()
			export := readTestdata(t, tc.export)
			log := readTestdata(t, "stdout-a.txt")
			m, err := k6.ParseSummary([]byte(export))
			if err != nil {
				t.Fatal(err)
			}
			if m.Requests == 0 || len(m.ThresholdsFailed) != tc.crossed {
				t.Fatalf("parsed %d requests, thresholds crossed %q; want requests and %d crossed", m.Requests, m.ThresholdsFailed, tc.crossed)
			}
			var out bytes.Buffer
			res := Result{Measurement: m, CPUSeconds: 1.5, WallSeconds: 10.2,
				Files: map[string]string{tc.summaryFile: export, tc.logFile: log}}
			if err := writeFrame(&out, kindResult, res); err != nil {
				t.Fatal(err)
			}
			if strings.Count(out.String(), "\n") < 3 {
				t.Errorf("a result of %d bytes came in %d lines; want it cut into frames of at most %d", out.Len(), strings.Count(out.String(), "\n"), maxChunk)
			}
			o := ReadOutput(&out, nil)
			dir := filepath.Join(t.TempDir(), "cells", "c1", "r1")
			node := &results.NodeInfo{ID: "node2", Hostname: "node2"}
			got, err := o.Measurement("job sweep-load-1", node, dir)
			if err != nil {
				t.Fatal(err)
			}
			want := m
			want.LoadNode, want.DriverCPU, want.DriverWall = node, 1500*time.Millisecond, 10200*time.Millisecond
			if !reflect.DeepEqual(got, want) {
				t.Errorf("near end's measurement\n%+v\nwant\n%+v", got, want)
			}
			for name, text := range res.Files {
				if data, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(data) != text {
					t.Errorf("%s in the cell's directory: %v, equal %v", name, err, string(data) == text)
				}
			}
		})
	}
}

func TestK6ResultKeepsOnlyK6sFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"../escape.json", "result.json", "/etc/passwd"} {
		res := &Result{Files: map[string]string{name: "x"}}
		if err := res.keep(filepath.Join(dir, "r1")); !errors.Is(err, ErrFraming) {
			t.Errorf("keep %q: err = %v, want ErrFraming", name, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}

func TestReadKeptTakesTheTailOfALongFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := strings.Repeat("a", maxKeptFile) + "the end\n"
	if err := os.WriteFile(filepath.Join(dir, k6.LogFile), []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "crud.js"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := readKept(dir)
	if len(files) != 1 || len(files[k6.LogFile]) != maxKeptFile || !strings.HasSuffix(files[k6.LogFile], "the end\n") {
		t.Errorf("kept %d files, the log %d bytes; want the log's last %d", len(files), len(files[k6.LogFile]), maxKeptFile)
	}
}

func TestInstallCopiesTheRunningProgram(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, err := Install(dir)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.Stat(self)
	got, err := os.Stat(path)
	if err != nil || path != filepath.Join(dir, InstalledName) || got.Size() != want.Size() || got.Mode().Perm() != 0o755 {
		t.Errorf("installed %s: %v, %v; want %d bytes, mode 0755", path, got, err, want.Size())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left %d entries in the directory, want the binary only", len(entries))
	}
	// a k6 image's user, not root, keeps k6's files beside it
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o777 || st.Mode()&os.ModeSticky == 0 {
		t.Errorf("directory %v, %v; want writable by every user, sticky", st.Mode(), err)
	}
}

// TestServeRunsK6 runs a k6 phase on the far end against the k6 on PATH
// (skipped without one): the user's script from the request, its own
// options giving way to sweep's 2 VUs for 2 s, the intervals polled from
// k6's REST API, and its summary export and log back as files, the
// warm-up's under the warm-up's names.
func TestServeRunsK6(t *testing.T) {
	testenv.K6(t)
	t.Parallel()
	url := okServer(t)
	for _, warmup := range []bool{true, false} {
		lr := sweep.LoadRequest{BaseURL: url, Load: results.LoadInfo{Driver: "k6", Model: "closed", VUs: 2},
			Duration: 2 * time.Second, Warmup: warmup, Interval: func(results.Interval) {}}
		req, err := DecodeRequest([]byte(encode(t, NewK6Request(lr, &K6Script{File: "load.js", JS: userK6Script}))))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		var out bytes.Buffer
		if err := Serve(t.Context(), req, ServeOptions{Dir: dir}, nil, &out); err != nil {
			t.Fatal(err)
		}
		var sum int64
		o := ReadOutput(&out, func(iv results.Interval) { sum += iv.Requests })
		if !o.Found || o.Result == nil || o.Result.Error != "" {
			t.Fatalf("warm-up %v: output %+v", warmup, o)
		}
		m := o.Result.Measurement
		t.Logf("warm-up %v: %d requests, %.0f rps, %d VUs, %.2f s, far end's CPU %.2f s, files %d", warmup, m.Requests, m.RPS,
			m.VUsMax, m.DurationS, o.Result.CPUSeconds, len(o.Result.Files))
		if m.Requests == 0 || m.VUsMax != 2 || m.ErrorRate != 0 || m.DurationS < 1.9 || m.DurationS > 10 || sum > m.Requests || sum < m.Requests*8/10 {
			t.Errorf("warm-up %v: %d requests (%d in intervals), %d VUs, error rate %v, %.2f s; want 2 VUs for about 2 s, no errors",
				warmup, m.Requests, sum, m.VUsMax, m.ErrorRate, m.DurationS)
		}
		// k6 itself ran in a child of the far end: its CPU counts
		if o.Result.CPUSeconds < 0.1 {
			t.Errorf("far end's CPU %.3f s; want k6's own counted", o.Result.CPUSeconds)
		}
		summary, log := k6.SummaryFile, k6.LogFile
		if warmup {
			summary, log = k6.WarmupSummaryFile, k6.WarmupLogFile
		}
		if export, ok := o.Result.Files[summary]; !ok || !strings.Contains(export, `"http_reqs"`) || len(o.Result.Files) != 2 {
			t.Errorf("warm-up %v: files %v; want %s and %s", warmup, slices.Sorted(maps.Keys(o.Result.Files)), summary, log)
		}
		if _, ok := o.Result.Files[log]; !ok {
			t.Errorf("warm-up %v: no %s", warmup, log)
		}
		// the record names the k6 that ran
		if !strings.HasPrefix(m.K6Version, "k6 v") {
			t.Errorf("warm-up %v: k6 version %q, want k6's `k6 version` line", warmup, m.K6Version)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("the phase left %d entries in its directory", len(entries))
		}
	}
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
