package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/sweep"
)

// repoFile is a file of the repository, from this package's folder.
func repoFile(parts ...string) string { return filepath.Join(append([]string{".."}, parts...)...) }

// readCompose reads a compose file of the repository as compose does,
// from a copy in a folder of its own, so that no .env beside the
// original (compose/demo/images.sh writes one) changes what it says.
func readCompose(t *testing.T, path string) compose.Base {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return composeText(t, string(data))
}

func opts() Options {
	return Options{Source: "docker-compose.yaml", Files: []string{"docker-compose.yaml"}, Config: "sweep.yaml", Scenario: "scenario.yaml"}
}

// TestComposeGolden holds what init writes for the demo's and the
// examples' stacks to testdata (go test -update rewrites it), and
// parses each scenario as the built-in driver does.
func TestComposeGolden(t *testing.T) {
	t.Parallel()
	for name, path := range map[string]string{
		"demo": repoFile("compose", "demo", "docker-compose.yaml"),
		"node": repoFile("examples", "node", "docker-compose.yaml"),
		"php":  repoFile("examples", "php", "docker-compose.yaml"),
		"jvm":  repoFile("examples", "jvm", "docker-compose.yaml"),
		// knobs of names of its own: ORDERS_WORKERS, ORDERS_DB_POOL
		"orders-example": repoFile("examples", "orders", "docker-compose.yaml"),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res, err := Compose(readCompose(t, path), opts())
			if err != nil {
				t.Fatal(err)
			}
			testenv.Golden(t, filepath.Join("testdata", name+".sweep.yaml"), res.Config)
			if name == "demo" { // the others' skeleton is the same: one GET of /health
				testenv.Golden(t, filepath.Join("testdata", "skeleton.scenario.yaml"), res.Scenario)
			}
			if _, err := scenario.Parse("scenario.yaml", res.Scenario); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestHARScenario: a recording of an API unlike the demo's (orders with
// integer ids, payments with UUIDs) becomes a scenario whose later steps
// take the ids from earlier responses.
func TestHARScenario(t *testing.T) {
	t.Parallel()
	har, err := os.ReadFile(filepath.Join("testdata", "orders.har"))
	if err != nil {
		t.Fatal(err)
	}
	o := opts()
	o.HAR, o.HARFile = har, "orders.har"
	res, err := Compose(readCompose(t, repoFile("compose", "demo", "docker-compose.yaml")), o)
	if err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, filepath.Join("testdata", "orders.scenario.yaml"), res.Scenario)
	if _, err := scenario.Parse("scenario.yaml", res.Scenario); err != nil {
		t.Error(err)
	}
}

// TestManifestsGolden: the demo's Kubernetes manifests, a directory of
// them, give the Deployment app at its Service, the knobs and ready
// path of its pod and a TODO for the load's image.
func TestManifestsGolden(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(repoFile("internal", "k8sfixture", "manifests", "demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "k8s")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "demo.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	objs, err := kube.ReadManifests([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Manifests(objs, Options{Source: "k8s", Files: []string{"k8s"}, Config: "sweep.yaml", Scenario: "scenario.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, filepath.Join("testdata", "kube.sweep.yaml"), res.Config)
	if todos := TODOs("sweep.yaml", res.Config); len(todos) != 1 || !strings.Contains(todos[0], "load-image") {
		t.Errorf("TODOs %q, want the load image's alone", todos)
	}
}

// TestHARRefused: what is no HAR file, or records nothing the scenario
// can send, is bad input of the recording.
func TestHARRefused(t *testing.T) {
	t.Parallel()
	b := readCompose(t, repoFile("compose", "demo", "docker-compose.yaml"))
	for _, har := range []string{"<html>", `{"log": {"entries": []}}`,
		`{"log": {"entries": [{"request": {"method": "OPTIONS", "url": "http://127.0.0.1:18080/x"}, "response": {"status": 204}}]}}`} {
		o := opts()
		o.HAR, o.HARFile = []byte(har), "rec.har"
		_, err := Compose(b, o)
		var bad *sweep.BadInputError
		if !errors.As(err, &bad) || bad.Field != "har" || !strings.Contains(bad.Msg, "rec.har") {
			t.Errorf("%s: %v, want bad input of har naming rec.har", har, err)
		}
	}
}

// TestHAROtherHost: a recording of the app at another address (the
// production host) gives the steps of the host it asks most, said so.
func TestHAROtherHost(t *testing.T) {
	t.Parallel()
	har := `{"log": {"entries": [
 {"request": {"method": "GET", "url": "https://cdn.example.com/app.js"}, "response": {"status": 200}},
 {"request": {"method": "GET", "url": "https://shop.example.com/api/items?page=2"}, "response": {"status": 200}},
 {"request": {"method": "POST", "url": "https://shop.example.com/api/cart", "postData": {"mimeType": "text/plain", "text": "item=3"}},
  "response": {"status": 303}}]}}`
	o := opts()
	o.HAR, o.HARFile = []byte(har), "prod.har"
	res, err := Compose(readCompose(t, repoFile("compose", "demo", "docker-compose.yaml")), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the host it asked most", "url: /api/items?page=2", "body: item=3", "expect: 303", "cdn.example.com"} {
		if !strings.Contains(string(res.Scenario), want) {
			t.Errorf("the scenario does not say %q:\n%s", want, res.Scenario)
		}
	}
}
