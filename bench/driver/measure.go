package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// result is one generator's run.
type result struct {
	requests int64
	rps      float64
	cpu      time.Duration // user + system CPU of the generator
	note     string
}

func (r result) cpuPerRequestUS() float64 {
	if r.requests == 0 {
		return 0
	}
	return float64(r.cpu.Microseconds()) / float64(r.requests)
}

// measure runs one generator against url.
func measure(ctx context.Context, name string, cfg config, url string) (result, error) {
	if name == "builtin" {
		return measureBuiltin(ctx, cfg, url)
	}
	argv, err := toolArgv(name, cfg, url)
	if err != nil {
		return result{}, err
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return result{}, fmt.Errorf("not installed")
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return result{}, fmt.Errorf("run %s: %w: %s", name, err, lastLine(out.String()))
	}
	r, err := parseOutput(name, out.String())
	if err != nil {
		return result{}, err
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.cpu = rusageCPU(ru)
	}
	return r, nil
}

func measureBuiltin(ctx context.Context, cfg config, url string) (result, error) {
	before, err := selfCPU()
	if err != nil {
		return result{}, err
	}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return result{}, fmt.Errorf("cpu profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return result{}, fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	d := builtin.New(builtin.Options{Scenario: builtin.ScenarioGet})
	m, err := d.Run(ctx, sweep.LoadRequest{
		BaseURL: url, Duration: cfg.duration,
		Load: results.LoadInfo{Driver: d.Name(), Model: "closed", VUs: cfg.conns},
	})
	if err != nil {
		return result{}, err
	}
	after, err := selfCPU()
	if err != nil {
		return result{}, err
	}
	r := result{requests: m.Requests, rps: m.RPS, cpu: after - before}
	if len(m.Errors) > 0 {
		r.note = fmt.Sprintf("errors %v", m.Errors)
	}
	return r, nil
}

func selfCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return rusageCPU(&ru), nil
}

func rusageCPU(ru *syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// toolArgv builds the command line of an outside generator: conns
// keep-alive connections for the configured duration, as fast as it can.
func toolArgv(name string, cfg config, url string) ([]string, error) {
	secs := strconv.Itoa(max(1, int(cfg.duration.Round(time.Second)/time.Second)))
	conns := strconv.Itoa(cfg.conns)
	switch name {
	case "wrk":
		return []string{"wrk", "-t", "2", "-c", conns, "-d", secs + "s", url}, nil
	case "hey":
		return []string{"hey", "-z", secs + "s", "-c", conns, url}, nil
	case "ab":
		// -n after -t, or -t caps the run at 50000 requests; ab keeps 32 bytes per
		// request of -n, so it is a bound, not a goal.
		return []string{"ab", "-k", "-q", "-c", conns, "-t", secs, "-n", "2000000", url}, nil
	}
	return nil, fmt.Errorf("unknown generator %q", name)
}

var (
	wrkRequests = regexp.MustCompile(`(\d+) requests in`)
	anyRPS      = regexp.MustCompile(`Requests(?:/sec| per second):\s+([\d.]+)`)
	heyStatus   = regexp.MustCompile(`\[(\d{3})\]\s+(\d+) responses`)
	abComplete  = regexp.MustCompile(`Complete requests:\s+(\d+)`)
)

// parseOutput reads the request count and rate from a tool's summary.
func parseOutput(name, out string) (result, error) {
	var r result
	m := anyRPS.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("%s: no requests/s in output: %s", name, lastLine(out))
	}
	r.rps, _ = strconv.ParseFloat(m[1], 64)
	switch name {
	case "wrk":
		if m := wrkRequests.FindStringSubmatch(out); m != nil {
			r.requests, _ = strconv.ParseInt(m[1], 10, 64)
		}
	case "hey":
		for _, m := range heyStatus.FindAllStringSubmatch(out, -1) {
			n, _ := strconv.ParseInt(m[2], 10, 64)
			r.requests += n
		}
	case "ab":
		if m := abComplete.FindStringSubmatch(out); m != nil {
			r.requests, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
	if r.requests == 0 {
		return r, fmt.Errorf("%s: no request count in output: %s", name, lastLine(out))
	}
	return r, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
