// Package doccheck reads the project's Markdown (README.md and docs/) the
// way its tests need: the fenced code blocks with the doc-test marker
// before them, the sweep command lines in them split into words as a
// shell would, the relative links and the headings' anchors. It keeps
// the documentation honest without a network: the link test lives here,
// and cmd/sweep's docs test parses and runs the commands.
//
// It reads only the Markdown this repository writes: inline links, fenced
// blocks opened with ``` at the start of a line, ATX headings (#).
package doccheck

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// Files lists README.md and every .md file under docs/ of the repository
// at root, as paths relative to root with forward slashes, sorted.
func Files(root string) ([]string, error) {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, err := filepath.Rel(root, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	return files, err
}

// Block is one fenced code block.
type Block struct {
	Lang   string   // the word after the opening ```, e.g. sh, console, yaml
	Marker string   // the doc-test marker right before it ("run", "docker", "sample …"), or ""
	Line   int      // the line of the opening fence, from 1
	Lines  []string // the lines between the fences
}

var markerRE = regexp.MustCompile(`^<!--\s*doc-test:\s*(.*?)\s*-->$`)

// Blocks returns the fenced code blocks of a Markdown source. A block's
// Marker is the text of a `<!-- doc-test: … -->` comment on the line
// before its fence (blank lines between allowed).
func Blocks(src string) []Block {
	var blocks []Block
	var cur *Block
	marker := ""
	for i, line := range strings.Split(src, "\n") {
		if cur != nil {
			if strings.HasPrefix(line, "```") {
				blocks = append(blocks, *cur)
				cur = nil
				continue
			}
			cur.Lines = append(cur.Lines, line)
			continue
		}
		if m := markerRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			marker = m[1]
			continue
		}
		if strings.HasPrefix(line, "```") {
			cur = &Block{Lang: strings.TrimSpace(line[3:]), Marker: marker, Line: i + 1}
			marker = ""
			continue
		}
		if strings.TrimSpace(line) != "" {
			marker = ""
		}
	}
	return blocks
}

// Command is one sweep command line of a block.
type Command struct {
	Line int      // the line it starts on in the file, from 1
	Text string   // the command as written, continuation lines joined
	Args []string // the words after "sweep"
}

// Commands returns the sweep command lines of a sh or console block: lines
// that start with `sweep ` (after an optional `$ ` prompt), joined with
// their backslash continuations, with a trailing `# comment` dropped and
// the words split as a POSIX shell splits them (quotes removed, no
// expansion: $VAR stays as written). Other lines (make, docker, export,
// output) are not commands of sweep and are skipped.
func Commands(b Block) ([]Command, error) {
	if b.Lang != "sh" && b.Lang != "console" {
		return nil, nil
	}
	var cmds []Command
	for i := 0; i < len(b.Lines); i++ {
		line := strings.TrimPrefix(strings.TrimSpace(b.Lines[i]), "$ ")
		if line != "sweep" && !strings.HasPrefix(line, "sweep ") {
			continue
		}
		start := i
		for strings.HasSuffix(line, `\`) && i+1 < len(b.Lines) {
			i++
			line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(b.Lines[i])
		}
		words, err := Split(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", b.Line+1+start, err)
		}
		cmds = append(cmds, Command{Line: b.Line + 1 + start, Text: line, Args: words[1:]})
	}
	return cmds, nil
}

// Split splits a shell command line into words: blanks separate words,
// single quotes keep everything, double quotes keep all but \" and \\, a
// backslash outside quotes escapes the next character, and an unquoted #
// at the start of a word begins a comment.
func Split(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words, nil
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed ' in %q", line)
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\') {
					i++
				}
				w.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, fmt.Errorf("unclosed \" in %q", line)
			}
			inWord = true
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// Link is one inline link or image of a Markdown file.
type Link struct {
	Line   int
	Target string // as written: a path, a path#anchor, #anchor, or a URL
}

var linkRE = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// Links returns the inline links of a Markdown source outside code: fenced
// blocks and `inline code` are skipped.
func Links(src string) []Link {
	var links []Link
	for _, l := range prose(src) {
		for _, m := range linkRE.FindAllStringSubmatch(stripCode(l.text), -1) {
			links = append(links, Link{Line: l.n, Target: m[1]})
		}
	}
	return links
}

type line struct {
	n    int // from 1
	text string
}

// prose returns the lines of a Markdown source outside fenced blocks.
func prose(src string) []line {
	var lines []line
	inFence := false
	for i, text := range strings.Split(src, "\n") {
		if strings.HasPrefix(text, "```") {
			inFence = !inFence
			continue
		}
		if !inFence {
			lines = append(lines, line{i + 1, text})
		}
	}
	return lines
}

