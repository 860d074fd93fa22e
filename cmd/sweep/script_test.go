package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
)

// TestScriptRefusedBeforeAnything: a script the real k6 cannot load, or
// whose scenarios would replace sweep's load, is exit 2 naming --script
// with k6's own message, before any stack or run directory exists (the
// compose file does not even exist). It skips without k6 on PATH.
func TestScriptRefusedBeforeAnything(t *testing.T) {
	t.Parallel()
	bin := testenv.K6(t)
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"syntax error", "export default function () { let x = ; }\n", []string{"--script", "bad.js", "Unexpected token"}},
		{"scenarios", "export const options = { scenarios: { s: { executor: 'shared-iterations', iterations: 1 } } };\n" +
			"export default function () {}\n", []string{"--script", "s: shared-iterations", "50 VUs for 5m0s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			script := filepath.Join(t.TempDir(), "bad.js")
			if err := os.WriteFile(script, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "run")
			code, _, stderr := runCLI(t, "run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
				"--compose", "/nonexistent/compose.yaml", "--k6", bin, "--script", script, "--out", out)
			if code != exitBadInput {
				t.Fatalf("exit %d, want 2: %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q: %s", w, stderr)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the refused run made %s (%v)", out, err)
			}
		})
	}
}

// TestScriptNeedsK6: with --driver auto and no k6 on PATH, a --script is
// bad input naming --script, not silently replaced by the built-in driver.
func TestScriptNeedsK6(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	code, _, stderr := runCLI(t, "run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
		"--compose", "/nonexistent/compose.yaml", "--script", "../../k6scripts/crud.js", "--out", filepath.Join(t.TempDir(), "run"))
	if code != exitBadInput || !strings.Contains(stderr, "--script: a k6 script runs only with k6") {
		t.Errorf("exit %d, want 2 naming --script: %s", code, stderr)
	}
}
