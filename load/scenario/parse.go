package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Load reads and parses the scenario file at path; its problems name the
// path as given.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	return Parse(path, data)
}

// Parse parses and compiles a scenario file; file names it in errors.
// A file outside the subset is an Errors listing every problem found.
func Parse(file string, data []byte) (*Script, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, Errors{yamlError(file, err)}
	}
	c := &compiler{parser: parser{file: file}, s: &Script{file: file, src: bytes.Clone(data)}, ops: map[string]int{}}
	c.sc = scope{vars: map[string]variable{}, slots: map[string]int{}}
	top := c.mapping(&doc, "", "a mapping with config and scenarios", "config", "scenarios")
	if f, ok := top["config"]; ok {
		c.config(f)
	}
	if f, ok := top["scenarios"]; ok {
		c.scenarios(f)
	} else if top != nil {
		c.fail(deref(&doc), "scenarios", "missing: the file lists its scenarios under scenarios:")
	}
	if len(c.errs) > 0 {
		return nil, c.errs.sorted()
	}
	return c.s, nil
}

// yamlError turns yaml.v3's "yaml: line 3: …" into an Error at line 3.
func yamlError(file string, err error) *Error {
	if errors.Is(err, io.EOF) {
		return &Error{File: file, Line: 1, Msg: "empty file: a scenario file holds config and scenarios"}
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, msg = n, tail
			}
		}
	}
	return &Error{File: file, Line: line, Msg: "not YAML: " + msg}
}

// compiler is the parser with what the file compiles into.
type compiler struct {
	parser
	s   *Script
	sc  scope
	ops map[string]int // operation name → index in s.ops
}

// config reads config.variables, the one config key of the subset.
func (c *compiler) config(f field) {
	m := c.mapping(f.val, f.key.Value, "a mapping with variables", "variables")
	v, ok := m["variables"]
	if !ok {
		return
	}
	vars := c.mapping(v.val, "variables", "a mapping of names to values")
	for name, f := range vars {
		s, ok := scalar(f.val)
		switch {
		case !validName(name):
			c.fail(f.key, name, "a variable's name is letters, digits and _")
		case !ok:
			c.fail(f.val, name, "a variable is a string or a number (Artillery's lists are outside the subset)")
		case f.val.Tag == "!!int" || f.val.Tag == "!!float":
			c.sc.vars[name] = variable{value: string(c.jsonNumber(nil, f.val, name)), num: true}
		default:
			c.sc.vars[name] = variable{value: s}
		}
	}
}

// scenarios reads the list of scenarios.
func (c *compiler) scenarios(f field) {
	items := c.seq(f, "a list of scenarios")
	if f.val != nil && f.val.Kind == yaml.SequenceNode && len(items) == 0 {
		c.fail(f.val, "scenarios", "empty: give at least one scenario")
	}
	for i, n := range items {
		m := c.mapping(n, "scenarios", "a scenario: a mapping with name, weight and flow", "name", "weight", "flow")
		if m == nil {
			continue
		}
		fl := flow{name: "scenario " + strconv.Itoa(i+1), weight: 1}
		if f, ok := m["name"]; ok {
			fl.name, _ = c.str(f)
		}
		if f, ok := m["weight"]; ok {
			w, ok := c.integer(f.val, "weight")
			if ok && w < 1 {
				c.fail(f.val, "weight", "must be at least 1")
			}
			fl.weight = max(w, 1)
		}
		f, ok := m["flow"]
		if !ok {
			c.fail(n, "flow", "missing: scenario %q has no flow", fl.name)
			continue
		}
		fl.steps = c.flow(f)
		c.s.flows = append(c.s.flows, fl)
		c.s.total += fl.weight
	}
}
