package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/sweep"
)

// TestOpenBoundsAPlatformThatDoesNotAnswer: an API server that answers
// the version (so the cluster is there) and then accepts every request
// and never answers (its nodes, for the CPU check) costs Open the call
// timeout, not the night: the error names the call and its bound, and
// nothing of the run is left behind.
func TestOpenBoundsAPlatformThatDoesNotAnswer(t *testing.T) {
	t.Parallel()
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"gitVersion":"v1.99.0"}`)
			return
		}
		select {
		case <-r.Context().Done():
		case <-quit:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) })
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	manifests := filepath.Join(dir, "stack.yaml")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: %q}}]\n"+
		"users: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n", srv.URL)
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\nspec:\n  selector: {matchLabels: {run: app}}\n" +
		"  template:\n    metadata: {labels: {run: app}}\n    spec: {containers: [{name: app, image: app}]}\n"
	if err := errors.Join(os.WriteFile(kubeconfig, []byte(cfg), 0o644), os.WriteFile(manifests, []byte(deploy), 0o644)); err != nil {
		t.Fatal(err)
	}
	spec := testSpec()
	spec.Compose, spec.Kubernetes, spec.Manifests, spec.URL, spec.LoadImage = nil, true, []string{manifests}, "http://app:8080", "sweep-drive"
	spec.Out, spec.CallTimeout = filepath.Join(dir, "run"), sweep.Duration(200*time.Millisecond)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // an unbounded Open ends here
	defer cancel()
	s, err := Open(ctx, spec, Options{Env: sweep.Env{"KUBECONFIG=" + kubeconfig}})
	if s != nil {
		_ = s.Close()
	}
	want := "open the stack of service app: no answer within 200ms (the run's call timeout)"
	if !errors.Is(err, sweep.ErrCallTimeout) || !strings.Contains(err.Error(), want) {
		t.Errorf("Open: %v; want %q", err, want)
	}
	if _, err := os.Stat(spec.Out); !os.IsNotExist(err) {
		t.Errorf("Open left %s behind (%v)", spec.Out, err)
	}
}
