package session

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/metrics"
)

// TestMeshPorts: the ports published in mode ingress, each by its
// service, healthy when the service starts before the target and has a
// healthcheck; a host-mode port is none.
func TestMeshPorts(t *testing.T) {
	t.Parallel()
	base, err := compose.ReadBase([]string{filepath.Join("testdata", "mesh-compose.yaml")}, "sweepr1", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := meshPorts([]compose.Base{base}, "app")
	want := map[uint16]meshPort{15432: {"db", true}, 16432: {"bouncer", false}, 18080: {"app", false}}
	if len(got) != len(want) {
		t.Fatalf("meshPorts = %v, want %v", got, want)
	}
	for port, m := range want {
		if got[port] != m {
			t.Errorf("port %d: %+v, want %+v", port, got[port], m)
		}
	}
}

// TestMeshDSNError: at a mesh port of a healthy service the wait is
// meshWait and a silence says the mesh does not answer and how to publish;
// a server's refusal there, and any error at another port, keep the
// DSN's own words.
func TestMeshDSNError(t *testing.T) {
	t.Parallel()
	x := &samplers{wait: 2 * time.Minute, notify: func(Event) {},
		mesh: map[uint16]meshPort{15432: {"db", true}, 16432: {"bouncer", false}}}
	const mesh, other = "postgres://u:p@10.0.0.3:15432/db", "postgres://u:p@10.0.0.3:5432/db"
	if w := x.waitFor("the database", mesh).For; w != meshWait {
		t.Errorf("wait at a healthy service's mesh port: %s, want %s", w, meshWait)
	}
	for _, dsn := range []string{other, "postgres://u:p@10.0.0.3:16432/db"} {
		if w := x.waitFor("the database", dsn).For; w != 2*time.Minute {
			t.Errorf("wait at %s: %s, want the ready timeout", dsn, w)
		}
	}
	silent := &metrics.ConnectError{What: "db", Host: "10.0.0.3:15432", Wait: meshWait, Err: syscall.ECONNREFUSED}
	msg := x.connectError("db_dsn", "SWEEP_DB_DSN", mesh, silent).Error()
	for _, want := range []string{"{db_dsn}: db at 10.0.0.3:15432 did not answer", "service db is healthy", "routing mesh",
		"mode: host", "docker-compose.swarm.yaml", "{compose}"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the mesh's error lacks %q: %s", want, msg)
		}
	}
	if !errors.Is(x.connectError("db_dsn", "SWEEP_DB_DSN", mesh, silent), syscall.ECONNREFUSED) {
		t.Error("the mesh's error does not wrap the connection's")
	}
	refused := &metrics.ConnectError{What: "db", Host: "10.0.0.3:15432", Refused: true, Err: errors.New("password authentication failed")}
	for _, tc := range []struct {
		dsn string
		err error
	}{{mesh, refused}, {other, silent}} {
		if msg := x.connectError("db_dsn", "SWEEP_DB_DSN", tc.dsn, tc.err).Error(); strings.Contains(msg, "mesh") ||
			!strings.HasSuffix(msg, "; check the DSN (or SWEEP_DB_DSN)") {
			t.Errorf("%s, %v: %s; want the DSN's own error", tc.dsn, tc.err, msg)
		}
	}
}
