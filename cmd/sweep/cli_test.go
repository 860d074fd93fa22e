package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/sweep"
)

// runCLI runs the CLI in-process and returns its exit code and output.
// Bad input must name the input at fault (checkNamesInput).
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLIEnv(t, sweep.Env(os.Environ()), args...)
}

// runCLIEnv is runCLI in the environment env.
func runCLIEnv(t *testing.T, env sweep.Env, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(t.Context(), args, env, &out, &errb)
	if err != nil {
		errb.WriteString("sweep: " + message(err) + "\n")
	}
	if exitCode(err) == exitBadInput {
		checkNamesInput(t, args, err)
	}
	return exitCode(err), out.String(), errb.String()
}

// checkNamesInput fails t unless the bad input err names the input at
// fault, as a user reads it: a BadInputError with its Field (or the CLI's
// own parse error, whose message begins with the flag), or an
// OverLimitError (which names {over_limit}); never the bare sentinel
// wrapped in text ("bad input: …").
func checkNamesInput(t *testing.T, args []string, err error) {
	t.Helper()
	var b *sweep.BadInputError
	var over *sweep.OverLimitError
	named := errors.As(err, &over) || errors.As(err, &b) && (b.Field != "" || strings.HasPrefix(b.Msg, "--"))
	if !named || strings.Contains(message(err), sweep.ErrBadInput.Error()) {
		t.Errorf("sweep %s: bad input that names no input: %q", strings.Join(args, " "), message(err))
	}
}

func TestPlanStudyGrid(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "plan", "--cpus", "2,4,6,8")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"cpu_6__web_9__db_22", "cpu_8__web_12__db_30", "80 cells"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q", want)
		}
	}
}

// TestPlanOneShortCell: the estimate of one short cell is its real
// duration (load, per-cell overhead, starting and stopping the stack, and
// the three controls around it), not rounded to zero minutes.
func TestPlanOneShortCell(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"without a control", []string{"--control-every", "0"}, "≈ 42s"},
		{"with a control before and two after: the noise needs three", nil, "3 controls × (warm-up 1s + measure 3s + ~8s)"},
		{"the controls in the total", nil, "≈ 1m18s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"plan", "--cpus", "1", "--web-mult", "1", "--db-mult", "2", "--warmup", "1s", "--duration", "3s"}, tc.args...)
			code, out, _ := runCLI(t, args...)
			if code != 0 || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, want %q:\n%s", code, tc.want, out)
			}
		})
	}
}

func TestBadInputExitsTwoAndNamesTheFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"zero cpu", []string{"plan", "--cpus", "0,1"}, "--cpus"},
		{"negative", []string{"plan", "--cpus", "1", "--web-mult", "-1"}, "--web-mult"},
		{"empty element", []string{"plan", "--cpus", "1,,2"}, "--cpus"},
		{"not a number", []string{"plan", "--cpus", "two"}, "--cpus"},
		{"empty list", []string{"plan", "--cpus", ""}, "--cpus"},
		{"unknown flag", []string{"plan", "--cpu", "1"}, "--cpu"},
		{"bad load", []string{"plan", "--cpus", "1", "--load", "users=3"}, "--load"},
		{"zero vus", []string{"plan", "--cpus", "1", "--load", "vus=0"}, "--load"},
		{"bad duration", []string{"plan", "--cpus", "1", "--duration", "5 minutes"}, "--duration"},
		{"no cpus", []string{"plan"}, "--cpus"},
		{"precision without a percent sign", []string{"plan", "--cpus", "1", "--precision", "2"}, "--precision"},
		{"min-duration without precision", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://x", "--min-duration", "5s"}, "--min-duration"},
		{"min-duration past duration", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://x", "--precision", "2%", "--min-duration", "10m"}, "--min-duration"},
		{"max-repeat without auto", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://x", "--max-repeat", "3"}, "--max-repeat"},
		// plan refuses what run would refuse (it checks all but the target).
		{"plan max-repeat without auto", []string{"plan", "--cpus", "1", "--max-repeat", "3"}, "--max-repeat"},
		{"plan cpus below the engine's minimum", []string{"plan", "--cpus", "0.001"}, "--cpus"},
		{"place without swarm", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://x", "--place", "app=node.id==x"}, "--place"},
		{"load placed without its image", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://x", "--swarm", "--place", "load=node.id==x"}, "--load-image"},
		{"k6 on a placed load without its image", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://x", "--swarm",
			"--place", "load=node.id==x", "--load-image", "d:1", "--driver", "k6"}, "--k6-image"},
		{"a k6 script on a placed load without the image", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://x", "--swarm",
			"--place", "load=node.id==x", "--load-image", "d:1", "--script", "../../k6scripts/crud.js"}, "--k6-image"},
		{"k6 image with the load on this host", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://x", "--swarm",
			"--k6-image", "grafana/k6"}, "--k6-image"},
		{"cpuset on a swarm", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://x", "--swarm", "--cpuset", "1"}, "--cpuset"},
		{"repeat auto capped at 1", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://x", "--repeat", "auto", "--max-repeat", "1"}, "--max-repeat"},
		{"repeat neither number nor auto", []string{"plan", "--cpus", "1", "--repeat", "often"}, "--repeat"},
		{"run without compose", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
			"--driver", "builtin", "--out", "%TMP%"}, "--compose"},
		{"run bad url", []string{"run", "--cpus", "1", "--service", "app", "--url", "localhost"}, "--url"},
		{"run bad order", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://x", "--order", "random"}, "--order"},
		{"run missing compose file", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
			"--driver", "builtin", "--compose", "/nonexistent/compose.yaml", "--out", "%TMP%"}, "--compose"},
		{"clean with an empty run id", []string{"clean", "--run", ""}, "--run"},
		// halving's plan is checked before anything starts (the compose
		// file, checked later, does not exist), and by plan too.
		{"halving with screens below 2s", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
			"--driver", "builtin", "--compose", "/nonexistent/compose.yaml", "--out", "%TMP%", "--strategy", "halving", "--duration", "1s"}, "--duration"},
		{"halving with screens below 2s, checked first", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
			"--driver", "builtin", "--compose", "/nonexistent/compose.yaml", "--out", "%TMP%", "--strategy", "halving", "--duration", "1s",
			"--check-first"}, "--duration"},
		{"plan halving with screens below 2s", []string{"plan", "--cpus", "1", "--strategy", "halving", "--duration", "1s"}, "--duration"},
		{"cpus below the engine's minimum", []string{"run", "--cpus", "0.005", "--service", "app", "--url", "http://127.0.0.1:1",
			"--driver", "builtin", "--compose", "/nonexistent/compose.yaml", "--out", "%TMP%"}, "--cpus"},
		{"empty out", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
			"--driver", "builtin", "--compose", "/nonexistent/compose.yaml", "--out", ""}, "--out"},
		{"out holding a file for cells/", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
			"--driver", "builtin", "--compose", "/nonexistent/compose.yaml", "--out", "%CELLSFILE%"}, "--out"},
		{"k6 missing", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
			"--driver", "k6", "--k6", "/nonexistent/k6", "--out", "%TMP%"}, "--k6"},
		{"k6 is not k6", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
			"--driver", "k6", "--k6", "/bin/echo", "--out", "%TMP%"}, "--k6"},
		{"script missing", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
			"--script", "/nonexistent/my.js", "--out", "%TMP%"}, "--script"},
		{"script with builtin", []string{"run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
			"--driver", "builtin", "--script", "../../k6scripts/crud.js", "--out", "%TMP%"}, "--script"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string(nil), tc.args...)
			for i, a := range args {
				switch a {
				case "%TMP%":
					args[i] = filepath.Join(t.TempDir(), "run")
				case "%CELLSFILE%": // a run directory whose cells/ is a file
					args[i] = t.TempDir()
					if err := os.WriteFile(filepath.Join(args[i], "cells"), nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			code, _, stderr := runCLI(t, args...)
			if code != exitBadInput {
				t.Fatalf("exit %d, want 2; stderr %q", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
				t.Errorf("stderr %q should be one or two lines naming %s", stderr, tc.want)
			}
		})
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "sweep.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// resolveSpec parses args for the run command and returns the spec.
func resolveSpec(t *testing.T, args ...string) (sweep.Spec, error) {
	t.Helper()
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	cmd.SetContext(withEnv(t.Context(), sweep.Env(os.Environ())))
	f := newSpecFlags(cmd.Flags(), cmdRun)
	if err := cmd.ParseFlags(args); err != nil {
		return sweep.Spec{}, err
	}
	return f.resolve(cmd)
}

// TestStoppingFlags: --precision, --min-duration, --repeat auto and
// --max-repeat reach the spec, from the command line or the config file.
func TestStoppingFlags(t *testing.T) {
	t.Parallel()
	spec, err := resolveSpec(t, "--cpus", "1", "--precision", "2%", "--min-duration", "20s", "--repeat", "auto")
	if err != nil || spec.Precision != 0.02 || spec.MinDuration.Std() != 20*time.Second || !spec.RepeatAuto ||
		spec.Repeat != 1 || spec.MaxRepeat != sweep.DefaultMaxRepeat {
		t.Errorf("flags: %v, %+v", err, spec)
	}
	cfg := writeConfig(t, "cpus: [1]\nprecision: 0.5%\nrepeat: auto\nmax-repeat: 3\n")
	spec, err = resolveSpec(t, "--config", cfg)
	if err != nil || spec.Precision != 0.005 || !spec.RepeatAuto || spec.MaxRepeat != 3 {
		t.Errorf("config: %v, %+v", err, spec)
	}
	spec, err = resolveSpec(t, "--cpus", "1")
	if err != nil || spec.Precision != 0 || spec.MinDuration != 0 || spec.RepeatAuto || spec.Repeat != 1 || spec.MaxRepeat != 0 {
		t.Errorf("defaults: %v, %+v", err, spec)
	}
}

func TestConfigFile(t *testing.T) {
	cfg := writeConfig(t, "cpus: [0.5, 1]\nweb-mult: [1, 2]\ncompose: [a.yaml, /abs/b.yaml]\nservice: app\nwarmup: 3s\nload: vus=20\n")
	dir := filepath.Dir(cfg)
	t.Setenv("SWEEP_DB_DSN", "postgres://u:p@h/db")
	spec, err := resolveSpec(t, "--config", cfg, "--cpus", "2", "--compose", "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := sweep.FormatNumber(spec.CPUs[0]); len(spec.CPUs) != 1 || got != "2" {
		t.Errorf("flag should win over the file: cpus %v", spec.CPUs)
	}
	if len(spec.WebMult) != 2 || spec.Warmup.Std().Seconds() != 3 || spec.Load.VUs != 20 {
		t.Errorf("file values not applied: %+v", spec)
	}
	wantCompose := []string{"c.yaml"}
	if strings.Join(spec.Compose, ",") != strings.Join(wantCompose, ",") {
		t.Errorf("compose %v, want the flag's %v (the file's list is not merged into given flags)", spec.Compose, wantCompose)
	}
	spec, err = resolveSpec(t, "--config", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "a.yaml") + ",/abs/b.yaml"; strings.Join(spec.Compose, ",") != want {
		t.Errorf("compose %v, want paths relative to the config file: %s", spec.Compose, want)
	}
	if spec.DBDSN != "postgres://u:p@h/db" {
		t.Errorf("SWEEP_DB_DSN not used: %q", spec.DBDSN)
	}
}

func TestConfigRefusesUnknownKeys(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"cpu: [1]\n", "cpus: {a: 1}\n", "cpus: [0]\n", ": : :\n"} {
		_, err := resolveSpec(t, "--config", writeConfig(t, text))
		if exitCode(err) != exitBadInput || !strings.Contains(message(err), "--config") {
			t.Errorf("config %q: err %v, want bad input naming --config", text, err)
		}
	}
}

func TestListFlagGivenTwiceKeepsTheLast(t *testing.T) {
	t.Parallel()
	spec, err := resolveSpec(t, "--cpus", "4,8", "--cpus", "1")
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.CPUs) != 1 || spec.CPUs[0] != 1 {
		t.Errorf("cpus %v, want [1]", spec.CPUs)
	}
}

