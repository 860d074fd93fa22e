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