// stripCode blanks the `inline code` spans of a line.
func stripCode(line string) string {
	parts := strings.Split(line, "`")
	for i := 1; i < len(parts); i += 2 {
		parts[i] = strings.Repeat(" ", len(parts[i]))
	}
	return strings.Join(parts, " ")
}

// Anchors returns the anchors GitHub gives the headings of a Markdown
// source: the heading's text lower-cased, every character but letters,
// digits, spaces, hyphens and underscores dropped, spaces turned into
// hyphens; a repeated anchor gets -1, -2, … Explicit <a id="…"> and
// <a name="…"> anchors count too.
func Anchors(src string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, l := range prose(src) {
		for _, m := range htmlAnchorRE.FindAllStringSubmatch(l.text, -1) {
			anchors[m[1]] = true
		}
		text, ok := heading(l.text)
		if !ok {
			continue
		}
		a := Slug(text)
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

var htmlAnchorRE = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)

func heading(line string) (string, bool) {
	t := strings.TrimLeft(line, "#")
	n := len(line) - len(t)
	if n == 0 || n > 6 || t == "" || t[0] != ' ' {
		return "", false
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t), "#")), true
}

// Slug is GitHub's anchor of a heading's text.
func Slug(text string) string {
	text = linkTextRE.ReplaceAllString(text, "$1") // [text](url) keeps its text
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

var linkTextRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// CheckLinks checks every relative link of the files (paths relative to
// root): its file or directory exists, and its #anchor, if any, is a
// heading's anchor of the Markdown file it names. URLs (a scheme such as
// https: or mailto:) are not followed. It returns one problem a line.
func CheckLinks(root string, files []string) ([]string, error) {
	var problems []string
	anchors := map[string]map[string]bool{}
	anchorsOf := func(file string) (map[string]bool, error) {
		if a, ok := anchors[file]; ok {
			return a, nil
		}
		src, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			return nil, err
		}
		anchors[file] = Anchors(string(src))
		return anchors[file], nil
	}
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		for _, l := range Links(string(src)) {
			if p := checkLink(root, f, l.Target, anchorsOf); p != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", f, l.Line, l.Target, p))
			}
		}
	}
	return problems, nil
}

var schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

func checkLink(root, from, target string, anchorsOf func(string) (map[string]bool, error)) string {
	if schemeRE.MatchString(target) {
		return ""
	}
	path, anchor, _ := strings.Cut(target, "#")
	file := from
	if path != "" {
		if strings.HasPrefix(path, "/") {
			return "an absolute path: link relative to the file"
		}
		file = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), path)))
		if strings.HasPrefix(file, "../") {
			return "outside the repository"
		}
		if _, err := os.Stat(filepath.Join(root, file)); err != nil {
			return "no such file or directory"
		}
	}
	if anchor == "" {
		return ""
	}
	if !strings.HasSuffix(file, ".md") {
		return "an anchor into a file that is not Markdown"
	}
	a, err := anchorsOf(file)
	if err != nil {
		return err.Error()
	}
	if !a[anchor] {
		return fmt.Sprintf("no heading in %s has the anchor #%s", file, anchor)
	}
	return ""
}
