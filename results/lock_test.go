package results

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLockOneWriterAndStaleTakeover(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, stale, err := AcquireLock(dir)
	if err != nil || stale != 0 {
		t.Fatalf("first lock: %v stale %d", err, stale)
	}
	if _, _, err := AcquireLock(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: err %v, want ErrLocked", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Release left %s (%v)", LockFile, err)
	}

	// A lock left by a process that has exited is taken over.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.ProcessState.Pid()
	writeLock(t, dir, dead)
	l, stale, err = AcquireLock(dir)
	if err != nil || stale != dead {
		t.Fatalf("stale takeover: err %v stale %d, want %d", err, stale, dead)
	}
	_ = l.Release()
}

// TestLockIgnoresAnUnrelatedLiveProcess checks that a lock file naming a
// live process that does not hold the lock (PID 1, this test) is stale: a
// reused PID is never taken for a sweep.
func TestLockIgnoresAnUnrelatedLiveProcess(t *testing.T) {
	t.Parallel()
	for _, pid := range []int{1, os.Getpid()} {
		dir := t.TempDir()
		writeLock(t, dir, pid)
		l, stale, err := AcquireLock(dir)
		if err != nil || stale != pid {
			t.Errorf("lock naming live process %d that holds nothing: err %v stale %d, want taken over", pid, err, stale)
			continue
		}
		_ = l.Release()
	}
}

// TestLockHeldByAnotherProcess holds the lock's flock from another
// process (flock(1)): the lock is refused while it lives and free once it
// is killed, without any file being removed.
func TestLockHeldByAnotherProcess(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) is not on PATH")
	}
	dir := t.TempDir()
	writeLock(t, dir, 424242)
	holder := exec.Command("flock", "--exclusive", filepath.Join(dir, LockFile), "sh", "-c", "echo held; exec sleep 60")
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // sleep inherits the lock: kill both
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-holder.Process.Pid, syscall.SIGKILL); _ = holder.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		t.Fatalf("flock(1) did not take the lock: %q %v", line, err)
	}
	if _, _, err := AcquireLock(dir); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "424242") {
		t.Fatalf("lock held by flock(1): err %v, want ErrLocked naming the PID in the file", err)
	}
	_ = syscall.Kill(-holder.Process.Pid, syscall.SIGKILL)
	_ = holder.Wait()
	var l *Lock
	var stale int
	for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(20 * time.Millisecond) {
		// sleep(1) holds the lock until the kernel has finished it too
		if l, stale, err = AcquireLock(dir); !errors.Is(err, ErrLocked) {
			break
		}
	}
	if err != nil || stale != 424242 {
		t.Fatalf("after the holder was killed: err %v stale %d", err, stale)
	}
	_ = l.Release()
}

func writeLock(t *testing.T, dir string, pid int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, LockFile), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReleaseNil: releasing a lock that was never taken does nothing.
func TestReleaseNil(t *testing.T) {
	t.Parallel()
	var l *Lock
	if err := l.Release(); err != nil {
		t.Errorf("Release of no lock = %v, want nil", err)
	}
}
