package scenario

import (
	"gopkg.in/yaml.v3"
)

// captures reads capture: one capture or a list of them, each json (a
// JSONPath) or header (a name), and as.
func (c *compiler) captures(f field) []rawCapture {
	items := []*yaml.Node{f.val}
	if f.val.Kind == yaml.SequenceNode {
		items = c.seq(f, "a list of captures")
	}
	var out []rawCapture
	seen := map[string]bool{}
	for _, n := range items {
		m := c.mapping(n, "capture", "a capture: a mapping with json or header, and as", "json", "header", "as")
		if m == nil {
			continue
		}
		r := c.source(n, m)
		as, ok := m["as"]
		if !ok {
			c.fail(n, "as", "missing: a capture names its value with as")
			continue
		}
		switch name := as.val.Value; {
		case !validName(name):
			c.fail(as.val, "as", "%q: a name is letters, digits and _", name)
		case c.sc.vars[name] != (variable{}):
			c.fail(as.val, "as", "%q is a config variable; capture into another name", name)
		case seen[name]:
			c.fail(as.val, "as", "%q is captured twice in this step", name)
		}
		seen[as.val.Value] = true
		r.as = as.val
		out = append(out, r)
	}
	return out
}

// source reads where a capture reads from: json or header.
func (c *compiler) source(n *yaml.Node, m map[string]field) rawCapture {
	var r rawCapture
	j, isJSON := m["json"]
	h, isHeader := m["header"]
	switch {
	case isJSON && isHeader:
		c.fail(h.key, "header", "a capture reads json or header, not both")
	case isJSON:
		if s, ok := c.str(j); ok {
			p, err := compilePath(s)
			if err != nil {
				c.fail(j.val, "json", "%v", err)
			}
			r.path = p
		}
	case isHeader:
		r.header, _ = c.str(h)
		if !validHeaderName(r.header) {
			c.fail(h.val, "header", "%q is not a header name", r.header)
		}
	default:
		c.fail(n, "capture", "give json (a JSONPath such as $.id) or header (such as Location)")
	}
	return r
}

// validHeaderName accepts an HTTP token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
		if !ok {
			return false
		}
	}
	return true
}

// expect reads the expected status: 201, [200, 204], or Artillery's
// list form [{statusCode: 201}] (statusCode may itself be a list).
func (c *compiler) expect(f field) []int {
	if f.val.Kind != yaml.SequenceNode {
		return c.statuses(f.val, "expect")
	}
	var out []int
	for _, n := range c.seq(f, "a status code or a list") {
		if n.Kind != yaml.MappingNode {
			out = append(out, c.statuses(n, "expect")...)
			continue
		}
		m := c.mapping(n, "expect", "a mapping with statusCode", "statusCode")
		if sc, ok := m["statusCode"]; ok {
			out = append(out, c.statuses(sc.val, "statusCode")...)
		} else if m != nil && len(n.Content) == 0 {
			c.fail(n, "expect", "give statusCode")
		}
	}
	return out
}

// statuses reads a status code or a list of them.
func (c *compiler) statuses(n *yaml.Node, key string) []int {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	var out []int
	for _, it := range items {
		s, ok := c.integer(deref(it), key)
		if ok && (s < 100 || s > 599) {
			c.fail(it, key, "%d is not an HTTP status", s)
		}
		out = append(out, s)
	}
	return out
}
