package cpuhog

import (
	"testing"
	"time"
)

func TestCommand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{Spec{Life: 3 * time.Minute}, "(while :; do :; done) & (while :; do :; done) & sleep 180"},
		{Spec{Loops: 1, Life: 40 * time.Second}, "(while :; do :; done) & sleep 40"},
		{Spec{Loops: 3, Life: 300 * time.Millisecond}, "(while :; do :; done) & (while :; do :; done) & (while :; do :; done) & sleep 1"},
	} {
		if got := c.s.Command(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}
