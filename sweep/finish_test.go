package sweep

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// deadlineStack reports how long its Logs call had.
type deadlineStack struct {
	fakeStack
	left time.Duration
}

func (s *deadlineStack) Logs(ctx context.Context, _ int) (string, error) {
	if d, ok := ctx.Deadline(); ok {
		s.left = time.Until(d)
	}
	return "tail\n", nil
}

// TestSaveTargetLogTimeout: reading a failed cell's log tail gets its own
// 10 s, whatever the run's context has left.
func TestSaveTargetLogTimeout(t *testing.T) {
	t.Parallel()
	st := &deadlineStack{}
	dir := t.TempDir()
	if err := (&Runner{Stack: st}).saveTargetLog(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	if st.left < 9*time.Second || st.left > 10*time.Second {
		t.Errorf("the log read had %s, want 10 s", st.left)
	}
	if b, err := os.ReadFile(filepath.Join(dir, results.TargetLog)); err != nil || string(b) != "tail\n" {
		t.Errorf("target.log %q, %v", b, err)
	}
}
