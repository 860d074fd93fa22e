package scaffold

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/sweep-tool/sweep/sweep"
)

// todoMark starts the comment of what init could not guess; TODOs finds
// the lines that still hold it.
const todoMark = "TODO:"

// todoLine is a line holding a TODO comment: "# TODO: …", alone or
// after a value.
var todoLine = regexp.MustCompile(`(?:^|\s)#\s*` + todoMark + `\s*(.*)$`)

// renderConfig writes sweep.yaml: head, then each setting with its why
// as the comment above it, then foot.
func renderConfig(head []string, ss []Setting, foot []string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(comment(head, commentWidth) + "\n\n")
	for _, s := range ss {
		why := s.Why
		if s.Todo {
			why = todoMark + " " + s.Key + ": " + why
		}
		if why != "" {
			b.WriteString(comment(strings.Split(why, "\n"), commentWidth) + "\n")
		}
		if s.Key == "" || s.Value == nil {
			continue
		}
		v, err := yamlValue(s.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Key, err)
		}
		b.WriteString(s.Key + ": " + v + "\n")
	}
	b.WriteString("\n" + comment(foot, commentWidth) + "\n")
	return b.Bytes(), nil
}

// yamlValue is a setting's value as YAML: a scalar, or a list in flow
// style.
func yamlValue(v any) (string, error) {
	var n *yaml.Node
	switch v := v.(type) {
	case string:
		n = scalar(v)
	case bool:
		n = &yaml.Node{Kind: yaml.ScalarNode, Value: fmt.Sprint(v)}
	case []string:
		n = &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, s := range v {
			n.Content = append(n.Content, scalar(s))
		}
	case []float64:
		n = &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, f := range v {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: sweep.FormatNumber(f)})
		}
	default:
		return "", fmt.Errorf("no YAML for a %T", v)
	}
	out, err := yaml.Marshal(n)
	return strings.TrimSuffix(string(out), "\n"), err
}

// TODOs are the TODO lines left in a sweep.yaml: what sweep init could
// not guess, as "file:line: TODO: …", in order. file names it.
func TODOs(file string, data []byte) []string {
	var out []string
	for i, line := range strings.Split(string(data), "\n") {
		if m := todoLine.FindStringSubmatch(line); m != nil {
			out = append(out, fmt.Sprintf("%s:%d: %s %s", file, i+1, todoMark, m[1]))
		}
	}
	return out
}

// CheckTODOs is bad input of field (config, or scenario) naming each
// TODO line left in its file, nil when none is.
func CheckTODOs(field, file string, data []byte) error {
	todos := TODOs(file, data)
	if len(todos) == 0 {
		return nil
	}
	return sweep.BadInput(field, "%s holds %d TODO line(s), what sweep init could not guess: settle each and delete its line\n  %s",
		file, len(todos), strings.Join(todos, "\n  "))
}

// WriteNotes prints what init guessed: each setting of the file named
// config with its why, the TODOs first marked, then how to go on.
func (r Result) WriteNotes(w io.Writer, config string) error {
	var b strings.Builder
	todos := 0
	for _, s := range r.Settings {
		if s.Key == "" { // a comment alone: its paragraphs
			b.WriteString(paragraphs(s.Why, "") + "\n")
			continue
		}
		line := s.Key
		if s.Value != nil {
			v, err := yamlValue(s.Value)
			if err != nil {
				return err
			}
			line += ": " + v
		}
		if s.Todo {
			line, todos = todoMark+" "+line, todos+1
		}
		b.WriteString(line + "\n")
		if s.Why != "" {
			b.WriteString(paragraphs(s.Why, "  ") + "\n")
		}
	}
	fmt.Fprintf(&b, "Next: sweep plan --config %s, then sweep check --config %s", config, config)
	if todos > 0 {
		fmt.Fprintf(&b, ", which refuses the file while its %d TODO line(s) are left", todos)
	}
	b.WriteString(".\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// notesWidth is how wide WriteNotes's lines run.
const notesWidth = 98

// paragraphs is text's paragraphs (its lines) wrapped for a terminal,
// each line after indent; a paragraph starting with two spaces is kept
// whole.
func paragraphs(text, indent string) string {
	var out []string
	for _, p := range strings.Split(text, "\n") {
		if !strings.HasPrefix(p, "  ") {
			p = sweep.Wrap(p, notesWidth, indent)
		}
		out = append(out, indent+p)
	}
	return strings.Join(out, "\n")
}
