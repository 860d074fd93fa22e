package sweep

import (
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	t.Parallel()
	got := Wrap("aaa bbb ccc ddd", 7, "  ")
	if want := "aaa bbb\n  ccc\n  ddd"; got != want {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
	if got := Wrap(strings.Repeat("x", 12), 5, ""); got != strings.Repeat("x", 12) {
		t.Errorf("a word longer than the width is kept whole: %q", got)
	}
}
