package testenv

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
)

// GoImage builds the Go package pkg (a path such as ./testdata/burn,
// relative to the test's package directory) as a static linux binary and
// imports it with `docker import` as a one-file image whose CMD runs it as
// /<base name of pkg>. The image is tagged repo:<hash of the binary>, so a
// rerun with the same binary reuses it; nothing is pulled.
func GoImage(t testing.TB, cli *client.Client, repo, pkg string) string {
	t.Helper()
	name := filepath.Base(pkg)
	bin := filepath.Join(t.TempDir(), name)
	build := exec.CommandContext(t.Context(), "go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", bin, pkg)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	ref := repo + ":" + hex.EncodeToString(sum[:6])
	if _, err := cli.ImageInspect(t.Context(), ref); err == nil {
		return ref
	}
	rc, err := cli.ImageImport(t.Context(), image.ImportSource{Source: tarOf(t, name, data), SourceName: "-"}, ref,
		image.ImportOptions{Changes: []string{`CMD ["/` + name + `"]`}})
	if err != nil {
		t.Fatalf("import %s: %v", ref, err)
	}
	defer rc.Close()
	if _, err := io.Copy(io.Discard, rc); err != nil {
		t.Fatalf("import %s: %v", ref, err)
	}
	return ref
}

// tarOf is a tar stream holding one executable file.
func tarOf(t testing.TB, name string, data []byte) io.Reader {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{Name: name, Mode: 0o755, Size: int64(len(data)), ModTime: time.Unix(0, 0)}
	if err := tw.WriteHeader(hdr); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf
}

// StartContainer creates and starts a container from cfg and host, labelled
// sweep.run=<unique test id> (added to cfg.Labels), and force-removes it
// when the test ends. It returns the container's ID.
func StartContainer(t testing.TB, cli *client.Client, cfg *container.Config, host *container.HostConfig) string {
	t.Helper()
	if cfg.Labels == nil {
		cfg.Labels = map[string]string{}
	}
	cfg.Labels["sweep.run"] = fmt.Sprintf("test-%d-%d", os.Getpid(), time.Now().UnixNano())
	c, err := cli.ContainerCreate(t.Context(), cfg, host, nil, nil, "")
	if err != nil {
		t.Fatalf("create container from %s: %v", cfg.Image, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true}); err != nil {
			t.Errorf("remove container %s: %v", c.ID, err)
		}
	})
	if err := cli.ContainerStart(t.Context(), c.ID, container.StartOptions{}); err != nil {
		t.Fatalf("start container from %s: %v", cfg.Image, err)
	}
	return c.ID
}
