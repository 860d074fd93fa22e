package swarm

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/sweep"
)

// TestProbeURLSaysTheMeshDoesNotAnswer: --url at a port the target
// publishes through the routing mesh, where nothing answers, gets the
// mesh's hint (the DSN had it, the URL did not); the same silence at a
// port published in mode host, or any answer at a mesh port, does not.
func TestProbeURLSaysTheMeshDoesNotAnswer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close() // refused from now on
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(404) }))
	t.Cleanup(srv.Close)
	open := srv.Listener.Addr().(*net.TCPAddr).Port
	file := filepath.Join(t.TempDir(), "compose.yaml")
	doc := fmt.Sprintf(`services:
  app:
    image: app
    ports: ["%d:8080", "%d:8081", {target: 9000, published: "%d", mode: host}]
`, closed, open, closed+1)
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := compose.ReadBase([]string{file}, "p", sweep.Env(nil))
	if err != nil {
		t.Fatal(err)
	}
	s := &Stack{base: base}

	err = s.ProbeURL(t.Context(), fmt.Sprintf("http://127.0.0.1:%d/api", closed))
	var pe *sweep.ProbeError
	if !errors.As(err, &pe) {
		t.Fatalf("ProbeURL at a silent mesh port = %v, want a *sweep.ProbeError", err)
	}
	for _, want := range []string{"connection refused", fmt.Sprintf("service app publishes port %d", closed), "routing mesh", "mode: host", "{url}"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if err := s.ProbeURL(t.Context(), fmt.Sprintf("http://127.0.0.1:%d/", open)); err != nil {
		t.Errorf("ProbeURL at a mesh port that answers (404) = %v, want nil", err)
	}
	err = s.ProbeURL(t.Context(), fmt.Sprintf("http://127.0.0.1:%d/", closed+1))
	if !errors.As(err, &pe) || strings.Contains(err.Error(), "mesh") {
		t.Errorf("ProbeURL at a silent host-mode port = %v, want a probe error without the mesh's hint", err)
	}
}

func TestURLPort(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]uint16{"http://h:18080/x": 18080, "http://h/": 80, "https://h": 443, "h:1": 0, "http://h:99999": 0} {
		got, _ := urlPort(in)
		if got != want {
			t.Errorf("urlPort(%q) = %d, want %d", in, got, want)
		}
	}
}
