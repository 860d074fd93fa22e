package compose

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/sweep"
)

// TestTargetsOnEngine starts an interleaved group's two targets beside
// the stack: each its own container with its cell's CPU limit, env and
// labels and a port of its own; a kill of one is a change of its watch,
// not of the other's; Down removes them.
func TestTargetsOnEngine(t *testing.T) {
	eng := testenv.Docker(t)
	cli := composeCLI(t)
	img := testenv.GoImage(t, eng, "sweep-compose-test", "./testdata/httpd")
	port := testenv.FreePort(t)
	file := writeStackWith(t, img, fmt.Sprintf("    ports:\n      - \"127.0.0.1:%d:8080\"\n    depends_on: [side]\n", port))
	runID := newRunID(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	s, err := New(t.Context(), Options{StackOptions: sweep.StackOptions{Files: []string{file}, Service: "web", RunID: runID,
		URL: base, ReadyURL: base + "/health", SweptEnv: []string{"WEB_THREADS"}}, Engine: eng, CLI: cli})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { down(t, s, eng, runID) })
	group := filepath.Join(t.TempDir(), "g1")
	cfgs := []sweep.TargetConfig{
		{Dir: group, CPUs: 0.5, Env: map[string]string{"WEB_THREADS": "1"}, Labels: map[string]string{sweep.LabelCell: "c1"}},
		{Dir: group, CPUs: 1, Env: map[string]string{"WEB_THREADS": "2"}, Labels: map[string]string{sweep.LabelCell: "c2"}},
	}
	if err := s.StartDeps(t.Context(), cfgs[0], time.Minute); err != nil {
		t.Fatal(err)
	}
	targets, err := s.StartTargets(t.Context(), cfgs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.target(t.Context()); err == nil {
		t.Error("the template is still there")
	}
	ids := make([]string, len(targets))
	for i, tg := range targets {
		if err := tg.WaitReady(t.Context(), time.Minute); err != nil {
			t.Fatal(err)
		}
		got, err := tg.ReadBack(t.Context())
		if err != nil || got.CPUs != cfgs[i].CPUs || got.Env["WEB_THREADS"] != cfgs[i].Env["WEB_THREADS"] {
			t.Errorf("target %d: read back %+v (%v), want %+v", i+1, got, err, cfgs[i])
		}
		ids[i] = got.ContainerID
		checkLabels(t, eng, got.ContainerID, map[string]string{sweep.LabelRun: runID, sweep.LabelCell: cfgs[i].Labels[sweep.LabelCell],
			sweep.LabelTarget: cfgs[i].Labels[sweep.LabelCell]})
		if c, err := eng.ContainerInspect(t.Context(), got.ContainerID); err != nil || c.Config.Labels[projectLabel] != "" {
			t.Errorf("target %d carries compose's project label (%v)", i+1, err)
		}
		resp, err := http.Get(tg.URL() + "/health")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("target %d at %s: %v", i+1, tg.URL(), err)
		} else {
			resp.Body.Close()
		}
		if tg.URL() == base {
			t.Errorf("target %d answers at the base URL's port", i+1)
		}
	}
	if targets[0].URL() == targets[1].URL() {
		t.Errorf("both targets at %s", targets[0].URL())
	}
	checkCopyWatch(t, eng, targets, ids)
	for i, tg := range targets {
		if err := tg.Down(t.Context()); err != nil {
			t.Error(err)
		}
		if _, err := eng.ContainerInspect(t.Context(), ids[i]); err == nil {
			t.Errorf("target %d still there after Down", i+1)
		}
	}
}

// checkCopyWatch kills the first target's process: its watch sees it,
// the second's does not.
func checkCopyWatch(t *testing.T, eng *client.Client, targets []sweep.Target, ids []string) {
	t.Helper()
	w1, err := targets[0].Watch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	w2, err := targets[1].Watch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.ContainerKill(t.Context(), ids[0], "KILL"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w1.Changed():
	case <-time.After(30 * time.Second):
		t.Error("the killed target's watch saw nothing in 30 s")
	}
	evs1, err1 := w1.Stop(t.Context())
	evs2, err2 := w2.Stop(t.Context())
	if err1 != nil || err2 != nil || len(evs1) == 0 || !evs1[0].Target || evs1[0].Service != "web" {
		t.Errorf("killed target's events %+v (%v), other's error %v", evs1, err1, err2)
	}
	if len(evs2) != 0 {
		t.Errorf("the other target's watch saw %+v", evs2)
	}
}
