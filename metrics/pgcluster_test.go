package metrics

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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgBin is where Debian installs PostgreSQL 15.
const pgBin = "/usr/lib/postgresql/15/bin"

// pgPassword is the throwaway cluster's superuser password; the error
// message tests check that it never shows.
const pgPassword = "t0p-s3cret"

// cluster is one throwaway PostgreSQL server shared by the package's
// tests, started on first use and stopped by TestMain.
var cluster struct {
	once sync.Once
	base string // URL DSN of the postgres database, without a path
	err  error
	stop func()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if cluster.stop != nil {
		cluster.stop()
	}
	os.Exit(code)
}

// postgresURL returns the URL of a fresh, empty database on the shared
// cluster, dropped when the test ends. Without a runnable PostgreSQL it
// skips, or fails under SWEEP_REQUIRE_DOCKER=1.
func postgresURL(t testing.TB) string {
	t.Helper()
	cluster.once.Do(func() { cluster.base, cluster.stop, cluster.err = startCluster() })
	if cluster.err != nil {
		reason := "no throwaway PostgreSQL: " + cluster.err.Error()
		if os.Getenv("SWEEP_REQUIRE_DOCKER") == "1" {
			t.Fatal("SWEEP_REQUIRE_DOCKER=1 but " + reason)
		}
		t.Skip(reason)
	}
	name := fmt.Sprintf("t%d", time.Now().UnixNano())
	adminExec(t, "CREATE DATABASE "+name)
	t.Cleanup(func() { adminExec(t, "DROP DATABASE "+name+" WITH (FORCE)") })
	return cluster.base + "/" + name
}

func adminExec(t testing.TB, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, cluster.base+"/postgres")
	if err != nil {
		t.Fatalf("admin connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// startCluster runs initdb and postgres as the postgres user (they refuse
// root) in a temporary directory on a free loopback port.
func startCluster() (base string, stop func(), err error) {
	if _, err := os.Stat(filepath.Join(pgBin, "postgres")); err != nil {
		return "", nil, fmt.Errorf("postgresql-15 not installed: %w", err)
	}
	cred, err := pgCredential()
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "sweep-metrics-pg-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { _ = os.RemoveAll(dir) }
	if err := prepareDir(dir, cred); err != nil {
		cleanup()
		return "", nil, err
	}
	port, err := freePort()
	if err != nil {
		cleanup()
		return "", nil, err
	}
	srv := pgCommand(cred, "postgres", "-D", filepath.Join(dir, "data"), "-p", strconv.Itoa(port),
		"-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=40")
	srv.Stderr, srv.Stdout = nil, nil
	if err := srv.Start(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("start postgres: %w", err)
	}
	stop = func() {
		_ = srv.Process.Signal(syscall.SIGINT) // fast shutdown
		_ = srv.Wait()
		cleanup()
	}
	base = fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d", pgPassword, port)
	if err := waitReady(base + "/postgres"); err != nil {
		stop()
		return "", nil, err
	}
	return base, stop, nil
}

// pgCredential is the user to run the server as: postgres when we are
// root, ourselves otherwise.
func pgCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root and no postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func pgCommand(cred *syscall.Credential, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(pgBin, name), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	return cmd
}

// prepareDir hands dir to the server's user and runs initdb in dir/data.
func prepareDir(dir string, cred *syscall.Credential) error {
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte(pgPassword+"\n"), 0o600); err != nil {
		return err
	}
	if cred != nil {
		for _, p := range []string{dir, pwfile} {
			if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
				return err
			}
		}
	}
	initdb := pgCommand(cred, "initdb", "-D", filepath.Join(dir, "data"), "-U", "postgres",
		"--auth=scram-sha-256", "--pwfile="+pwfile, "--no-sync", "--no-instructions")
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w: %s", err, out)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitReady(dsn string) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, dsn)
		cancel()
		if err == nil {
			return conn.Close(context.Background())
		}
		if time.Now().After(deadline) {
			return errors.Join(errors.New("postgres did not accept connections in 15s"), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
