package report

import "testing"

func TestShorten(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"abcde", 5, "abcde"}, {"abcdef", 5, "abcd…"}, {"a  b\n c", 5, "a b c"}, {"µµµµµ", 5, "µµµµµ"},
	} {
		if got := shorten(c.in, c.n); got != c.want {
			t.Errorf("shorten(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
