package compose

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sweep-tool/sweep/sweep"
)

// TestReplicas: the base's replica count of each service, from scale or
// deploy.replicas, 1 when neither is set.
func TestReplicas(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "compose.yaml")
	yaml := `services:
  app: {image: app, deploy: {replicas: 3}}
  worker: {image: w, scale: 2}
  db: {image: pg}
`
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := ReadBase([]string{path}, "sweepr1", sweep.Env(os.Environ()))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"app": 3, "worker": 2, "db": 1, "unknown": 1}
	for svc, n := range want {
		if got := base.Replicas(svc); got != n {
			t.Errorf("%s: %d replicas, want %d", svc, got, n)
		}
	}
}
