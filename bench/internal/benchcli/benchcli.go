// Package benchcli holds what the bench programs under bench/ share: their
// main (a run function under a context Ctrl-C cancels) and the reading of
// the comma-separated grid axes they pass on to sweep.
package benchcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/sweep"
)

// Main runs run with the program's arguments under a context that Ctrl-C
// cancels, and exits 1 naming the program on an error (-h's flag.ErrHelp
// is none).
func Main(name string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// SweepExit reads how a sweep run ended (cmd.Run's error): exit 1
// with ctx not done is a cell that failed, a note beside a run that is
// read back anyway; any other failure is the error.
func SweepExit(ctx context.Context, err error) (note string, _ error) {
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 && ctx.Err() == nil {
		return "sweep exited 1: a cell failed (see the run's report)", nil
	}
	return "", err
}

// Floats reads a comma-separated list of numbers, as sweep's --cpus,
// --web-mult and --db-mult take them.
func Floats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", s, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// Grid is the demo grid a bench has sweep run, and how: the flags every
// bench that runs `sweep run` shares.
type Grid struct {
	Sweep, Config, Out          string
	CPUs, WebMult, DBMult, Load string
	Driver                      string
	Warmup, Duration            time.Duration
}

// Register adds the grid's flags to fs with def's values as defaults;
// notes[flag] is appended to a flag's usage (what the bench does with it).
func (g *Grid) Register(fs *flag.FlagSet, def Grid, notes map[string]string) {
	usage := func(name, text string) string {
		if n := notes[name]; n != "" {
			return text + " (" + n + ")"
		}
		return text
	}
	fs.StringVar(&g.Sweep, "sweep", def.Sweep, usage("sweep", "the sweep binary"))
	fs.StringVar(&g.Config, "config", def.Config, usage("config", "the demo's settings (stack, URL, DSN)"))
	fs.StringVar(&g.Out, "out", def.Out, usage("out", "folder of the run directories"))
	fs.StringVar(&g.CPUs, "cpus", def.CPUs, usage("cpus", "CPU limits"))
	fs.StringVar(&g.WebMult, "web-mult", def.WebMult, usage("web-mult", "web multipliers"))
	fs.StringVar(&g.DBMult, "db-mult", def.DBMult, usage("db-mult", "pool multipliers"))
	fs.StringVar(&g.Load, "load", def.Load, usage("load", "load model"))
	fs.StringVar(&g.Driver, "driver", def.Driver, usage("driver", "load driver"))
	fs.DurationVar(&g.Warmup, "warmup", def.Warmup, usage("warmup", "each cell's warm-up"))
	fs.DurationVar(&g.Duration, "duration", def.Duration, usage("duration", "each cell's measured phase"))
}

// RunArgs are sweep's arguments for a run of the grid on the stack of
// its -config (the demo's compose stack), up to the flags a bench adds
// (--strategy, --out, ...).
func (g Grid) RunArgs() []string {
	return append([]string{"run", "--config", g.Config}, g.gridArgs()...)
}

// gridArgs are the flags of sweep run that make the grid and how each
// cell is measured, whichever the backend.
func (g Grid) gridArgs() []string {
	return []string{"--cpus", g.CPUs, "--web-mult", g.WebMult, "--db-mult", g.DBMult,
		"--load", g.Load, "--warmup", g.Warmup.String(), "--duration", g.Duration.String(), "--driver", g.Driver}
}

// Kube is the demo on the Kubernetes fixture (make k8s-up) as a bench
// hands it to sweep run --kubernetes.
type Kube struct {
	// Manifests is the demo's manifests with its images filled in
	// (k8sfixture.State.WriteManifests of demo.yaml: PostgreSQL on node 2,
	// the app on node 1).
	Manifests string
	// LoadImage is the sweep-drive image the load's Jobs run, loaded
	// into the nodes.
	LoadImage string
	// ResetSQL is the demo's reset file, run before each cell's warm-up
	// as the compose config runs it.
	ResetSQL string
	// Kubeconfig names the cluster.
	Kubeconfig string
}

// KubeDSN is the demo's database as a pod of the run's namespace dials
// it; sweep reaches it through a port-forward.
const KubeDSN = "postgres://sweep:sweep@db:5432/sweep?sslmode=disable"

// KubeRunArgs are sweep's arguments for a run of the grid on Kubernetes,
// as TestKubernetesRunEndToEnd runs the demo: the Deployment app from
// k's manifests, the load a Job on node 2 reaching it by its Service
// name; up to the flags a bench adds. Kube.Env is its environment.
func (g Grid) KubeRunArgs(k Kube) []string {
	return append([]string{"run", "--kubernetes", "--manifests", k.Manifests, "--service", "app", "--url", "http://app:8080",
		"--ready-path", "/health", "--db-reset-sql", k.ResetSQL, "--load-image", k.LoadImage, "--place", "load=sweep.index=2"},
		g.gridArgs()...)
}

// Env is what a Kubernetes run adds to sweep's environment: the
// kubeconfig and the database's DSN (SWEEP_DB_DSN, out of argv).
func (k Kube) Env() []string {
	return []string{"KUBECONFIG=" + k.Kubeconfig, "SWEEP_DB_DSN=" + KubeDSN}
}

// Plan is the grid's cells by sweep's own rule (sweep.BuildPlan).
func (g Grid) Plan() ([]sweep.Cell, error) {
	var axes [3][]float64
	for i, s := range []string{g.CPUs, g.WebMult, g.DBMult} {
		v, err := Floats(s)
		if err != nil {
			return nil, err
		}
		axes[i] = v
	}
	return sweep.BuildPlan(axes[0], axes[1], axes[2]), nil
}

// Stamped is a default run folder runs/<name>-<UTC time>.
func Stamped(name string) string {
	return filepath.Join("runs", name+"-"+time.Now().UTC().Format("20060102-150405"))
}
