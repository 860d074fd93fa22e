package compose

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/sweep"
)

// writeStack writes a two-service compose file (target web with a
// healthcheck, and side) using img.
func writeStack(t testing.TB, img string) string { return writeStackWith(t, img, "") }

// writeStackWith is writeStack with web's further keys (indented as
// web's own).
func writeStackWith(t testing.TB, img, web string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "docker-compose.yml")
	doc := fmt.Sprintf(`version: "2.4"
services:
  web:
    image: %[1]s
    cpus: 0.25
    environment:
      WEB_THREADS: "0"
%[2]s    healthcheck:
      test: ["CMD", "/httpd", "-check"]
      interval: 200ms
      timeout: 2s
      retries: 50
  side:
    image: %[1]s
`, img, web)
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// composeCLI returns the compose CLI, or skips (fails under
// SWEEP_REQUIRE_DOCKER=1) when there is none.
func composeCLI(t testing.TB) CLI {
	t.Helper()
	c, err := DetectCLI(t.Context(), sweep.Env(os.Environ()))
	if err != nil {
		testenv.Absent(t, err.Error())
	}
	return c
}

func newRunID(t testing.TB) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "test" + hex.EncodeToString(b)
}
