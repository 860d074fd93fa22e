package compose

import (
	"archive/tar"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
)

// testImage builds testdata/httpd as a static binary and imports it as a
// one-file image tagged by the binary's hash, reusing an existing one.
func testImage(t testing.TB, cli *client.Client) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "httpd")
	build := exec.CommandContext(t.Context(), "go", "build", "-trimpath", "-buildvcs=false", "-o", bin, "./testdata/httpd")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build test server: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	ref := "sweep-compose-test:" + hex.EncodeToString(sum[:6])
	if _, err := cli.ImageInspect(t.Context(), ref); err == nil {
		return ref
	}
	var tarball bytes.Buffer
	tw := tar.NewWriter(&tarball)
	hdr := &tar.Header{Name: "httpd", Mode: 0o755, Size: int64(len(data)), ModTime: time.Unix(0, 0)}
	if err := tw.WriteHeader(hdr); err != nil {
		t.Fatal(err)
	}
	_, _ = tw.Write(data)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	rc, err := cli.ImageImport(t.Context(), image.ImportSource{Source: &tarball, SourceName: "-"}, ref,
		image.ImportOptions{Changes: []string{`CMD ["/httpd"]`}})
	if err != nil {
		t.Fatalf("import test image: %v", err)
	}
	defer rc.Close()
	_, _ = io.Copy(io.Discard, rc)
	return ref
}

// writeStack writes a two-service compose file (target web with a
// healthcheck, and side) using img.
func writeStack(t testing.TB, img string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "docker-compose.yml")
	doc := fmt.Sprintf(`version: "2.4"
services:
  web:
    image: %[1]s
    cpus: 0.25
    environment:
      WEB_THREADS: "0"
    healthcheck:
      test: ["CMD", "/httpd", "-check"]
      interval: 200ms
      timeout: 2s
      retries: 50
  side:
    image: %[1]s
`, img)
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// composeCLI returns the compose CLI, or skips (fails under
// SWEEP_REQUIRE_DOCKER=1) when there is none.
func composeCLI(t testing.TB) CLI {
	t.Helper()
	c, err := DetectCLI(t.Context())
	if err != nil {
		if os.Getenv("SWEEP_REQUIRE_DOCKER") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return c
}

func newRunID(t testing.TB) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "test" + hex.EncodeToString(b)
}
