package main

import (
	"io"

	"github.com/spf13/cobra"
)

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{Use: "run", Short: "Run the sweep"}
	newSpecFlags(cmd.Flags())
	return cmd
}
