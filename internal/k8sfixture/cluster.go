package k8sfixture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/sweep"
)

// Fixture is the running Kubernetes fixture (make k8s-up) with a client
// connected to it, for tests.
type Fixture struct {
	State
	Client *kube.Client
	// Env names the fixture's kubeconfig (KUBECONFIG=...), as a front end
	// would hand it to a backend.
	Env sweep.Env
}

// Up returns the Kubernetes fixture with a client, or skips the test
// with the reason (fails instead when SWEEP_REQUIRE_K8S=1, as CI sets
// it; -short skips it too).
func Up(t testing.TB) *Fixture {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the Kubernetes fixture's tests take minutes")
	}
	st := up(t)
	env := sweep.Env{"KUBECONFIG=" + st.Kubeconfig}
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	c, err := kube.Connect(ctx, env, "")
	if err != nil {
		absent(t, "the Kubernetes fixture does not answer: "+err.Error())
	}
	return &Fixture{State: st, Client: c, Env: env}
}

// Manifests writes the fixture's manifests (internal/k8sfixture/manifests,
// by name) into a temporary directory with the demo's images in place of
// @PG_IMAGE@, @APP_IMAGE@ and @PROBE_IMAGE@, and returns the file.
func (fx *Fixture) Manifests(t testing.TB, repo string, names ...string) string {
	t.Helper()
	path, err := fx.WriteManifests(repo, t.TempDir(), names...)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// WriteManifests is Manifests into dir, for programs (benches).
func (st State) WriteManifests(repo, dir string, names ...string) (string, error) {
	env, err := readEnv(repo + "/compose/demo/.env")
	if err != nil {
		return "", err
	}
	var all []byte
	for _, n := range names {
		b, err := os.ReadFile(repo + "/internal/k8sfixture/manifests/" + n)
		if err != nil {
			return "", err
		}
		all = append(append(all, b...), "\n---\n"...)
	}
	s := strings.NewReplacer("@PG_IMAGE@", env["SWEEP_DEMO_PG_IMAGE"], "@APP_IMAGE@", env["SWEEP_DEMO_APP_IMAGE"],
		"@PROBE_IMAGE@", st.ProbeImage).Replace(string(all))
	path := dir + "/manifests.yaml"
	return path, os.WriteFile(path, []byte(s), 0o644)
}

// DriveImage is the demo's sweep-drive image (compose/demo/.env), loaded
// into every node (fixture.sh load): k8s-up loaded the one of its time,
// and a test run since may have rebuilt it from a changed tree.
func (fx *Fixture) DriveImage(t testing.TB, repo string) string {
	t.Helper()
	img, err := DemoImage(repo, "SWEEP_DEMO_DRIVE_IMAGE")
	if err != nil {
		t.Fatal(err)
	}
	if err := fx.LoadImages(repo, img); err != nil {
		t.Fatal(err)
	}
	return img
}

// DemoImage is the demo's image the variable names in compose/demo/.env
// (SWEEP_DEMO_APP_IMAGE, SWEEP_DEMO_PG_IMAGE, SWEEP_DEMO_DRIVE_IMAGE).
func DemoImage(repo, name string) (string, error) {
	env, err := readEnv(repo + "/compose/demo/.env")
	if err != nil {
		return "", err
	}
	if env[name] == "" {
		return "", fmt.Errorf("no %s in compose/demo/.env: make demo-images", name)
	}
	return env[name], nil
}

// LoadImages loads local Docker images into every node (fixture.sh load,
// as make k8s-load does).
func (st State) LoadImages(repo string, images ...string) error {
	load := exec.Command("bash", append([]string{repo + "/internal/k8sfixture/fixture.sh", "load"}, images...)...)
	load.Env = append(os.Environ(), "SWEEP_K8S_DIR="+st.Dir)
	if out, err := load.CombinedOutput(); err != nil {
		return fmt.Errorf("load %s into the fixture's nodes: %w\n%s", strings.Join(images, " "), err, out)
	}
	return nil
}

// readEnv reads the demo's image variables (compose/demo/.env).
func readEnv(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: make demo-images writes it", err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m, nil
}

// up returns the fixture's state, or skips (fails) the test.
func up(t testing.TB) State {
	t.Helper()
	s, err := Load(Dir())
	if errors.Is(err, ErrNotUp) {
		absent(t, err.Error()+": make k8s-up starts it")
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// absent skips the test with reason, or fails it when SWEEP_REQUIRE_K8S=1.
func absent(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv("SWEEP_REQUIRE_K8S") == "1" {
		t.Fatal("SWEEP_REQUIRE_K8S=1 but " + reason)
	}
	t.Skip(reason + " (SWEEP_REQUIRE_K8S=1 fails instead)")
}
