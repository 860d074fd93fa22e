package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/sweep"
)

func newRootCmd(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "sweep",
		Short: "Find the web-thread and DB-pool sizes that give the best throughput or tail latency per CPU budget",
		Long: "sweep runs every cell of a grid (CPU limit × web-thread multiplier × DB-pool multiplier) against a\n" +
			"real Docker Compose stack, drives HTTP load at each cell and reports RPS and P99 matrices.\n\n" + sweep.RuleHelp,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(badFlag)
	root.AddCommand(newPlanCmd(stdout, stderr), newRunCmd(stdout, stderr), newCleanCmd(stdout),
		newReportCmd(stdout, stderr), newCompareCmd(stdout),
		newCheckCmd(stdout, stderr), newResumeCmd(stdout, stderr), newRerunCmd(stdout, stderr),
		newLimitCmd(stdout, stderr), newLimitsCmd(stdout), newReplayCmd(stdout), newExportCmd(stdout, stderr),
		newInitCmd(stdout), newDriveCmd(stdout))
	useGroups(root)
	root.SetContext(ctx)
	return root
}

// badFlag turns pflag's parse errors of cmd into bad input that names
// the flag and keeps sweep's own messages as they are; a flag that
// another command has, not cmd, is named with those that have it.
func badFlag(cmd *cobra.Command, err error) error {
	if b := (*sweep.BadInputError)(nil); errors.As(err, &b) {
		return b
	}
	msg := err.Error()
	flag := "help"
	if i := strings.Index(msg, "--"); i >= 0 {
		flag = strings.Fields(msg[i+2:])[0]
		flag = strings.Trim(flag, `"':`)
	}
	if by := takenBy(cmd, flag); by != "" && cmd.Flags().Lookup(flag) == nil {
		return &sweep.BadInputError{Msg: fmt.Sprintf("--%s: %s does not use it (%s do%s); drop it", flag, cmd.Name(), by,
			map[bool]string{true: "es"}[!strings.Contains(by, " and ")])}
	}
	// the flag may be one no command has, so the message names it itself
	return &sweep.BadInputError{Msg: fmt.Sprintf("--%s: %s (see sweep --help)", flag, msg)}
}
