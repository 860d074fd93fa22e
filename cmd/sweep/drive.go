package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/load/remote"
	"github.com/sweep-tool/sweep/sweep"
)

// newDriveCmd is the hidden far end of the remote load driver (package
// remote): one phase of the built-in driver or of k6, its record printed
// as frames; with --install, the copy of this binary that a k6 image's
// container runs.
func newDriveCmd(stdout io.Writer) *cobra.Command {
	var request, install string
	var opts remote.ServeOptions
	cmd := &cobra.Command{
		Use: "drive", Hidden: true, Args: cobra.NoArgs,
		Short: "Run one phase of the built-in load driver or of k6 and print its record (inside a load service)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if install != "" {
				path, err := remote.Install(install)
				if err == nil {
					_, err = fmt.Fprintln(stdout, "installed", path)
				}
				return err
			}
			req, err := remote.ReadRequest(request, envOf(cmd.Context()).Get, cmd.InOrStdin())
			if err == nil {
				ctx := cmd.Context() // a signal ends the phase as a stop
				err = remote.Serve(context.WithoutCancel(ctx), req, opts, ctx.Done(), stdout)
			}
			if errors.Is(err, remote.ErrBadRequest) {
				return sweep.BadInput("request", "%v", err)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&request, "request", "", "the drive request as JSON (default: $"+remote.RequestEnv+", else stdin)")
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "where a k6 phase keeps its files (default: the system's temporary directory)")
	cmd.Flags().StringVar(&opts.K6, "k6", "", "the k6 binary of a k6 phase (default: k6 on PATH)")
	cmd.Flags().StringVar(&install, "install", "", "copy this binary into DIR as sweep and exit, an init container's step (default: none)")
	return cmd
}
