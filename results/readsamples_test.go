package results

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadIntervals(t *testing.T) {
	t.Parallel()
	got, err := ReadIntervals(filepath.Join("testdata", "samples", "all-series.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Interval{
		{T: 1, Requests: 120, P99MS: 12.35},
		{T: 2, Requests: 130, Errors: 2, P99MS: 15},
		{T: 3, Requests: 125},
		{T: 4, Requests: 120, Errors: 1, P99MS: 11}, // the short last second, scaled as written
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	got, err = ReadIntervals(filepath.Join("testdata", "samples", "samplers-only.csv"))
	if err != nil || len(got) != 0 {
		t.Errorf("samplers only: %+v, %v; want no intervals", got, err)
	}
}

func TestReadIntervalsRejects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := map[string]string{
		"no rps column": "t,requests\n1,5\n",
		"bad number":    "t,rps,errors,p99_ms\n1,fast,0,1\n",
		"empty file":    "",
	}
	for name, body := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".csv")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadIntervals(path); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
	if _, err := ReadIntervals(filepath.Join(dir, "absent.csv")); !os.IsNotExist(err) {
		t.Errorf("absent file: %v, want not exist", err)
	}
}
