package metrics

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
)

// TestReceptionOnEngine reads the reception of real HTTP load by a real
// container in the host's network, from the owner of the listening
// socket. (The network counters behind a published port are checked on
// the demo stack by cmd/sweep's end-to-end tests.)
func TestReceptionOnEngine(t *testing.T) {
	cli := testenv.Docker(t)
	ref := testenv.GoImage(t, cli, "sweep-metrics-echo", "./testdata/echo")
	t.Run("host network", func(t *testing.T) {
		id, url := hostNetworkEcho(t, cli, ref)
		rx := StartReception(t.Context(), cli, id, url)
		load(t, url, 200)
		d := rx.Stop(t.Context())
		t.Logf("%+v", *d)
		if d.Method != results.DeliveryHostSocket || !d.ListenerIsTarget || len(d.Listeners) != 1 ||
			!strings.HasSuffix(d.Listeners[0], " echo (target)") || d.TargetCPUS <= 0 {
			t.Errorf("delivery %+v, want the echo process of the target holding the socket, and its CPU time", *d)
		}
	})
	// In a network of its own, the counters of the target's namespace are
	// read from this machine's /proc at once (the engine's one-shot stats
	// come at its next collection): they must count what the load sent,
	// and no more than the engine's counters over a wider window.
	t.Run("own network, from /proc", func(t *testing.T) {
		id, url := bridgeEcho(t, cli, ref)
		wide, err := readOnce(t.Context(), cli, id)
		if err != nil {
			t.Fatal(err)
		}
		rx := StartReception(t.Context(), cli, id, url)
		load(t, url, 200)
		d := rx.Stop(t.Context())
		wideEnd, err := readOnce(t.Context(), cli, id)
		if err != nil {
			t.Fatal(err)
		}
		engine := int64(wideEnd.rxBytes - wide.rxBytes)
		t.Logf("%+v; the engine's counters over a wider window: %d bytes", *d, engine)
		if rx.begin.pid == 0 {
			t.Errorf("the reading before the phase came from the engine, not from /proc (sweep runs on the engine's host here)")
		}
		if d.Method != results.DeliveryNetwork || d.ReceivedBytes < 200*1024 || d.ReceivedPackets < 200 {
			t.Errorf("delivery %+v, want the network counters with at least the 200 KiB the load posted", *d)
		}
		if d.ReceivedBytes > engine {
			t.Errorf("/proc counted %d bytes inside the phase, the engine %d over a window around it", d.ReceivedBytes, engine)
		}
	})
	t.Run("host network, load elsewhere", func(t *testing.T) {
		id, _ := hostNetworkEcho(t, cli, ref)
		elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
		defer elsewhere.Close()
		rx := StartReception(t.Context(), cli, id, elsewhere.URL)
		load(t, elsewhere.URL, 50)
		d := rx.Stop(t.Context())
		t.Logf("%+v", *d)
		self := fmt.Sprintf("pid %d ", os.Getpid())
		if d.Method != results.DeliveryHostSocket || d.ListenerIsTarget || len(d.Listeners) != 1 || !strings.HasPrefix(d.Listeners[0], self) {
			t.Errorf("delivery %+v, want the socket held by this test (%s…) and not by the target", *d, self)
		}
	})
}

// bridgeEcho starts the echo program in the engine's default bridge
// network and returns the container and its URL (its address on the
// bridge, reachable from the engine's host) once it answers.
func bridgeEcho(t *testing.T, cli *client.Client, ref string) (id, url string) {
	t.Helper()
	id = testenv.StartContainer(t, cli, &container.Config{Image: ref}, &container.HostConfig{})
	c, err := cli.ContainerInspect(t.Context(), id)
	if err != nil || c.NetworkSettings == nil || c.NetworkSettings.IPAddress == "" {
		t.Fatalf("inspect the echo container: %v (no address on the bridge)", err)
	}
	url = "http://" + c.NetworkSettings.IPAddress + ":8080"
	waitAnswers(t, url)
	return id, url
}

// hostNetworkEcho starts the echo program in the host's network on a
// free port and returns the container and its URL once it answers.
func hostNetworkEcho(t *testing.T, cli *client.Client, ref string) (id, url string) {
	t.Helper()
	port := testenv.FreePort(t)
	id = testenv.StartContainer(t, cli, &container.Config{Image: ref, Env: []string{fmt.Sprintf("PORT=%d", port)}},
		&container.HostConfig{NetworkMode: "host"})
	url = fmt.Sprintf("http://127.0.0.1:%d", port)
	waitAnswers(t, url)
	return id, url
}

// waitAnswers polls url until it answers, for up to half a minute.
func waitAnswers(t *testing.T, url string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not answer: %v", url, err)
		}
	}
}

// load sends n POSTs of 1 KiB to url over one connection.
func load(t *testing.T, url string, n int) {
	t.Helper()
	body := strings.Repeat("x", 1024)
	for range n {
		resp, err := http.Post(url, "text/plain", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
