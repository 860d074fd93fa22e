package main

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/load/remote"
	"github.com/sweep-tool/sweep/sweep"
)

// newDriveCmd is the hidden far end of the remote load driver (package
// remote): one phase of the built-in driver, its record printed as frames.
func newDriveCmd(stdout io.Writer) *cobra.Command {
	var request string
	cmd := &cobra.Command{
		Use: "drive", Hidden: true, Args: cobra.NoArgs,
		Short: "Run one phase of the built-in load driver and print its record (inside a load service)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			req, err := remote.ReadRequest(request, envOf(cmd.Context()).Get, cmd.InOrStdin())
			if err == nil {
				ctx := cmd.Context() // a signal ends the phase as a stop
				err = remote.Serve(context.WithoutCancel(ctx), req, ctx.Done(), stdout)
			}
			if errors.Is(err, remote.ErrBadRequest) {
				return sweep.BadInput("request", "%v", err)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&request, "request", "", "the drive request as JSON (default: $"+remote.RequestEnv+", else stdin)")
	return cmd
}
