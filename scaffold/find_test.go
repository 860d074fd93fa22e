package scaffold

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/sweep"
)

// composeText reads a compose file of the given text as compose does.
func composeText(t *testing.T, text string) compose.Base {
	t.Helper()
	path := filepath.Join(t.TempDir(), "docker-compose.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := compose.ReadBase([]string{path}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNoPostgres: a stack without a PostgreSQL service is bad input of
// the compose files, naming them and what init looked for.
func TestNoPostgres(t *testing.T) {
	t.Parallel()
	b := composeText(t, `services:
  web:
    image: shop:1
    ports: ["8080:8080"]
    environment: {REDIS_URL: "redis://cache:6379", WORKERS: "4"}
    depends_on: [cache]
  cache:
    image: redis:7
`)
	_, err := Compose(b, Options{Source: "shop/compose.yaml"})
	var bad *sweep.BadInputError
	if !errors.As(err, &bad) || bad.Field != "compose" {
		t.Fatalf("err %v, want bad input of compose", err)
	}
	for _, want := range []string{"shop/compose.yaml", "no PostgreSQL service", "postgres*", "POSTGRES_USER"} {
		if !strings.Contains(bad.Msg, want) {
			t.Errorf("%q does not say %q", bad.Msg, want)
		}
	}
}

// TestNoTarget: PostgreSQL alone, or with services that reach it but
// publish no HTTP port, has no target.
func TestNoTarget(t *testing.T) {
	t.Parallel()
	b := composeText(t, `services:
  db: {image: "postgres:16", ports: ["5432:5432"]}
  worker: {image: "jobs:1", depends_on: [db]}
  bouncer: {image: "edoburu/pgbouncer:1", ports: ["6432:6432"], depends_on: [db]}
`)
	_, err := Compose(b, Options{Source: "compose.yaml"})
	var bad *sweep.BadInputError
	if !errors.As(err, &bad) || bad.Field != "compose" || !strings.Contains(bad.Msg, "no service publishes an HTTP port") {
		t.Errorf("err %v, want bad input of compose saying no service publishes an HTTP port", err)
	}
}

// shop is a stack of two web services reaching PostgreSQL, one by a DSN
// alone and through a pooler, with no CPU limit, no healthcheck and a
// password init must not write.
const shop = `services:
  pg:
    image: registry.example.com/base/postgresql:16.2
    environment: {POSTGRES_USER: shop, POSTGRES_PASSWORD: "s3cret-pw", POSTGRES_DB: orders}
    ports: ["127.0.0.1:25432:5432"]
  pool:
    image: bitnami/pgbouncer:1
    environment: {PGBOUNCER_DATABASE: orders, POSTGRESQL_HOST: pg, PGBOUNCER_DEFAULT_POOL_SIZE: "20", PGBOUNCER_MAX_CLIENT_CONN: "500"}
  admin:
    image: shop-admin:1
    ports: ["9000:80"]
    depends_on: [pg]
  api:
    image: shop-api:1
    ports: ["9090:9090", "8000:8000"]
    environment:
      DATABASE_URL: "postgres://shop:s3cret-pw@pool:6432/orders"
      PUMA_THREADS: "5"
      WEB_CONCURRENCY: "2"
      DB_POOL_TIMEOUT: "5"
`

// TestShop: init picks the service with knobs over another one (and of
// its knobs the one whose name says web), follows
// a DSN through a pooler to the database, takes the pool from the
// pooler, and marks what it cannot guess as TODO lines; the password
// is in neither the file nor the notes.
func TestShop(t *testing.T) {
	t.Parallel()
	res, err := Compose(composeText(t, shop), opts())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Setting{}
	for _, s := range res.Settings {
		got[s.Key] = s
	}
	for key, want := range map[string]any{"service": "api", "url": "http://127.0.0.1:8000", "web-env": "WEB_CONCURRENCY",
		"pool-env": "pool:PGBOUNCER_DEFAULT_POOL_SIZE", "baseline": "web=2,pool=20"} {
		if got[key].Value != want || got[key].Todo {
			t.Errorf("%s: %+v, want %v", key, got[key], want)
		}
	}
	for _, want := range []string{"Could be too: admin", "through pool", "Others that look alike: PUMA_THREADS"} {
		if !strings.Contains(got["service"].Why+got["web-env"].Why, want) {
			t.Errorf("the whys do not say %q: %q, %q", want, got["service"].Why, got["web-env"].Why)
		}
	}
	for _, key := range []string{"ready-path", "cpus"} {
		if !got[key].Todo {
			t.Errorf("%s is no TODO: %+v", key, got[key])
		}
	}
	var notes bytes.Buffer
	if err := res.WriteNotes(&notes, "sweep.yaml"); err != nil {
		t.Fatal(err)
	}
	for _, out := range [][]byte{res.Config, notes.Bytes()} {
		if bytes.Contains(out, []byte("s3cret-pw")) {
			t.Errorf("the password is written:\n%s", out)
		}
	}
	if !bytes.Contains(res.Config, []byte("export SWEEP_DB_DSN='postgres://shop:PASSWORD@127.0.0.1:25432/orders?sslmode=disable'")) {
		t.Errorf("no DSN for SWEEP_DB_DSN in\n%s", res.Config)
	}
	todos := TODOs("sweep.yaml", res.Config)
	if len(todos) != 2 || !strings.HasPrefix(todos[0], "sweep.yaml:") || !strings.Contains(todos[0], "TODO: ready-path:") {
		t.Errorf("TODOs %q, want the ready path's and the CPU budget's", todos)
	}
}

// TestTODOs: each TODO comment is named with its file and line, one
// after a value too; a file without one passes CheckTODOs.
func TestTODOs(t *testing.T) {
	t.Parallel()
	data := []byte("# head\ncpus: [1]\n# TODO: web-env: name it\n#   more words\nurl: http://x  # TODO: the port\n")
	got := TODOs("s.yaml", data)
	want := []string{"s.yaml:3: TODO: web-env: name it", "s.yaml:5: TODO: the port"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("TODOs = %q, want %q", got, want)
	}
	err := CheckTODOs("config", "s.yaml", data)
	var bad *sweep.BadInputError
	if !errors.As(err, &bad) || bad.Field != "config" || !strings.Contains(bad.Msg, want[0]) || !strings.Contains(bad.Msg, want[1]) {
		t.Errorf("CheckTODOs: %v, want bad input of config naming both", err)
	}
	if err := CheckTODOs("config", "s.yaml", []byte("cpus: [1]\n# done\n")); err != nil {
		t.Errorf("no TODO: %v", err)
	}
}

// TestManifestsTargetIsADeployment: on Kubernetes the target is a
// Deployment; a StatefulSet serving HTTP is none.
func TestManifestsTargetIsADeployment(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "stack.yaml")
	text := `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pg}
spec:
  selector: {matchLabels: {app: pg}}
  template:
    metadata: {labels: {app: pg}}
    spec: {containers: [{name: pg, image: "postgres:16", env: [{name: POSTGRES_PASSWORD, value: x}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: pg}
spec: {selector: {app: pg}, ports: [{port: 5432}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "web:1", env: [{name: DATABASE_URL, value: "postgres://u@pg/x"}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80, targetPort: 8080}]}
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, err := kube.ReadManifests([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Manifests(objs, Options{Source: "stack.yaml"})
	var bad *sweep.BadInputError
	if !errors.As(err, &bad) || bad.Field != "manifests" || !strings.Contains(bad.Msg, "no Deployment has a Service") {
		t.Errorf("err %v, want bad input of manifests saying no Deployment has a Service", err)
	}
}
