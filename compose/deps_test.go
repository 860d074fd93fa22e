package compose

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/sweep"
)

func TestDeps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{"compose.yaml": `services:
  db: {image: pg}
  pgbouncer: {image: pb, depends_on: [db]}
  app:
    image: app
    depends_on:
      pgbouncer: {condition: service_started}
  nginx: {image: ng, depends_on: [app]}
  stats: {image: st, depends_on: [nginx]}
  cron: {image: c}
`, "more.yaml": `services:
  app: {depends_on: [db]}
`}
	var paths []string
	for _, name := range []string{"compose.yaml", "more.yaml"} {
		paths = append(paths, filepath.Join(dir, name))
		if err := os.WriteFile(paths[len(paths)-1], []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base, err := ReadBase(paths, "sweepr1", sweep.Env(os.Environ()))
	if err != nil {
		t.Fatal(err)
	}
	if got := base.DependsOn["app"]; !slices.Equal(got, []string{"db", "pgbouncer"}) {
		t.Errorf("app depends on %v, want db and pgbouncer from both files", got)
	}
	if got := base.Deps("app"); !slices.Equal(got, []string{"cron", "db", "pgbouncer"}) {
		t.Errorf("Deps(app) = %v, want every service but app and those that come after it", got)
	}
	if got := base.Deps("db"); len(got) != 1 || got[0] != "cron" {
		t.Errorf("Deps(db) = %v, want only cron", got)
	}
}

func TestDepsReady(t *testing.T) {
	t.Parallel()
	db := func(status container.ContainerState, health container.HealthStatus) cstate {
		return cstate{service: "db", status: status, running: status == container.StateRunning, health: health}
	}
	migrate := cstate{service: "migrate", status: container.StateExited}
	for _, tc := range []struct {
		name    string
		db      cstate
		waiting string
		err     error
	}{
		{"healthy", db(container.StateRunning, container.Healthy), "", nil},
		{"running without a healthcheck", db(container.StateRunning, ""), "", nil},
		{"health starting", db(container.StateRunning, container.Starting), "db (status running, health starting)", nil},
		{"restarting", db(container.StateRestarting, ""), "db (status restarting)", nil},
		{"exited with an error", func() cstate { c := db(container.StateExited, ""); c.exitCode = 1; return c }(), "", ErrDependencyExited},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			waiting, err := depsReady(states{"d": tc.db, "m": migrate}, []string{"db", "migrate"})
			if got := strings.Join(waiting, "; "); got != tc.waiting || !errors.Is(err, tc.err) {
				t.Errorf("depsReady = %q, %v; want %q, %v", got, err, tc.waiting, tc.err)
			}
		})
	}
	if waiting, err := depsReady(states{"m": migrate}, []string{"db"}); err != nil || len(waiting) != 1 ||
		waiting[0] != "db (no container)" {
		t.Errorf("no container of db: %q, %v", waiting, err)
	}
}
