package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgBin is where Debian's postgresql-15 package puts its server programs.
const pgBin = "/usr/lib/postgresql/15/bin"

// TestPGStore runs the store against a throwaway PostgreSQL cluster, once
// per query exec mode (the simple protocol is what PgBouncer needs).
func TestPGStore(t *testing.T) {
	base := startPostgres(t)
	modes := []string{"cache_statement", "simple_protocol"}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			dsn := base + "&default_query_exec_mode=" + mode
			st, err := openPG(t.Context(), dsn, 2, time.Second, 10*time.Second)
			if err != nil {
				t.Fatalf("openPG: %v", err)
			}
			defer st.Close()
			checkCRUD(t, st)
			if err := st.Ping(t.Context()); err != nil {
				t.Errorf("Ping: %v", err)
			}
		})
	}
	t.Run("acquire timeout", func(t *testing.T) { checkAcquireTimeout(t, base) })
	t.Run("demo reset.sql", func(t *testing.T) { checkResetSQL(t, base) })
}

// checkResetSQL runs the demo stack's reset script (compose/demo/reset.sql)
// against the schema this app creates and checks that it empties it.
func checkResetSQL(t *testing.T, dsn string) {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("..", "..", "compose", "demo", "reset.sql"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := openPG(t.Context(), dsn, 1, time.Second, 10*time.Second)
	if err != nil {
		t.Fatalf("openPG: %v", err)
	}
	defer st.Close()
	for _, typ := range resourceTypes {
		if err := st.Create(t.Context(), typ, newID(), []byte(`{}`)); err != nil {
			t.Fatalf("Create %s: %v", typ, err)
		}
	}
	if _, err := st.pool.Exec(t.Context(), string(script)); err != nil {
		t.Fatalf("reset.sql: %v", err)
	}
	for _, typ := range resourceTypes {
		var n int
		if err := st.pool.QueryRow(t.Context(), "SELECT count(*) FROM "+tableName(typ)).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s after reset: %d rows, %v", typ, n, err)
		}
	}
}

func checkCRUD(t *testing.T, st *pgStore) {
	t.Helper()
	ctx := t.Context()
	for _, typ := range resourceTypes {
		id := newID()
		if err := st.Create(ctx, typ, id, []byte(`{"id":"`+id+`","n":1,"s":"it's \\ ok"}`)); err != nil {
			t.Fatalf("Create %s: %v", typ, err)
		}
		doc, err := st.Get(ctx, typ, id)
		if err != nil || !strings.Contains(string(doc), `"s": "it's \\ ok"`) {
			t.Fatalf("Get %s = %s, %v", typ, doc, err)
		}
		if err := st.Update(ctx, typ, id, []byte(`{"n":2}`)); err != nil {
			t.Fatalf("Update %s: %v", typ, err)
		}
		if err := st.Delete(ctx, typ, id); err != nil {
			t.Fatalf("Delete %s: %v", typ, err)
		}
		if _, err := st.Get(ctx, typ, id); !errors.Is(err, errNotFound) {
			t.Errorf("Get deleted %s: %v, want errNotFound", typ, err)
		}
		if err := st.Update(ctx, typ, id, []byte(`{}`)); !errors.Is(err, errNotFound) {
			t.Errorf("Update deleted %s: %v, want errNotFound", typ, err)
		}
		if err := st.Delete(ctx, typ, id); !errors.Is(err, errNotFound) {
			t.Errorf("Delete deleted %s: %v, want errNotFound", typ, err)
		}
	}
}

// checkAcquireTimeout fills a pool of one with the background hold and
// checks that a request then answers errBusy.
func checkAcquireTimeout(t *testing.T, dsn string) {
	t.Helper()
	st, err := openPG(t.Context(), dsn, 1, 100*time.Millisecond, 10*time.Second)
	if err != nil {
		t.Fatalf("openPG: %v", err)
	}
	defer st.Close()
	held := make(chan error, 1)
	go func() { held <- st.Hold(t.Context(), 1, 700*time.Millisecond) }()
	time.Sleep(200 * time.Millisecond)
	if _, err := st.Get(t.Context(), "Patient", "x"); !errors.Is(err, errBusy) {
		t.Errorf("Get during hold: %v, want errBusy", err)
	}
	if err := <-held; err != nil {
		t.Errorf("Hold: %v", err)
	}
	if _, err := st.Get(t.Context(), "Patient", "x"); !errors.Is(err, errNotFound) {
		t.Errorf("Get after hold: %v, want errNotFound", err)
	}
}

// startPostgres initdb's and starts a cluster on a free loopback port and
// returns its DSN. As root it runs the server as "nobody", because
// PostgreSQL refuses to run as root. It skips when the binaries are absent.
func startPostgres(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(pgBin, "postgres")); err != nil {
		t.Skipf("PostgreSQL 15 is not installed at %s (apt-get install postgresql-15): %v", pgBin, err)
	}
	dir, cred := clusterDir(t)
	port := freePort(t)
	initdb := exec.Command(filepath.Join(pgBin, "initdb"), "-D", dir, "-U", "sweep",
		"--auth=trust", "--locale=C", "--encoding=UTF8", "-N")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	srv := exec.Command(filepath.Join(pgBin, "postgres"), "-D", dir, "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off")
	srv.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	logFile, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Stdout, srv.Stderr = logFile, logFile
	if err := srv.Start(); err != nil {
		t.Fatalf("start postgres: %v", err)
	}
	t.Cleanup(func() {
		_ = srv.Process.Signal(os.Interrupt) // fast shutdown
		_ = srv.Wait()
		_ = logFile.Close()
	})
	dsn := fmt.Sprintf("postgres://sweep@127.0.0.1:%d/postgres?sslmode=disable", port)
	waitPostgres(t, dsn, filepath.Join(dir, "server.log"))
	return dsn
}

// clusterDir makes a data directory the server's user can own. t.TempDir
// is private to root, so as root the directory lives in os.TempDir and is
// handed to nobody.
func clusterDir(t *testing.T) (string, *syscall.Credential) {
	t.Helper()
	if os.Geteuid() != 0 {
		return t.TempDir(), nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("running as root and there is no user nobody to run PostgreSQL as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	dir, err := os.MkdirTemp("", "demoapp-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	return dir, &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func waitPostgres(t *testing.T, dsn, logPath string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, dsn)
		if err == nil {
			_ = conn.Close(ctx)
			return
		}
		if ctx.Err() != nil {
			log, _ := os.ReadFile(logPath)
			t.Fatalf("postgres did not answer: %v\n%s", err, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
