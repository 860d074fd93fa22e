package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The groups of flags --help shows, one section each, in this order;
// the flags of no group follow under "Flags".
const (
	groupGrid        = "Grid"
	groupStack       = "Stack"
	groupLoad        = "Load"
	groupMeasurement = "Measurement"
	groupSearch      = "Safe-limit search"
	groupOutput      = "Output"
	groupSwarm       = "Swarm"
	groupKubernetes  = "Kubernetes"
	groupNodes       = "Swarm and Kubernetes"
)

var groupOrder = []string{groupGrid, groupStack, groupLoad, groupMeasurement, groupSearch, groupOutput,
	groupSwarm, groupKubernetes, groupNodes}

// groupKey is the pflag annotation that holds a flag's group.
const groupKey = "sweep_group"

// helpWidth is the column at which --help wraps a flag's words.
const helpWidth = 100

func init() {
	// cobra's templates see only the functions registered with it
	cobra.AddTemplateFunc("flagGroups", flagGroups)
}

// inGroup puts the flags of fs named in group.
func inGroup(fs *pflag.FlagSet, group string, names ...string) {
	for _, name := range names {
		if err := fs.SetAnnotation(name, groupKey, []string{group}); err != nil {
			panic(err) // a name not defined here is a mistake in the program
		}
	}
}

// groupOf is the group a flag was put in, or "".
func groupOf(fl *pflag.Flag) string {
	if g := fl.Annotations[groupKey]; len(g) > 0 {
		return g[0]
	}
	return ""
}

// useGroups makes root and its commands print their flags by group.
func useGroups(root *cobra.Command) {
	const flat = "{{if .HasAvailableLocalFlags}}\n\nFlags:\n{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}"
	tmpl := root.UsageTemplate()
	if !strings.Contains(tmpl, flat) {
		panic("cobra's usage template has no flags section to replace")
	}
	root.SetUsageTemplate(strings.Replace(tmpl, flat, "{{flagGroups .LocalFlags}}", 1))
}

// flagGroups renders the visible flags of fs as one section per group,
// in groupOrder, then the rest under "Flags", each wrapped at helpWidth.
func flagGroups(fs *pflag.FlagSet) string {
	sets := map[string]*pflag.FlagSet{}
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden {
			return
		}
		g := groupOf(fl)
		if !slices.Contains(groupOrder, g) {
			g = ""
		}
		if sets[g] == nil {
			sets[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
		}
		sets[g].AddFlag(fl)
	})
	var b strings.Builder
	for _, g := range append(groupOrder, "") {
		set := sets[g]
		if set == nil {
			continue
		}
		title := g
		if title == "" {
			title = "Flags"
		}
		b.WriteString("\n\n" + title + ":\n" + strings.TrimRight(set.FlagUsagesWrapped(helpWidth), " \n"))
	}
	return b.String()
}
