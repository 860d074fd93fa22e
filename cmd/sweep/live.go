package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/sweep-tool/sweep/metrics/live"
	"github.com/sweep-tool/sweep/session"
	"github.com/sweep-tool/sweep/sweep"
)

// liveFlags are the flags of watching a run as it goes: Prometheus
// metrics, and k6's web dashboard of each cell.
type liveFlags struct {
	metricsAddr string
	k6Dashboard bool
}

func (l *liveFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&l.metricsAddr, "metrics-addr", "", "serve Prometheus metrics on HOST:PORT/metrics while the command runs "+
		"(e.g. 127.0.0.1:9464): cells done, ETA, the running cell and phase, its RPS, errors, p99, CPU and DB sessions "+
		"per second; docs/grafana/sweep-live.json is a dashboard for them (default: none)")
	fs.BoolVar(&l.k6Dashboard, "k6-dashboard", false, "with k6: export k6's web dashboard of each cell's measured phase "+
		"to the cell's k6-dashboard.html, linked from report.html")
}

// apply sets the live view into opts and, with --metrics-addr, starts
// serving the metrics at once: an address that cannot be served is bad
// input before anything else starts. stop ends serving.
func (l liveFlags) apply(ctx context.Context, opts *session.Options, stderr io.Writer) (stop func(), err error) {
	opts.K6Dashboard = l.k6Dashboard
	if l.metricsAddr == "" {
		return func() {}, nil
	}
	m := live.New()
	srv, err := live.Start(ctx, l.metricsAddr, m)
	if err != nil {
		return nil, sweep.BadInput("metrics_addr", "%v", err)
	}
	fmt.Fprintf(stderr, "sweep: metrics on http://%s%s\n", srv.Addr(), live.Path)
	opts.Progress, opts.Observer = sweep.Progresses(opts.Progress, m), m
	return func() {
		if err := srv.Close(); err != nil {
			fmt.Fprintf(stderr, "sweep: metrics: %v\n", err)
		}
	}, nil
}
