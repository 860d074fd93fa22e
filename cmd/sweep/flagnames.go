package main

import (
	"context"
	"io"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sweep-tool/sweep/sweep"
)

// fieldFlags are the library's input names whose flag is not the name's
// last part with dashes for underscores (find_limit.max_level is
// --max-level, web_mult --web-mult).
var fieldFlags = map[string]string{
	"axes":        "axis",
	"variants":    "variant",
	"allow_large": "yes",
	"run_dir":     "run",
	"noise_band":  "noise",
	"noise_cv":    "noise",
}

// pseudoFlags are names errors carry that no command defines as a flag:
// a run that a report, comparison, export or replay cannot read, a run id
// sweep made.
var pseudoFlags = map[string]bool{"report": true, "run-id": true, "help": true}

// libraryInputs are inputs no flag sets: the CLI passes report.Compare's
// alpha at its default and halving's plan as halving.DefaultPlan of
// --warmup and --duration, and a selection's keep fraction and
// measurements are halving's own. An error about one names it as it is
// ("plan: round 1 measures 1s, less than 2s").
var libraryInputs = map[string]bool{"alpha": true, "plan": true, "keep_fraction": true, "measurements": true, "stacks": true}

// flagNames is every flag name of every command, once asked.
var flagNames struct {
	once  sync.Once
	names map[string]bool
}

// allFlags is every flag name of every command.
func allFlags() map[string]bool {
	flagNames.once.Do(func() {
		flagNames.names = map[string]bool{}
		var walk func(c *cobra.Command)
		walk = func(c *cobra.Command) {
			c.Flags().VisitAll(func(f *pflag.Flag) { flagNames.names[f.Name] = true })
			for _, sub := range c.Commands() {
				walk(sub)
			}
		}
		walk(newRootCmd(context.Background(), io.Discard, io.Discard))
	})
	return flagNames.names
}

// flagOf is the flag, with its dashes, that sets the library's input
// field; false when no flag does.
func flagOf(field string) (string, bool) {
	name, ok := fieldFlags[field]
	if !ok {
		name = field[strings.LastIndex(field, ".")+1:]
		name = strings.ReplaceAll(name, "_", "-")
	}
	if !allFlags()[name] && !pseudoFlags[name] {
		return "", false
	}
	return "--" + name, true
}

// nameOf is how the CLI names the library's input field: as its flag, or
// as itself when it is one of the libraryInputs; false when neither.
func nameOf(field string) (string, bool) {
	if flag, ok := flagOf(field); ok {
		return flag, true
	}
	return field, libraryInputs[field]
}

// message is err as a user of the CLI reads it: the inputs it names as
// {field} are named as the flags that set them.
func message(err error) string {
	return sweep.NameFields(err.Error(), nameOf)
}
