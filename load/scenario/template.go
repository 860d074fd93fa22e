package scenario

import (
	"fmt"
	"strconv"
	"strings"
)

// A template is a string of a step (url, header value, body) split once,
// at parse time, into literal text and slots; rendering appends the text
// and the slots' values to a reused buffer, with no fmt and no allocation.
type template []seg

// seg is literal text followed by at most one slot.
type seg struct {
	text string
	kind slotKind
	esc  escape
	idx  int   // slotCapture: the capture's index in VU.vals
	a, b int64 // slotRandNum: the bounds; slotRandStr: a is the length
}

// slotKind is what fills a slot.
type slotKind uint8

const (
	slotNone    slotKind = iota // no slot: the segment is text only
	slotCapture                 // a value captured by an earlier step
	slotRandNum                 // $randomNumber(min, max)
	slotRandStr                 // $randomString(length)
	slotUUID                    // $uuid
	slotVU                      // $vu
	slotIter                    // $iteration
)

// escape is how a value is written where its slot stands.
type escape uint8

const (
	escRaw        escape = iota // a body: as is
	escURL                      // a url: bytes a request-target cannot hold are %-escaped
	escHeader                   // a header value: CR and LF dropped
	escJSONString               // inside a JSON string: JSON-escaped
	escJSONValue                // a whole JSON value: strings quoted, numbers bare
)

// ref is one {{ … }} of a template, as written.
type ref struct {
	name string  // a variable, or a function with its $
	args []int64 // a function's arguments
	call bool    // written with parentheses
}

// splitTemplate cuts s at its {{ … }}: len(lits) is len(refs)+1.
func splitTemplate(s string) (lits []string, refs []ref, err error) {
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return append(lits, s), refs, nil
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return nil, nil, fmt.Errorf("%q: {{ without }}", s[i:])
		}
		r, err := parseRef(strings.TrimSpace(s[i+2 : i+j]))
		if err != nil {
			return nil, nil, err
		}
		lits, refs = append(lits, s[:i]), append(refs, r)
		s = s[i+j+2:]
	}
}

// parseRef reads "name", "$fn" or "$fn(1, 2)".
func parseRef(s string) (ref, error) {
	name, rest, call := strings.Cut(s, "(")
	name = strings.TrimSpace(name)
	r := ref{name: name, call: call}
	if !validName(strings.TrimPrefix(name, "$")) {
		return r, fmt.Errorf("{{ %s }}: not a name", s)
	}
	if !call {
		return r, nil
	}
	inner, ok := strings.CutSuffix(strings.TrimSpace(rest), ")")
	if !ok {
		return r, fmt.Errorf("{{ %s }}: no closing parenthesis", s)
	}
	if inner = strings.TrimSpace(inner); inner == "" {
		return r, nil
	}
	for a := range strings.SplitSeq(inner, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
		if err != nil {
			return r, fmt.Errorf("{{ %s }}: argument %q is not an integer", s, strings.TrimSpace(a))
		}
		r.args = append(r.args, n)
	}
	return r, nil
}

// validName accepts the names a capture's as may take.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// opName is the default name of a step's operation: its method and url
// with each {{ x }} written :x (GET /api/orders/:id).
func opName(method, url string) string {
	lits, refs, err := splitTemplate(url)
	if err != nil {
		return method + " " + url
	}
	var b strings.Builder
	b.WriteString(method)
	b.WriteByte(' ')
	for i, r := range refs {
		b.WriteString(lits[i])
		b.WriteByte(':')
		b.WriteString(strings.TrimPrefix(r.name, "$"))
	}
	b.WriteString(lits[len(lits)-1])
	return b.String()
}

// render appends the template to dst, its slots filled for v.
func (t template) render(dst []byte, v *VU) []byte {
	for i := range t {
		s := &t[i]
		dst = append(dst, s.text...)
		if s.kind != slotNone {
			dst = v.fill(dst, s)
		}
	}
	return dst
}

// uses reports the captures the template needs, appended to dst.
func (t template) uses(dst []int) []int {
	for _, s := range t {
		if s.kind == slotCapture {
			dst = append(dst, s.idx)
		}
	}
	return dst
}

// literal reports the template's text when it has no slot.
func (t template) literal() (string, bool) {
	if len(t) == 1 && t[0].kind == slotNone {
		return t[0].text, true
	}
	return "", false
}
