package main

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/load/remote"
	"github.com/sweep-tool/sweep/sweep"
)

// newDriveCmd is the hidden far end of the remote load driver: it runs
// one phase of the built-in driver and prints its record as frames on
// stdout (see package remote). SIGTERM ends the phase early as a normal
// stop, with the record still printed.
func newDriveCmd(stdout io.Writer) *cobra.Command {
	var request string
	cmd := &cobra.Command{
		Use:    "drive",
		Short:  "Run one phase of the built-in load driver and print its record (inside a load service)",
		Long:   "Reads a drive request as JSON from --request, else $" + remote.RequestEnv + ", else stdin.",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			data, err := driveRequest(request, cmd.InOrStdin())
			if err != nil {
				return err
			}
			req, err := remote.DecodeRequest(data)
			if err != nil {
				return sweep.BadInput("request", "%v", err)
			}
			ctx := cmd.Context()
			err = remote.Serve(context.WithoutCancel(ctx), req, ctx.Done(), stdout)
			if errors.Is(err, remote.ErrBadRequest) {
				return sweep.BadInput("request", "%v", err)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&request, "request", "", "the drive request as JSON (default: $"+remote.RequestEnv+", else stdin)")
	return cmd
}

// driveRequest is the request's JSON: the flag's, the variable's, or
// stdin's.
func driveRequest(flag string, stdin io.Reader) ([]byte, error) {
	if flag != "" {
		return []byte(flag), nil
	}
	if env := os.Getenv(remote.RequestEnv); env != "" {
		return []byte(env), nil
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return nil, sweep.BadInput("request", "read stdin: %v", err)
	}
	return data, nil
}
