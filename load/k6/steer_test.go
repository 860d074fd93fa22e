package k6

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// userScript writes a script and returns it as the spec records it.
func userScript(t *testing.T, dir string) *sweep.Script {
	t.Helper()
	path := filepath.Join(dir, "my.js")
	if err := os.WriteFile(path, []byte("export default function () {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := sweep.ReadUserFile[sweep.K6Script](path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// inspectingK6 is a fake k6 whose `inspect` prints a real inspect output
// and whose `run` copies a real summary export.
func inspectingK6(t *testing.T, dir, inspect string) string {
	t.Helper()
	return fakeK6(t, dir, `if [ "$1" = inspect ]; then cat "`+abs(t, inspect)+`"; exit 0; fi
cp "`+abs(t, "summary-export.json")+`" "$out"; exit 0`)
}

// TestRunSteersUserScript: a user's script gets sweep's load as k6 flags
// (closed) or a config file (open); a clashing one is never run.
func TestRunSteersUserScript(t *testing.T) {
	t.Parallel()
	open := results.LoadInfo{Driver: "k6", Model: "open", Rate: 20, VUs: 20, MaxVUs: 100}
	tests := []struct {
		name    string
		inspect string
		load    *results.LoadInfo
		want    []string // lines of the run's argv
		config  string   // in k6-config.json
		wantIs  error
	}{
		{name: "closed: --vus and --duration", inspect: "inspect-plain.json", want: []string{"--vus\n2\n--duration\n1s\n"}},
		{name: "open: --config", inspect: "inspect-no-options.json", load: &open,
			want: []string{"--config\n"}, config: `"executor": "constant-arrival-rate"`},
		{name: "scenarios clash", inspect: "inspect-scenarios.json", wantIs: ErrClash},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			d := New(Options{Binary: inspectingK6(t, dir, tc.inspect), Script: userScript(t, dir)})
			req := loadRequest(dir, false)
			if tc.load != nil {
				req.Load = *tc.load
			}
			_, err := d.Run(t.Context(), req)
			argv := readFile(t, filepath.Join(dir, "argv"))
			if tc.wantIs != nil {
				if !errors.Is(err, tc.wantIs) || strings.Contains(argv, "run\n") {
					t.Fatalf("error %v, argv %q; want %v and no k6 run", err, argv, tc.wantIs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(argv, "inspect\n--log-format\nraw\n") {
				t.Errorf("no k6 inspect first: %q", argv)
			}
			for _, w := range tc.want {
				if !strings.Contains(argv, w) {
					t.Errorf("argv %q lacks %q", argv, w)
				}
			}
			if tc.config != "" && !strings.Contains(readFile(t, filepath.Join(dir, ConfigFile)), tc.config) {
				t.Errorf("%s lacks %s", ConfigFile, tc.config)
			}
			// the same __ENV again: k6 inspect is not run a second time
			if _, err := d.Run(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(readFile(t, filepath.Join(dir, "argv")), "inspect\n"); n != 1 {
				t.Errorf("k6 inspect ran %d times for one __ENV", n)
			}
		})
	}
}

// TestCheckLoad: a script k6 cannot load is ErrScript with k6's own
// message; plain options that give way are named in the notice; the
// bundled script needs no k6 at all.
func TestCheckLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	msg := "could not initialize 'my.js': file:///x/my.js: Line 2:43 Unexpected token ;"
	broken := fakeK6(t, dir, `echo "`+msg+`" >&2; exit 107`)
	_, err := New(Options{Binary: broken, Script: userScript(t, dir)}).CheckLoad(t.Context(), loadRequest(dir, false))
	if !errors.Is(err, ErrScript) || !strings.Contains(err.Error(), msg) {
		t.Errorf("syntax error: %v, want ErrScript with k6's message", err)
	}
	if _, err := New(Options{Binary: broken}).CheckLoad(t.Context(), loadRequest(dir, false)); err != nil {
		t.Errorf("bundled script: %v", err)
	}
	plainDir := t.TempDir()
	d := New(Options{Binary: inspectingK6(t, plainDir, "inspect-plain.json"), Script: userScript(t, plainDir)})
	notice, err := d.CheckLoad(t.Context(), loadRequest(plainDir, false))
	if err != nil || !strings.Contains(notice, "vus=3, duration=2s, iterations=5") || !strings.Contains(notice, "2 VUs for 1s") {
		t.Errorf("notice %q, %v", notice, err)
	}
}
