package compose

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/sweep"
)

// TestNewRefusesAnImageThatCannotBePulled: the demo run before make
// demo-images tried and failed every cell on "compose up … Pulling … no
// such host". An image the engine lacks and cannot pull is bad input
// from New, naming the image and its service, before anything starts;
// an image compose builds (build:) is compose's to make and not refused.
// The missing image is on a loopback registry nobody runs, so the pull
// fails at once and goes nowhere else.
func TestNewRefusesAnImageThatCannotBePulled(t *testing.T) {
	eng := testenv.Docker(t)
	cli := composeCLI(t)
	img := testenv.GoImage(t, eng, "sweep-compose-test", "./testdata/httpd")
	dir := t.TempDir()
	file := filepath.Join(dir, "docker-compose.yml")
	doc := `services:
  web:
    image: ` + img + `
  side:
    image: 127.0.0.1:1/sweep-never-built:missing
  built:
    image: sweep-built-by-compose:never
    build: {context: .}
`
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	runID := newRunID(t)
	start := time.Now()
	_, err := New(t.Context(), Options{StackOptions: sweep.StackOptions{Files: []string{file}, Service: "web", RunID: runID}, Engine: eng, CLI: cli})
	if !errors.Is(err, sweep.ErrBadInput) {
		t.Fatalf("New = %v, want bad input", err)
	}
	t.Logf("refused in %v: %v", time.Since(start).Round(time.Millisecond), err)
	for _, want := range []string{"{compose}", "127.0.0.1:1/sweep-never-built:missing (service side)", "cannot be pulled", "make demo-images"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "sweep-built-by-compose") {
		t.Errorf("error %q names the image compose builds", err)
	}
	if d := time.Since(start); d > 2*time.Minute {
		t.Errorf("New took %v to refuse", d)
	}
	// nothing started: no container, network or volume of the run
	cleaned, err := Cleanup(t.Context(), eng, runID)
	if err != nil || len(cleaned.Containers)+len(cleaned.Networks)+len(cleaned.Volumes) > 0 {
		t.Errorf("after the refusal Cleanup found %+v (%v); want nothing made", cleaned, err)
	}
}
