package scaffold

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// step is one request of the scenario init writes.
type step struct {
	method   string // get, post, put, patch or delete
	url      string // relative to the base URL, with {{ name }} templates
	json     *yaml.Node
	body     string
	expect   int
	captures []capture
	notes    []string // comments above the step
}

// capture takes a value of the step's JSON response, at path, as name.
type capture struct{ path, as string }

// idValue is where a value of an earlier JSON response was found.
type idValue struct {
	step int    // the step whose response held it
	path string // its JSONPath there
	key  string // the key it was under
}

// methods are the requests the scenario subset sends.
var methods = []string{"get", "post", "put", "patch", "delete"}

var (
	uuidRe   = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	digitsRe = regexp.MustCompile(`^[0-9]+$`)
	identRe  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// recorder turns a recording into steps: each request a step, and each
// id an earlier JSON response held, named again by a later request's
// URL or JSON body, a capture of that response and a {{ name }} there.
type recorder struct {
	steps   []*step
	seen    map[string]idValue // value → where it was found first
	named   map[idValue]string // a captured value → its capture's name
	skipped []string
}

// record makes the steps of xs, the recording's requests to the target,
// whose URLs are taken relative to base.
func record(xs []exchange, base *url.URL) *recorder {
	r := &recorder{seen: map[string]idValue{}, named: map[idValue]string{}}
	prefix := strings.TrimSuffix(base.Path, "/")
	for _, x := range xs {
		m := strings.ToLower(x.method)
		where := x.method + " " + x.url.Path
		switch {
		case !slices.Contains(methods, m):
			r.skipped = append(r.skipped, where+" (the scenario format sends GET, POST, PUT, PATCH and DELETE)")
			continue
		case x.status == 0:
			r.skipped = append(r.skipped, where+" (it got no response)")
			continue
		}
		s := &step{method: m, expect: x.status}
		if x.status == 304 {
			s.expect = 200
			s.notes = append(s.notes, "Recorded 304 (the browser's cache); without the browser's headers the server answers 200.")
		}
		path := strings.TrimPrefix(x.url.EscapedPath(), prefix)
		s.url = r.template(s, path, x.url.RawQuery)
		r.body(s, x)
		r.steps = append(r.steps, s)
		r.harvest(len(r.steps)-1, x.response)
	}
	return r
}

// template is path?query with each segment and query value an earlier
// response held as a {{ name }}; an id-like segment none held is noted.
func (r *recorder) template(s *step, path, query string) string {
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		v, err := url.PathUnescape(seg)
		if err != nil || v == "" {
			continue
		}
		if name, ok := r.use(v); ok {
			segs[i] = "{{ " + name + " }}"
		} else if digitsRe.MatchString(v) || uuidRe.MatchString(v) {
			s.notes = append(s.notes, fmt.Sprintf("%s in the URL looks like an id that no earlier JSON response of the recording held: "+
				"it stays as recorded (a capture from an earlier step makes it vary).", v))
		}
	}
	out := strings.Join(segs, "/")
	if query == "" {
		return out
	}
	pairs := strings.Split(query, "&")
	for i, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		uv, err := url.QueryUnescape(v)
		if !ok || err != nil {
			continue
		}
		if name, ok := r.use(uv); ok {
			pairs[i] = k + "={{ " + name + " }}"
		}
	}
	return out + "?" + strings.Join(pairs, "&")
}

// body sets the step's body: JSON as a json: mapping whose id-like
// values an earlier response held become {{ name }}, else the text.
func (r *recorder) body(s *step, x exchange) {
	if !x.jsonBody {
		s.body = x.body
		return
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(x.body), &doc); err != nil || len(doc.Content) == 0 {
		s.body = x.body
		return
	}
	s.json = doc.Content[0]
	walk(s.json, "$", "", func(n *yaml.Node, _, key string) {
		if !idKey(key) {
			return
		}
		if name, ok := r.use(n.Value); ok {
			n.Tag, n.Style, n.Value = "!!str", yaml.DoubleQuotedStyle, "{{ "+name+" }}"
		}
	})
}

// use is the capture name of a value an earlier response held, the
// capture added to that response's step the first time it is used.
func (r *recorder) use(v string) (string, bool) {
	at, ok := r.seen[v]
	if !ok {
		return "", false
	}
	if name, ok := r.named[at]; ok {
		return name, true
	}
	name := captureName(at.key)
	for n := 2; slices.ContainsFunc(r.allCaptures(), func(c capture) bool { return c.as == name }); n++ {
		name = captureName(at.key) + "_" + strconv.Itoa(n)
	}
	r.named[at] = name
	st := r.steps[at.step]
	st.captures = append(st.captures, capture{path: at.path, as: name})
	return name, true
}

func (r *recorder) allCaptures() []capture {
	var out []capture
	for _, s := range r.steps {
		out = append(out, s.captures...)
	}
	return out
}

// harvest notes the ids of step i's JSON response: the values under an
// id-like key and the UUIDs. The first response that held a value is
// where it is captured (the one that made it; later ones echo it).
func (r *recorder) harvest(i int, response string) {
	if response == "" {
		return
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(response), &doc); err != nil || len(doc.Content) == 0 {
		return
	}
	walk(doc.Content[0], "$", "", func(n *yaml.Node, path, key string) {
		_, known := r.seen[n.Value]
		if known || n.Value == "" || n.Tag != "!!int" && n.Tag != "!!str" || !idKey(key) && !uuidRe.MatchString(n.Value) {
			return
		}
		r.seen[n.Value] = idValue{step: i, path: path, key: key}
	})
}

// walk calls visit on every scalar below n with its JSONPath and the key
// it is under ("" in a list); keys a JSONPath of the subset cannot name
// are passed over.
func walk(n *yaml.Node, path, key string, visit func(n *yaml.Node, path, key string)) {
	switch n.Kind {
	case yaml.ScalarNode:
		visit(n, path, key)
	case yaml.SequenceNode:
		for i, c := range n.Content {
			walk(c, fmt.Sprintf("%s[%d]", path, i), "", visit)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			switch {
			case identRe.MatchString(k):
				walk(n.Content[i+1], path+"."+k, k, visit)
			case !strings.ContainsAny(k, `'\`):
				walk(n.Content[i+1], path+"['"+k+"']", k, visit)
			}
		}
	}
}

// idKey reports whether a JSON key names an id: id, uuid, guid, or
// ending in _id, -id, Id or ID.
func idKey(k string) bool {
	low := strings.ToLower(k)
	switch {
	case low == "id" || low == "uuid" || low == "guid":
		return true
	case strings.HasSuffix(low, "_id") || strings.HasSuffix(low, "-id") || strings.HasSuffix(low, "_uuid"):
		return true
	}
	return len(k) > 2 && (strings.HasSuffix(k, "Id") || strings.HasSuffix(k, "ID"))
}

// captureName is a capture's name from the key its value was under.
func captureName(key string) string {
	name := strings.Map(func(c rune) rune {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return c
		}
		return '_'
	}, key)
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		name = "id_" + name
	}
	return strings.TrimSuffix(name, "_")
}