func TestBadInputLeavesNoRunDirectory(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLI(t, "run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
		"--driver", "builtin", "--compose", "/nonexistent/compose.yaml", "--out", out)
	if code != exitBadInput {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("bad input created %s (err %v)", out, err)
	}
}

func TestUnwritableOut(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
		"--driver", "builtin", "--compose", "x.yaml", "--out", filepath.Join(file, "run"))
	if code != exitBadInput || !strings.Contains(stderr, "--out") {
		t.Errorf("exit %d stderr %q, want 2 naming --out", code, stderr)
	}
}

// TestCheckNamesTODOLines: check and run refuse a config file while a
// TODO line (what sweep init could not guess) is left in it, naming each
// line, and a scenario file with one (init's skeleton), before they start
// anything.
func TestCheckNamesTODOLines(t *testing.T) {
	t.Parallel()
	cfg := writeConfig(t, "cpus: [1]\nservice: app\n# TODO: url: the published port\nurl: http://127.0.0.1:1\n"+
		"compose: [c.yaml]  # TODO: the other file\n")
	skeleton, err := filepath.Abs("../../scaffold/testdata/skeleton.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check"}, {"run", "--out", filepath.Join(t.TempDir(), "run")}} {
		cmd := args[0]
		code, _, stderr := runCLIEnv(t, nil, append(args, "--config", cfg)...)
		for _, want := range []string{"--config: ", cfg + ":3: TODO: url: the published port", cfg + ":5: TODO: the other file"} {
			if code != exitBadInput || !strings.Contains(stderr, want) {
				t.Errorf("%s: exit %d, %q; want 2 saying %q", cmd, code, stderr, want)
			}
		}
	}
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLIEnv(t, nil, "run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
		"--compose", "x.yaml", "--scenario", skeleton, "--out", out)
	if code != exitBadInput || !strings.Contains(stderr, "--scenario: ") || !strings.Contains(stderr, skeleton+":6: TODO: replace it") {
		t.Errorf("run --scenario <init's skeleton>: exit %d, %q; want 2 naming its TODO line", code, stderr)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused run left %s (%v); want nothing written", out, err)
	}
}

