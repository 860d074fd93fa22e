package k6

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/k6scripts"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// fakeK6 writes a shell script that stands in for k6 at this small
// interface: it finds the --summary-export path in its argv ($out), notes
// its argv, environment and process group in dir, then runs body.
func fakeK6(t *testing.T, dir, body string) string {
	t.Helper()
	script := `#!/bin/sh
out=""
prev=""
for a in "$@"; do
	if [ "$prev" = "--summary-export" ]; then out="$a"; fi
	prev="$a"
done
printf '%s\n' "$@" >> "` + dir + `/argv"
echo "$K6_NO_USAGE_REPORT" > "` + dir + `/usage-report"
env | grep '^K6_WEB_DASHBOARD' | sort > "` + dir + `/web-dashboard"
echo "$$ $(cut -d' ' -f5 /proc/$$/stat)" > "` + dir + `/pgid"
` + body + "\n"
	path := filepath.Join(dir, "k6")
	writeExecutable(t, path, script, 0o755)
	return path
}

func abs(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func loadRequest(dir string, warmup bool) sweep.LoadRequest {
	return sweep.LoadRequest{
		BaseURL:  "http://127.0.0.1:1",
		Load:     results.LoadInfo{Driver: "k6", Model: "closed", VUs: 2},
		Duration: time.Second,
		Warmup:   warmup,
		Dir:      dir,
	}
}

func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		body       string
		wantReqs   int64
		wantFailed []string
		wantErr    string
		wantIs     error
	}{
		{name: "ok", body: `cp "` + "{summary-export.json}" + `" "$out"; exit 0`, wantReqs: 68992},
		{
			name:       "thresholds crossed",
			body:       `cp "{summary-export-threshold-fail.json}" "$out"; cat "{stderr-d.txt}" >&2; exit 99`,
			wantReqs:   99384,
			wantFailed: []string{"http_req_duration: p(99)<0.001"},
		},
		{
			name:    "script exception",
			body:    `echo 'level=error msg="ReferenceError: nope is not defined"' >&2; exit 107`,
			wantErr: "k6 script exception (exit 107)",
		},
		{name: "stderr tail", body: `echo 'the last words' >&2; exit 3`, wantErr: "the last words"},
		{name: "exit 0 without export", body: `exit 0`, wantErr: "k6 summary export"},
		{name: "new summary format", body: `cp "{summary-export-new-mrs.json}" "$out"; exit 99`, wantIs: ErrNewSummary},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			body := tc.body
			for _, f := range []string{"summary-export.json", "summary-export-threshold-fail.json",
				"stderr-d.txt", "summary-export-new-mrs.json"} {
				body = strings.ReplaceAll(body, "{"+f+"}", abs(t, f))
			}
			d := New(Options{Binary: fakeK6(t, dir, body)})
			m, err := d.Run(t.Context(), loadRequest(dir, false))
			switch {
			case tc.wantIs != nil:
				if !errors.Is(err, tc.wantIs) {
					t.Fatalf("error = %v, want %v", err, tc.wantIs)
				}
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			default:
				if m.Requests != tc.wantReqs || strings.Join(m.ThresholdsFailed, "|") != strings.Join(tc.wantFailed, "|") {
					t.Errorf("requests %d thresholds %q, want %d %q", m.Requests, m.ThresholdsFailed, tc.wantReqs, tc.wantFailed)
				}
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRunFiles checks what one run hands k6 and leaves in the cell dir.
func TestRunFiles(t *testing.T) {
	t.Parallel()
	for _, warmup := range []bool{false, true} {
		dir := t.TempDir()
		bin := fakeK6(t, dir, `cp "`+abs(t, "summary-export.json")+`" "$out"; echo summary; exit 0`)
		summary := filepath.Join(dir, pick(warmup, WarmupSummaryFile, SummaryFile))
		if _, err := New(Options{Binary: bin}).Run(t.Context(), loadRequest(dir, warmup)); err != nil {
			t.Fatal(err)
		}
		argv := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(dir, "argv"))), "\n")
		for _, want := range []string{summary, "MODEL=closed", "VUS=2", "DURATION=1s", filepath.Join(dir, k6scripts.CRUD)} {
			if !strings.Contains(strings.Join(argv, "\n"), want) {
				t.Errorf("warmup=%v: argv %q lacks %q", warmup, argv, want)
			}
		}
		if got := strings.TrimSpace(readFile(t, filepath.Join(dir, "usage-report"))); got != "true" {
			t.Errorf("K6_NO_USAGE_REPORT = %q, want true", got)
		}
		pid, pgid, _ := strings.Cut(strings.TrimSpace(readFile(t, filepath.Join(dir, "pgid"))), " ")
		if pid != pgid {
			t.Errorf("k6 runs in process group %s, not its own (%s)", pgid, pid)
		}
		if got := readFile(t, filepath.Join(dir, pick(warmup, WarmupLogFile, LogFile))); got != "summary\n" {
			t.Errorf("log = %q, want k6's stdout", got)
		}
		if _, err := os.Stat(filepath.Join(dir, k6scripts.CRUD)); err != nil {
			t.Errorf("bundled script not copied: %v", err)
		}
	}
}

