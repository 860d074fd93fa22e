package pressure

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		text string
		want Reading
		err  error
	}{
		{"kernel format", "some avg10=97.34 avg60=72.47 avg300=37.50 total=176848350\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
			Reading{Avg10: 97.34, Total: 176848350 * time.Microsecond}, nil},
		{"full line first", "full avg10=1.00 avg60=0 avg300=0 total=5\nsome avg10=2.50 avg60=0 avg300=0 total=7\n",
			Reading{Avg10: 2.5, Total: 7 * time.Microsecond}, nil},
		{"no some line", "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", Reading{}, ErrFormat},
		{"no total", "some avg10=1.00 avg60=0.00 avg300=0.00\n", Reading{}, ErrFormat},
		{"bad number", "some avg10=x avg60=0.00 avg300=0.00 total=1\n", Reading{}, ErrFormat},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Parse([]byte(c.text))
			if !errors.Is(err, c.err) || got != c.want {
				t.Errorf("Parse = %+v, %v; want %+v, %v", got, err, c.want, c.err)
			}
		})
	}
}

func TestReadMissingFile(t *testing.T) {
	t.Parallel()
	_, err := Read(filepath.Join(t.TempDir(), "cpu"))
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want ErrUnavailable wrapping the missing file", err)
	}
}

func TestOver(t *testing.T) {
	t.Parallel()
	before := Reading{Total: 1 * time.Second}
	after := Reading{Avg10: 40, Total: 1*time.Second + 2500*time.Millisecond}
	p, ok := Over(before, after, 10*time.Second)
	if !ok || math.Abs(p.SomeShare-0.25) > 1e-12 || p.SomeAvg10 != 40 {
		t.Errorf("Over = %+v, %v; want share 0.25, avg10 40", p, ok)
	}
	if _, ok := Over(after, before, 10*time.Second); ok {
		t.Error("a total that went backwards gave a pressure")
	}
	if _, ok := Over(before, after, 0); ok {
		t.Error("no wall time gave a pressure")
	}
}

// TestReadCPUHere reads this machine's file when the kernel has one.
func TestReadCPUHere(t *testing.T) {
	t.Parallel()
	rd, err := ReadCPU()
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("this kernel has no %s: %v", CPUPath, err)
	}
	if err != nil || rd.Avg10 < 0 || rd.Avg10 > 100 {
		t.Errorf("ReadCPU = %+v, %v", rd, err)
	}
}
