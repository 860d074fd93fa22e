package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Images runs compose/demo/images.sh of the repository at root for names
// (app, pg, orders, ...) with its .env written to a temporary file, and
// returns the image variables it printed (KEY=VALUE), to hand to a
// compose stack or a sweep process. A failed build fails the test.
func Images(t testing.TB, root string, names ...string) []string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "bash", append([]string{filepath.Join(root, "compose", "demo", "images.sh")}, names...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "SWEEP_IMAGES_ENV="+filepath.Join(t.TempDir(), ".env"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("images.sh %s: %v\n%s", strings.Join(names, " "), err, stderr.String())
	}
	return strings.Fields(string(out))
}