// TestRunWebDashboard: with WebDashboard the measured phase's k6 gets
// the dashboard's variables in its environment, exporting into the cell
// directory; a warm-up, and a run without it, get none.
func TestRunWebDashboard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		dashboard, warmup bool
		want              []string
	}{
		{"measured", true, false, []string{"K6_WEB_DASHBOARD=true", "K6_WEB_DASHBOARD_EXPORT=<dir>/k6-dashboard.html",
			"K6_WEB_DASHBOARD_PERIOD=1s", "K6_WEB_DASHBOARD_PORT=-1"}},
		{"warm-up", true, true, nil},
		{"off", false, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bin := fakeK6(t, dir, `cp "`+abs(t, "summary-export.json")+`" "$out"; exit 0`)
			d := New(Options{Binary: bin, WebDashboard: tc.dashboard})
			if _, err := d.Run(t.Context(), loadRequest(dir, tc.warmup)); err != nil {
				t.Fatal(err)
			}
			got := strings.Fields(strings.ReplaceAll(readFile(t, filepath.Join(dir, "web-dashboard")), dir, "<dir>"))
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("k6's K6_WEB_DASHBOARD* environment = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRunStaleSummary: a summary left by an interrupted attempt is never
// read as this run's result.
func TestRunStaleSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stale, err := os.ReadFile(abs(t, "summary-export.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), stale, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{Binary: fakeK6(t, dir, `exit 0`)}).Run(t.Context(), loadRequest(dir, false))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error = %v, want the missing export reported", err)
	}
}

// TestRunCancel cancels once the fake k6 has set its signal handling (it
// touches $out.ready then), so a slow machine cannot send SIGINT before
// the trap exists.
func TestRunCancel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		body       string
		wantSIGINT bool
	}{
		{
			name:       "k6 stops on SIGINT",
			body:       `trap 'touch "$out.sigint"; exit 105' INT; touch "$out.ready"; while :; do sleep 0.05; done`,
			wantSIGINT: true,
		},
		{name: "k6 ignores SIGINT and is killed", body: `trap '' INT; touch "$out.ready"; while :; do sleep 0.05; done`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			d := New(Options{Binary: fakeK6(t, dir, tc.body), GracePeriod: 300 * time.Millisecond})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			cancelled := make(chan time.Time, 1)
			go func() {
				for i := 0; i < 1000; i++ {
					if _, err := os.Stat(filepath.Join(dir, SummaryFile+".ready")); err == nil {
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
				cancelled <- time.Now()
				cancel()
			}()
			_, err := d.Run(ctx, loadRequest(dir, false))
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error = %v, want it to wrap the context's error", err)
			}
			// Against the default grace of 20 s, with room for a loaded
			// host's stalls many times over; a k6 that ignores SIGINT gets
			// the whole grace period first.
			took := time.Since(<-cancelled)
			if took > 10*time.Second || (!tc.wantSIGINT && took < 300*time.Millisecond) {
				t.Errorf("Run took %s after cancel, want the 300 ms grace at most (at least, when SIGINT is ignored)", took)
			}
			_, statErr := os.Stat(filepath.Join(dir, SummaryFile+".sigint"))
			if got := statErr == nil; got != tc.wantSIGINT {
				t.Errorf("k6 saw SIGINT = %v, want %v", got, tc.wantSIGINT)
			}
		})
	}
}

// TestRunRetriesBusyAPIPort: exit 106 (REST API address taken) runs k6 once
// more on another port.
func TestRunRetriesBusyAPIPort(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := `if [ ! -e "$out.first" ]; then touch "$out.first"; exit 106; fi
cp "` + abs(t, "summary-export.json") + `" "$out"; exit 0`
	if _, err := New(Options{Binary: fakeK6(t, dir, body)}).Run(t.Context(), loadRequest(dir, false)); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(readFile(t, filepath.Join(dir, "argv")), "\nrun\n") + 1; n != 2 {
		t.Errorf("k6 ran %d times, want 2", n)
	}
}

func TestRunBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := fakeK6(t, dir, `exit 0`)
	missing := &sweep.Script{Path: filepath.Join(dir, "missing.js")}
	_, err := New(Options{Binary: bin, Script: missing}).Run(t.Context(), loadRequest(dir, false))
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "k6 script") {
		t.Errorf("missing script: error = %v", err)
	}
	edited := filepath.Join(dir, "edited.js")
	if err := os.WriteFile(edited, []byte("export default function () {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recorded := &sweep.Script{Path: edited, SHA256: strings.Repeat("0", 64)}
	if _, err := New(Options{Binary: bin, Script: recorded}).Run(t.Context(), loadRequest(dir, false)); !errors.Is(err, sweep.ErrFileChanged) {
		t.Errorf("script edited since the run recorded it: error = %v", err)
	}
	req := loadRequest(dir, false)
	req.Load.VUs = 0
	if _, err := New(Options{Binary: bin}).Run(t.Context(), req); err == nil {
		t.Error("closed model with 0 VUs: no error")
	}
	if _, statErr := os.Stat(filepath.Join(dir, "argv")); statErr == nil {
		t.Error("k6 was started for bad input")
	}
}
