package scenario

import (
	"fmt"
	"strconv"
)

// variable is one of config.variables: fixed for the run, so its value is
// written into a template's text at parse time and costs nothing per
// request.
type variable struct {
	value string
	num   bool // a YAML number: bare where a whole JSON value is written
}

// scope is what the templates of one flow's step may name.
type scope struct {
	vars     map[string]variable
	slots    map[string]int  // every name captured in the file → its index in VU.vals
	captured map[string]bool // names captured by an earlier step of this flow
	later    map[string]int  // names captured by this step or a later one → the line
}

// functions are the template functions, for messages.
const functions = "$randomNumber(min, max), $randomString(length), $uuid, $vu, $iteration"

// bind compiles s into a template whose slots write for esc. It returns
// the problems as messages, none when the template is good.
func (sc *scope) bind(s string, esc escape) (template, []string) {
	lits, refs, err := splitTemplate(s)
	if err != nil {
		return nil, []string{err.Error()}
	}
	var (
		t    template
		text = appendLiteral(nil, lits[0], esc)
		errs []string
	)
	for i, r := range refs {
		s, lit, err := sc.resolve(r, esc)
		switch {
		case err != nil:
			errs = append(errs, err.Error())
		case lit != nil:
			text = append(text, lit...)
		default:
			s.text, s.esc = string(text), esc
			t, text = append(t, s), text[:0:0]
		}
		text = appendLiteral(text, lits[i+1], esc)
	}
	return append(t, seg{text: string(text)}), errs
}

// appendLiteral writes a template's own text as its slots' values are
// written, so that a space in a url or a quote in a JSON string is as
// safe as in a captured value.
func appendLiteral(dst []byte, s string, esc escape) []byte {
	if esc == escJSONValue { // the slot is the whole value: there is no text
		return append(dst, s...)
	}
	return appendValue(dst, []byte(s), false, esc)
}

// resolve returns the slot of r, or the text of a config variable
// written for esc.
func (sc *scope) resolve(r ref, esc escape) (seg, []byte, error) {
	if r.name[0] == '$' {
		s, err := function(r)
		return s, nil, err
	}
	if r.call {
		return seg{}, nil, fmt.Errorf("{{ %s(…) }}: %s is not a function (the functions are %s)", r.name, r.name, functions)
	}
	if v, ok := sc.vars[r.name]; ok {
		return seg{}, appendValue(nil, []byte(v.value), v.num, esc), nil
	}
	if sc.captured[r.name] {
		return seg{kind: slotCapture, idx: sc.slots[r.name]}, nil, nil
	}
	if line, ok := sc.later[r.name]; ok {
		return seg{}, nil, fmt.Errorf("{{ %s }} is used before it is captured (at line %d): a step may use only what an earlier step of its flow captured", r.name, line)
	}
	return seg{}, nil, fmt.Errorf("{{ %s }} is not defined: neither in config.variables nor captured by an earlier step of this flow", r.name)
}

// maxRandom bounds $randomNumber's arguments and $randomString's length.
const (
	maxRandom    = 1 << 53
	maxRandomLen = 4096
)

// function compiles a template function: Artillery's $randomNumber,
// $randomString and $uuid, and sweep's own $vu and $iteration.
func function(r ref) (seg, error) {
	bad := func(usage string) (seg, error) {
		return seg{}, fmt.Errorf("{{ %s }}: write %s", r.name+callText(r), usage)
	}
	switch r.name {
	case "$randomNumber":
		if !r.call || len(r.args) != 2 || r.args[0] > r.args[1] || abs(r.args[0]) > maxRandom || abs(r.args[1]) > maxRandom {
			return bad("$randomNumber(min, max) with integers min <= max")
		}
		return seg{kind: slotRandNum, a: r.args[0], b: r.args[1]}, nil
	case "$randomString":
		n := int64(10) // Artillery's default length
		if len(r.args) == 1 {
			n = r.args[0]
		}
		if !r.call || len(r.args) > 1 || n < 1 || n > maxRandomLen {
			return bad("$randomString(length) with 1 <= length <= " + strconv.Itoa(maxRandomLen))
		}
		return seg{kind: slotRandStr, a: n}, nil
	case "$uuid", "$vu", "$iteration":
		if r.call {
			return bad(r.name + " without parentheses")
		}
		return seg{kind: map[string]slotKind{"$uuid": slotUUID, "$vu": slotVU, "$iteration": slotIter}[r.name]}, nil
	}
	hint := suggest(r.name, []string{"$randomNumber", "$randomString", "$uuid", "$vu", "$iteration"})
	if r.name == "$randomUUID" || r.name == "$guid" { // Postman's names
		hint = " (did you mean $uuid?)"
	}
	return seg{}, fmt.Errorf("{{ %s }}: unknown function%s; the functions are %s", r.name, hint, functions)
}

func callText(r ref) string {
	if !r.call {
		return ""
	}
	s := "("
	for i, a := range r.args {
		if i > 0 {
			s += ", "
		}
		s += strconv.FormatInt(a, 10)
	}
	return s + ")"
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
