package scenario

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// bind compiles a step read by step: its templates bound to the flow's
// names so far, its operation, and then its captures, which the steps
// after it may name.
func (c *compiler) bind(r *rawStep) step {
	st := step{line: r.at.Line, op: -1, think: r.think}
	if r.method == "" {
		return st
	}
	st.method, st.expect = r.method, r.expect
	if u, ok := r.fields["url"]; ok {
		st.url = c.template(u.val, "url", escURL)
		if len(st.url) > 0 && st.url[0].kind == slotNone && !strings.HasPrefix(st.url[0].text, "/") {
			c.fail(u.val, "url", "%q is not a path: a url is relative to sweep's --url and starts with /", u.val.Value)
		}
	}
	for _, h := range r.headers {
		v := c.template(h.val, h.key.Value, escHeader)
		st.headers = append(st.headers, header{name: h.key.Value, value: v})
	}
	if f, ok := r.fields["json"]; ok {
		b := jsonBuilder{c: c}
		b.value(f.val, "json")
		st.body, st.hasBody = b.finish(), true
		if !hasHeader(r.headers, "Content-Type") {
			st.ctype = "application/json"
		}
	}
	if f, ok := r.fields["body"]; ok {
		st.body, st.hasBody = c.template(f.val, "body", escRaw), true
	}
	st.op = c.op(r)
	st.needs = st.url.uses(st.needs)
	st.needs = st.body.uses(st.needs)
	for _, h := range st.headers {
		st.needs = h.value.uses(st.needs)
	}
	c.bindCaptures(&st, r.captures)
	return st
}

// bindCaptures gives the step its captures, which the later steps of the
// flow may then name.
func (c *compiler) bindCaptures(st *step, caps []rawCapture) {
	for _, cp := range caps {
		st.captures = append(st.captures, capture{slot: c.slot(cp.as.Value), path: cp.path, header: cp.header})
		if cp.header != "" {
			st.keepHeaders = append(st.keepHeaders, cp.header)
		} else {
			st.bodyCaptures = true
		}
		c.sc.captured[cp.as.Value] = true
	}
}

// template binds a scalar's text; problems name the scalar's line and key.
func (c *compiler) template(n *yaml.Node, key string, esc escape) template {
	s, ok := scalar(n)
	if !ok {
		c.fail(n, key, "must be a string")
		return nil
	}
	t, errs := c.sc.bind(s, esc)
	for _, e := range errs {
		c.fail(n, key, "%s", e)
	}
	return t
}

// op returns the index of the step's operation: its name, or the method
// and url template (GET /api/orders/:id).
func (c *compiler) op(r *rawStep) int {
	url := ""
	if u, ok := r.fields["url"]; ok {
		url = u.val.Value
	}
	name := opName(r.method, url)
	if f, ok := r.fields["name"]; ok {
		if s, ok := c.str(f); ok && strings.TrimSpace(s) != "" {
			name = s
		} else if ok {
			c.fail(f.val, "name", "must not be empty")
		}
	}
	i, ok := c.ops[name]
	if !ok {
		i = len(c.s.ops)
		c.ops[name] = i
		c.s.ops = append(c.s.ops, name)
	}
	return i
}

// slot returns the index of a capture name in VU.vals.
func (c *compiler) slot(name string) int {
	i, ok := c.sc.slots[name]
	if !ok {
		i = len(c.sc.slots)
		c.sc.slots[name] = i
		c.s.captures = append(c.s.captures, name)
	}
	return i
}

func hasHeader(hs []field, name string) bool {
	for _, h := range hs {
		if strings.EqualFold(h.key.Value, name) {
			return true
		}
	}
	return false
}

// jsonBuilder serializes a json: node once, at parse time, into a
// template: the JSON text with slots where its strings have {{ … }}.
type jsonBuilder struct {
	c    *compiler
	t    template
	text []byte
}

func (b *jsonBuilder) value(n *yaml.Node, key string) {
	n = deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		b.text = append(b.text, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if i > 0 {
				b.text = append(b.text, ',')
			}
			if strings.Contains(k.Value, "{{") {
				b.c.fail(k, key, "a JSON key cannot be a template")
			}
			b.text = appendValue(b.text, []byte(k.Value), false, escJSONValue)
			b.text = append(b.text, ':')
			b.value(n.Content[i+1], key+"."+k.Value)
		}
		b.text = append(b.text, '}')
	case yaml.SequenceNode:
		b.text = append(b.text, '[')
		for i, it := range n.Content {
			if i > 0 {
				b.text = append(b.text, ',')
			}
			b.value(it, key+"["+strconv.Itoa(i)+"]")
		}
		b.text = append(b.text, ']')
	default:
		b.scalar(n, key)
	}
}

// scalar writes a YAML scalar as JSON. A string that is one {{ … }} and
// nothing else becomes the value itself: a captured number stays a number.
func (b *jsonBuilder) scalar(n *yaml.Node, key string) {
	switch n.Tag {
	case "!!null":
		b.text = append(b.text, "null"...)
		return
	case "!!bool":
		v, _ := strconv.ParseBool(strings.ToLower(n.Value))
		b.text = strconv.AppendBool(b.text, v)
		return
	case "!!int", "!!float":
		b.text = b.c.jsonNumber(b.text, n, key)
		return
	}
	esc := escJSONString
	if lits, refs, err := splitTemplate(n.Value); err == nil && len(refs) == 1 && lits[0] == "" && lits[1] == "" {
		esc = escJSONValue
	}
	t := b.c.template(n, key, esc)
	if esc == escJSONString {
		b.text = append(b.text, '"')
	}
	for _, s := range t {
		b.text = append(b.text, s.text...)
		if s.kind != slotNone {
			s.text = string(b.text)
			b.t, b.text = append(b.t, s), b.text[:0]
		}
	}
	if esc == escJSONString {
		b.text = append(b.text, '"')
	}
}

func (b *jsonBuilder) finish() template {
	return append(b.t, seg{text: string(b.text)})
}
