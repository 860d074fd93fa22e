package session

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestCleanupSaysWhatItCouldNotRemove: the second Ctrl-C's removal by
// label returns the backend's error instead of dropping it, and is bounded
// in time even when the caller's context is not.
func TestCleanupSaysWhatItCouldNotRemove(t *testing.T) {
	t.Parallel()
	busy := errors.New("remove container sweep-app-1: conflict")
	var deadline time.Time
	s := &Session{cleanup: func(ctx context.Context) error {
		deadline, _ = ctx.Deadline()
		return busy
	}}
	if err := s.Cleanup(context.Background()); !errors.Is(err, busy) {
		t.Errorf("Cleanup = %v, want the backend's error", err)
	}
	if left := time.Until(deadline); deadline.IsZero() || left > 30*time.Second {
		t.Errorf("cleanup ran with %v left (deadline %v), want at most 30 s", left, deadline)
	}
}
