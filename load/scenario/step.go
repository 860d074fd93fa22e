package scenario

import (
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

var (
	methods     = []string{"get", "post", "put", "patch", "delete"}
	actions     = append(slices.Clone(methods), "think")
	requestKeys = []string{"url", "json", "body", "headers", "capture", "expect", "name"}
	// driverHeaders are written by the driver; a step may not set them.
	driverHeaders = []string{"host", "content-length", "transfer-encoding", "connection"}
)

// maxThink bounds a think step.
const maxThink = time.Hour

// rawStep is a step as read, before its templates are bound to what the
// flow defines before it.
type rawStep struct {
	at       *yaml.Node // the action's key: its line is the step's
	method   string     // GET, POST…; "" for think
	think    time.Duration
	fields   map[string]field
	headers  []field
	captures []rawCapture
	expect   []int
}

type rawCapture struct {
	as     *yaml.Node
	path   jsonPath
	header string
}

// flow reads a flow's steps, then binds them in order, so that a step's
// templates may name only what an earlier step captured.
func (c *compiler) flow(f field) []step {
	items := c.seq(f, "a list of steps")
	if f.val.Kind == yaml.SequenceNode && len(items) == 0 {
		c.fail(f.val, "flow", "empty: a flow has at least one step")
	}
	raws := make([]rawStep, 0, len(items))
	later := map[string]int{}
	for _, n := range items {
		r, ok := c.step(n)
		if !ok {
			continue
		}
		for _, cp := range r.captures {
			if _, seen := later[cp.as.Value]; !seen {
				later[cp.as.Value] = cp.as.Line
			}
		}
		raws = append(raws, r)
	}
	c.sc.captured, c.sc.later = map[string]bool{}, later
	steps := make([]step, 0, len(raws))
	for i := range raws {
		steps = append(steps, c.bind(&raws[i]))
	}
	return steps
}

// step reads one step: a mapping with one action.
func (c *compiler) step(n *yaml.Node) (rawStep, bool) {
	m := c.mapping(n, "flow", "a step: a mapping with one of "+strings.Join(actions, ", "), actions...)
	fs := byLine(m)
	switch {
	case m == nil:
		return rawStep{}, false
	case len(fs) == 0:
		if len(n.Content) == 0 {
			c.fail(n, "flow", "empty step: give one of %s", strings.Join(actions, ", "))
		}
		return rawStep{}, false
	case len(fs) > 1:
		c.fail(fs[1].key, fs[1].key.Value, "a step has one action, and this one has %s too: start a new step with -", fs[0].key.Value)
		return rawStep{}, false
	}
	f := fs[0]
	r := rawStep{at: f.key}
	if f.key.Value == "think" {
		secs, ok := c.number(f.val, "think")
		r.think = time.Duration(secs * float64(time.Second))
		if ok && (secs < 0 || r.think > maxThink) {
			c.fail(f.val, "think", "must be seconds between 0 and %d", int(maxThink.Seconds()))
		}
		return r, true
	}
	r.method = strings.ToUpper(f.key.Value)
	return r, c.request(&r, f)
}

// request reads a request step's members.
func (c *compiler) request(r *rawStep, f field) bool {
	m := c.mapping(f.val, f.key.Value, "a request: a mapping with url and "+strings.Join(requestKeys[1:], ", "), requestKeys...)
	if m == nil {
		return false
	}
	r.fields = m
	if _, ok := m["url"]; !ok {
		c.fail(f.key, "url", "missing: %s needs a url", f.key.Value)
	}
	if b, ok := m["body"]; ok && m["json"].key != nil {
		c.fail(b.key, "body", "a step sends json or body, not both")
	}
	if h, ok := m["headers"]; ok {
		r.headers = byLine(c.mapping(h.val, "headers", "a mapping of header names to values"))
		for _, h := range r.headers {
			if contains(driverHeaders, strings.ToLower(h.key.Value)) {
				c.fail(h.key, h.key.Value, "the driver sets this header")
			}
		}
	}
	if cf, ok := m["capture"]; ok {
		r.captures = c.captures(cf)
	}
	if ef, ok := m["expect"]; ok {
		r.expect = c.expect(ef)
	}
	return true
}

// byLine lists a mapping's members in file order.
func byLine(m map[string]field) []field {
	fs := make([]field, 0, len(m))
	for _, f := range m {
		fs = append(fs, f)
	}
	slices.SortFunc(fs, func(a, b field) int {
		if a.key.Line != b.key.Line {
			return a.key.Line - b.key.Line
		}
		return a.key.Column - b.key.Column
	})
	return fs
}
