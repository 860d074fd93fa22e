package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/sweep"
)

// FuzzNumberList checks that the list parser either returns numbers > 0
// or bad input naming the flag, and never panics.
func FuzzNumberList(f *testing.F) {
	for _, s := range []string{"2,4,6,8", "0.5,1", "", ",", "1,,2", "-1", "1e309", "NaN", "0x10", " 1 , 2 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vals, err := sweep.ParseNumberList("cpus", s)
		if err != nil {
			if !strings.HasPrefix(message(err), "--cpus: ") || exitCode(err) != exitBadInput {
				t.Fatalf("error %q is not bad input naming --cpus", err)
			}
			return
		}
		for _, v := range vals {
			if !(v > 0) {
				t.Fatalf("%q gave %v", s, vals)
			}
		}
	})
}

// FuzzDurationFlag checks the duration flags through the real flag set.
func FuzzDurationFlag(f *testing.F) {
	for _, s := range []string{"5m", "30s", "0", "-1s", "1h2m3s", "5 minutes", "", "9999999h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := resolveSpec(t, "--cpus", "1", "--duration", s)
		if err != nil {
			if exitCode(badFlag(&cobra.Command{}, err)) != exitBadInput {
				t.Fatalf("error %q is not bad input", err)
			}
			return
		}
		if want, perr := time.ParseDuration(s); perr != nil || spec.Duration.Std() != want {
			t.Fatalf("%q parsed to %v", s, spec.Duration.Std())
		}
	})
}

// FuzzConfigFile checks that any YAML document either sets the spec or
// is refused as bad input naming --config.
func FuzzConfigFile(f *testing.F) {
	for _, s := range []string{"cpus: [0.5, 1]\n", "cpu: [1]\n", "cpus: {a: 1}\n", "load: vus=3\n",
		"compose: [a.yaml, b.yaml]\nwarmup: 3s\n", ": :\n", "cpus: [0]\n", "axis: ['pgbouncer:POOL_MODE=a,b']\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		path := filepath.Join(t.TempDir(), "sweep.yaml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := resolveSpec(t, "--config", path)
		if err != nil && exitCode(err) != exitBadInput {
			t.Fatalf("config %q: error %q is not bad input", text, err)
		}
	})
}
