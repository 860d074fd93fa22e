package testenv

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
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgBin is where Debian's postgresql-15 package (what CI installs) puts
// the server programs.
const pgBin = "/usr/lib/postgresql/15/bin"

// PGCluster is a throwaway PostgreSQL 15 server listening on a free
// loopback port, its superuser postgres authenticated by password.
type PGCluster struct {
	// URL is postgres://postgres:<password>@127.0.0.1:<port> without a
	// database; append "/<database>" and any query.
	URL  string
	srv  *exec.Cmd
	log  *os.File
	dir  string
	cred *syscall.Credential
}

// Postgres starts a cluster for one test and stops it when the test ends.
// Without a runnable PostgreSQL 15 it skips the test, or fails it under
// SWEEP_REQUIRE_DOCKER=1.
func Postgres(t testing.TB, password string) *PGCluster {
	t.Helper()
	SkipShort(t)
	c, err := StartPostgres(password)
	if err != nil {
		Absent(t, "no throwaway PostgreSQL: "+err.Error())
	}
	t.Cleanup(c.Stop)
	return c
}

// StartPostgres runs initdb and postgres in a new temporary directory on
// a free loopback port and waits until the server accepts connections.
// PostgreSQL refuses to run as root, so as root both run as the user
// postgres (or nobody). For a cluster shared by a package's tests: the
// caller must Stop it, typically in TestMain.
func StartPostgres(password string) (*PGCluster, error) {
	if _, err := os.Stat(filepath.Join(pgBin, "postgres")); err != nil {
		return nil, fmt.Errorf("postgresql-15 not installed (apt-get install postgresql-15): %w", err)
	}
	cred, err := pgCredential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "sweep-test-pg-")
	if err != nil {
		return nil, err
	}
	c := &PGCluster{dir: dir, cred: cred}
	if err := c.start(password); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *PGCluster) start(password string) error {
	if err := c.initdb(password); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	if c.log, err = os.Create(filepath.Join(c.dir, "server.log")); err != nil {
		return err
	}
	c.srv = c.command("postgres", "-D", filepath.Join(c.dir, "data"), "-p", strconv.Itoa(port), "-k", c.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=40")
	c.srv.Stdout, c.srv.Stderr = c.log, c.log
	if err := c.srv.Start(); err != nil {
		c.srv = nil
		return fmt.Errorf("start postgres: %w", err)
	}
	c.URL = fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d", password, port)
	if err := waitPostgres(c.URL + "/postgres"); err != nil {
		log, _ := os.ReadFile(c.log.Name())
		return fmt.Errorf("%w\n%s", err, log)
	}
	return nil
}

// Stop shuts the server down (fast shutdown) and removes its directory.
func (c *PGCluster) Stop() {
	if c.srv != nil {
		_ = c.srv.Process.Signal(syscall.SIGINT)
		_ = c.srv.Wait()
	}
	if c.log != nil {
		_ = c.log.Close()
	}
	_ = os.RemoveAll(c.dir)
}

// initdb hands the directory to the server's user and creates dir/data
// with a password-only superuser postgres.
func (c *PGCluster) initdb(password string) error {
	pwfile := filepath.Join(c.dir, "pw")
	if err := os.WriteFile(pwfile, []byte(password+"\n"), 0o600); err != nil {
		return err
	}
	if c.cred != nil {
		for _, p := range []string{c.dir, pwfile} {
			if err := os.Chown(p, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
				return err
			}
		}
	}
	initdb := c.command("initdb", "-D", filepath.Join(c.dir, "data"), "-U", "postgres", "--auth=scram-sha-256",
		"--pwfile="+pwfile, "--locale=C", "--encoding=UTF8", "--no-sync", "--no-instructions")
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w: %s", err, out)
	}
	return nil
}

func (c *PGCluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(pgBin, name), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	return cmd
}

// pgCredential is the user to run the server as: ourselves, or postgres
// (else nobody) when we are root.
func pgCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		if u, err = user.Lookup("nobody"); err != nil {
			return nil, fmt.Errorf("running as root and no postgres or nobody user to run PostgreSQL as: %w", err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func waitPostgres(dsn string) error {
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

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
