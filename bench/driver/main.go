// Command benchdriver measures how much CPU the built-in load driver spends
// per request, next to wrk, hey and ab when they are installed. The target
// is a tiny GET endpoint in a separate process (this program re-executed
// with the "serve" argument), so the generator's CPU is measured apart from
// the target's: the built-in driver's with getrusage of this process, the
// tools' with the rusage of their own process.
//
// Usage:
//
//	go run ./bench/driver [-d 5s] [-c 50] [-tools builtin,wrk,hey,ab]
//
// The machine is shared with the target (and maybe with others): figures
// move from run to run, so compare rows of one run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "benchdriver:", err)
		os.Exit(1)
	}
}

// config is what one benchmark run measures.
type config struct {
	duration time.Duration
	conns    int
	tools    []string
	// cpuProfile, when set, is where the built-in driver's run is
	// profiled.
	cpuProfile string
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "serve" {
		return serve(stdin, stdout)
	}
	fs := flag.NewFlagSet("benchdriver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	var tools string
	fs.DurationVar(&cfg.duration, "d", 5*time.Second, "length of each generator's run")
	fs.IntVar(&cfg.conns, "c", 50, "connections (virtual users)")
	fs.StringVar(&tools, "tools", "builtin,wrk,hey,ab", "generators to run, in order; missing tools are skipped")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the built-in driver's run to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg.tools = strings.Split(tools, ",")
	url, stopTarget, err := startTarget(ctx)
	if err != nil {
		return err
	}
	defer stopTarget()
	return bench(ctx, cfg, url, stdout)
}

// bench runs each generator in turn and prints a table.
func bench(ctx context.Context, cfg config, url string, stdout io.Writer) error {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "generator\trequests\treq/s\tcpu µs/req\tnote\n")
	for _, name := range cfg.tools {
		r, err := measure(ctx, name, cfg, url)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%s: %w", name, ctx.Err())
			}
			fmt.Fprintf(tw, "%s\t-\t-\t-\t%v\n", name, err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.1f\t%s\n", name, r.requests, r.rps, r.cpuPerRequestUS(), r.note)
	}
	return tw.Flush()
}

// startTarget re-executes this program as the target and returns its URL
// and a function that stops it.
func startTarget(ctx context.Context) (string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("find own executable: %w", err)
	}
	cmd := exec.CommandContext(ctx, self, "serve")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, fmt.Errorf("target stdin: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, fmt.Errorf("target stdout: %w", err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start target: %w", err)
	}
	stop := func() { stdin.Close(); _ = cmd.Wait() }
	var addr string
	if _, err := fmt.Fscanln(out, &addr); err != nil {
		stop()
		return "", nil, fmt.Errorf("read target address: %w", err)
	}
	return "http://" + addr + "/", stop, nil
}