// TestScheduleFlags: --schedule, --slice and --rounds reach the spec
// (plan prices an interleaved run), and each misuse (--control-every
// among them: the rounds are the noise) is bad input naming its flag
// before anything starts.
func TestScheduleFlags(t *testing.T) {
	t.Parallel()
	grid := []string{"--cpus", "0.5,1", "--web-mult", "1,2", "--db-mult", "1,2", "--warmup", "5s", "--duration", "20s"}
	code, stdout, stderr := runCLI(t, append([]string{"plan", "--schedule", "interleaved", "--slice", "10s", "--rounds", "3"}, grid...)...)
	if code != exitOK || !strings.Contains(stdout, "3 rounds × a 10s slice") || !strings.Contains(stdout, "no control cell runs") {
		t.Errorf("plan --schedule interleaved: exit %d, %q %q; want its rounds and slices priced, no control cell", code, stdout, stderr)
	}
	stack := []string{"--compose", "x.yaml", "--service", "app", "--url", "http://127.0.0.1:1", "--out", filepath.Join(t.TempDir(), "run")}
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--schedule", "inter"}, "--schedule: "},
		{[]string{"--rounds", "3"}, "--rounds: "},
		{[]string{"--slice", "10s"}, "--slice: "},
		{[]string{"--schedule", "interleaved", "--rounds", "1"}, "--rounds: "},
		{[]string{"--schedule", "interleaved", "--slice", "1m"}, "--slice: "},
		{[]string{"--schedule", "interleaved", "--control-every", "5"}, "--control-every: "},
	} {
		code, _, stderr := runCLI(t, append(append(append([]string{"run"}, grid...), stack...), c.args...)...)
		if code != exitBadInput || !strings.HasPrefix(stderr, "sweep: "+c.flag) {
			t.Errorf("run %v: exit %d, %q; want 2 naming %s", c.args, code, stderr, c.flag)
		}
	}
}
