package main

// End-to-end tests of the proof of delivery: a --url that goes nowhere,
// or to another copy of the stack, must fail the cells instead of
// recording figures of a target that sat idle.

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// withURL replaces the --url of c.
func withURL(t *testing.T, c cmdline, url string) cmdline {
	t.Helper()
	for i, a := range c.args {
		if a == "--url" {
			c.args[i+1] = url
			return c
		}
	}
	t.Fatal("no --url in the command line")
	return c
}

// answerOnce listens on a loopback port, answers the first request with
// 200 and closing, then stops listening: a URL that answers a check
// before the night and refuses the load. It returns the URL.
func answerOnce(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		ln.Close()
		if err != nil {
			return
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
			_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestUnreachableURLFailsCells: a --url where nobody listens once the
// load starts. Before, every cell was ok with the refused connections
// counted as thousands of requests a second.
func TestUnreachableURLFailsCells(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	url := answerOnce(t)
	code, pr := runSweep(t, bin, withURL(t, demoRun(t, p, out, "0.5"), url))
	if code != exitFailure {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", code, pr.stderr.String())
	}
	meta := readMeta(t, out)
	rec := readRecord(t, out, meta.Cells[0].ID)
	t.Logf("%s: %s; %d connect errors %v, %d requests", rec.Status, rec.Reason, rec.ConnectErrors, rec.ConnectErrorKinds, rec.Requests)
	if want := "target unreachable: "; rec.Status != results.StatusFailed || !strings.HasPrefix(rec.Reason, want) ||
		!strings.Contains(rec.Reason, url) {
		t.Errorf("status %s reason %q, want failed %q… naming %s", rec.Status, rec.Reason, want, url)
	}
	// 4 users backing off from 5 ms to 1 s try about 11 times each in 3 s.
	if rec.ConnectErrors < 4 || rec.ConnectErrors > 60 {
		t.Errorf("connect errors = %d, want 4..60 (4 users backing off for 3 s)", rec.ConnectErrors)
	}
	if rec.Requests != 0 || rec.RPS != 0 || rec.ErrorRate != 0 {
		t.Errorf("requests %d, rps %g, error rate %g: refused connections are no requests", rec.Requests, rec.RPS, rec.ErrorRate)
	}
	assertNoContainers(t, cli, meta.RunID)
}

// TestLoadElsewhereFailsCells: --url points at another copy of the demo
// stack, which answers every request while the target under test sits
// idle. Before, every cell was ok with plausible figures.
func TestLoadElsewhereFailsCells(t *testing.T) {
	bin, cli := demo(t)
	other := otherDemoStack(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	code, pr := runSweep(t, bin, withURL(t, demoRun(t, p, out, "0.5"), other.url()))
	if code != exitFailure {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", code, pr.stderr.String())
	}
	meta := readMeta(t, out)
	assertNotDelivered(t, readRecord(t, out, meta.Cells[0].ID), other.url())
	assertNoContainers(t, cli, meta.RunID)
}

// assertNotDelivered checks a cell whose load went to url, elsewhere than
// the target: failed as not delivered naming url, with the other stack's
// answers measured and the target's network counters far below the bytes
// sent.
func assertNotDelivered(t *testing.T, rec results.Record, url string) {
	t.Helper()
	d := rec.Delivery
	if d == nil {
		t.Fatalf("no delivery block in result.json (status %s, %s)", rec.Status, rec.Reason)
	}
	t.Logf("%s: %s; delivery %+v", rec.Status, rec.Reason, *d)
	if want := "load did not reach the target: "; rec.Status != results.StatusFailed || !strings.HasPrefix(rec.Reason, want) ||
		!strings.Contains(rec.Reason, url) {
		t.Errorf("status %s reason %q, want failed %q… naming %s", rec.Status, rec.Reason, want, url)
	}
	if rec.Requests == 0 || d.Method != results.DeliveryNetwork || d.SentBytes != rec.BytesSent || d.SentBytes <= 0 ||
		float64(d.ReceivedBytes) >= sweep.MinDeliveryRatio*float64(d.SentBytes) {
		t.Errorf("%d requests, delivery %+v: want the other stack's answers, both byte counts and a ratio under %g",
			rec.Requests, *d, sweep.MinDeliveryRatio)
	}
}

// otherDemoStack brings up a second copy of the demo stack on ports of
// its own, labelled with a run id of its own, and takes it down at the
// end of the test.
func otherDemoStack(t *testing.T) ports {
	t.Helper()
	p := freePorts(t)
	// The compose CLI reads the ports from the environment, as with make demo.
	t.Setenv("SWEEP_DEMO_PORT", fmt.Sprint(p.app))
	t.Setenv("SWEEP_DEMO_PG_PORT", fmt.Sprint(p.pg))
	runID := results.NewRunID(time.Now()) + "other"
	st, err := compose.New(t.Context(), compose.Options{StackOptions: sweep.StackOptions{Files: []string{filepath.Join(repoRoot(t), "compose", "demo", "docker-compose.yaml")}, Service: "app", RunID: runID}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := st.Down(ctx); err != nil {
			t.Logf("take the other stack down: %v", err)
		}
		if got, err := compose.Cleanup(ctx, st.Engine(), runID); err != nil || len(got.Containers) > 0 {
			t.Logf("clean the other stack: removed %v: %v", got.Containers, err)
		}
	})
	cfg := sweep.TargetConfig{Dir: t.TempDir(), CPUs: 1, Env: map[string]string{"BOX_INSTANCE_NAME": "other"},
		Labels: map[string]string{sweep.LabelCell: "other"}}
	if err := st.Apply(t.Context(), cfg); err != nil {
		t.Fatalf("bring the other stack up: %v", err)
	}
	if err := st.WaitReady(t.Context(), time.Minute); err != nil {
		t.Fatalf("the other stack: %v", err)
	}
	return p
}
