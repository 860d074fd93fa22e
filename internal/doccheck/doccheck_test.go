package doccheck

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLinks is the link checker of make lint: every relative link of
// README.md and docs/ names a file that exists, and every #anchor a
// heading of the Markdown file it points into. No network: URLs are not
// followed.
func TestLinks(t *testing.T) {
	t.Parallel()
	files, err := Files("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("found only %v: run from internal/doccheck", files)
	}
	problems, err := CheckLinks("../..", files)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func TestCheckLinksFindsBrokenOnes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "README.md", "# Top\n\n## Two words\n\n[ok](docs/a.md#a-heading) [ok](#two-words) [ok](https://x.invalid/y)\n"+
		"[bad](docs/missing.md) [bad](docs/a.md#nope) [bad](#top-1) `[code](not/checked.md)`\n")
	write(t, dir, "docs/a.md", "# A heading\n")
	problems, err := CheckLinks(dir, []string{"README.md", "docs/a.md"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md:6: docs/missing.md: no such file or directory",
		"README.md:6: docs/a.md#nope: no heading in docs/a.md has the anchor #nope",
		"README.md:6: #top-1: no heading in README.md has the anchor #top-1",
	}
	if !reflect.DeepEqual(problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"Measuring less: `--strategy halving`":      "measuring-less---strategy-halving",
		"Is the measurement consistent, and is it?": "is-the-measurement-consistent-and-is-it",
		"Past one host (Docker Swarm)":              "past-one-host-docker-swarm",
		"sweep.yaml":                                "sweepyaml",
		"[Link](x.md) text":                         "link-text",
	} {
		if got := Slug(text); got != want {
			t.Errorf("Slug(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestCommands(t *testing.T) {
	t.Parallel()
	src := "<!-- doc-test: run -->\n```sh\nmake demo\nsweep plan --config sweep.yaml   # what would run\n" +
		"$ sweep run --url 'http://{node}:1' \\\n  --db-dsn \"postgres://a@b/c?x=1\" --place app=node.id==$ID\n```\n\n```yaml\nsweep: x\n```\n"
	blocks := Blocks(src)
	if len(blocks) != 2 || blocks[0].Marker != "run" || blocks[1].Marker != "" || blocks[0].Line != 2 {
		t.Fatalf("blocks %+v", blocks)
	}
	cmds, err := Commands(blocks[0])
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"plan", "--config", "sweep.yaml"},
		{"run", "--url", "http://{node}:1", "--db-dsn", "postgres://a@b/c?x=1", "--place", "app=node.id==$ID"},
	}
	if len(cmds) != 2 || !reflect.DeepEqual(cmds[0].Args, want[0]) || !reflect.DeepEqual(cmds[1].Args, want[1]) || cmds[1].Line != 5 {
		t.Errorf("commands %+v", cmds)
	}
	if cmds, _ := Commands(blocks[1]); len(cmds) != 0 {
		t.Errorf("a yaml block has commands: %+v", cmds)
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
