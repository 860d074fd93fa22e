package k8sfixture

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSmoke runs smoke.sh against the running fixture: both nodes Ready,
// the demo stack from manifests/demo.yaml serving create/read/update/delete
// through its Service name from a pod on the other node, the 500m CPU limit
// in the app container's cgroup, a deleted pod replaced. A shell check for
// now; the client-go tests of the Kubernetes backend will take its place.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the smoke check takes 30-100 s")
	}
	s := up(t)
	if len(s.Nodes) < 2 {
		t.Skipf("the fixture has %d node; the smoke check needs 2 (K8S_NODES=2)", len(s.Nodes))
	}
	cmd := exec.Command("bash", "smoke.sh")
	cmd.Env = append(os.Environ(), "SWEEP_K8S_DIR="+s.Dir)
	out, err := cmd.CombinedOutput()
	t.Logf("smoke.sh:\n%s", out)
	if err != nil {
		t.Fatalf("smoke.sh: %v", err)
	}
}

// TestSecondUpRefused: `fixture.sh up` while the fixture is up changes
// nothing and says so. Needs root (the script takes the machine's lock).
func TestSecondUpRefused(t *testing.T) {
	s := up(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root, as fixture.sh does")
	}
	cmd := exec.Command("bash", "fixture.sh", "up")
	cmd.Env = append(os.Environ(), "SWEEP_K8S_DIR="+s.Dir, "K8S_NODES=2")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("second up: %v, want exit 1\n%s", err, out)
	}
	if !strings.Contains(string(out), "already up") {
		t.Errorf("second up said %q, want it to say the fixture is already up", out)
	}
	if _, err := Load(s.Dir); err != nil {
		t.Errorf("after the refused up: %v", err)
	}
}
