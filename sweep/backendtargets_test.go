package sweep

import (
	"strings"
	"testing"
)

func TestMemoryFits(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	for _, c := range []struct {
		limits []int64
		total  int64
		fits   bool
		says   string
	}{
		{[]int64{512 * mib, 512 * mib}, 2048 * mib, true, "1024 MiB together fit into the 2048 MiB of the engine"},
		{[]int64{1024 * mib, 1024 * mib, 512 * mib}, 2048 * mib, false, "3 targets started at once have memory limits of 2560 MiB"},
		{[]int64{1024 * mib, 0}, 512 * mib, true, "not checked: a target has no memory limit"},
	} {
		fits, why := memoryFits(c.limits, c.total, "the engine")
		if fits != c.fits || !strings.Contains(why, c.says) {
			t.Errorf("memoryFits(%v, %d) = %t, %q; want %t, %q", c.limits, c.total, fits, why, c.fits, c.says)
		}
	}
}
