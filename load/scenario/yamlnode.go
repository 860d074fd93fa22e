package scenario

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// parser walks a scenario file's YAML nodes, so every problem it reports
// carries the line and key it was found at. It collects the problems and
// goes on, so that one run names them all.
type parser struct {
	file string
	errs Errors
}

func (p *parser) fail(n *yaml.Node, key, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// field is one member of a mapping.
type field struct{ key, val *yaml.Node }

// artillery names the keys of Artillery's format that sweep's subset
// leaves out, and why, so that a file written for Artillery is told
// rather than half-run.
var artillery = map[string]string{
	"target":        "sweep's --url is the base URL",
	"phases":        "sweep's --load, --warmup and --duration set the load",
	"environments":  "sweep's --url is the base URL",
	"payload":       "CSV payloads are not supported; use config.variables",
	"defaults":      "default headers are not supported; set headers on each step",
	"processor":     "custom JavaScript is not supported",
	"plugins":       "plugins are not supported",
	"ensure":        "sweep's report judges the results",
	"engine":        "sweep speaks HTTP only",
	"loop":          "loops are not supported; write the steps out",
	"function":      "custom JavaScript is not supported",
	"log":           "log steps are not supported",
	"strict":        "every capture is strict: a failed one skips the steps that use it",
	"regexp":        "captures take json or header",
	"beforeRequest": "custom JavaScript is not supported",
	"afterResponse": "custom JavaScript is not supported",
}

// mapping returns the members of the mapping n by key; it reports a node
// that is not a mapping (as what), a key twice, and keys not in known
// (any key goes when known is empty).
func (p *parser) mapping(n *yaml.Node, key, what string, known ...string) map[string]field {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		p.fail(n, key, "must be %s", what)
		return nil
	}
	out := make(map[string]field, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		switch _, dup := out[k.Value]; {
		case dup:
			p.fail(k, k.Value, "given twice")
		case len(known) > 0 && !contains(known, k.Value):
			p.unknown(k, known)
		default:
			out[k.Value] = field{k, v}
		}
	}
	return out
}

func (p *parser) unknown(k *yaml.Node, known []string) {
	if why, ok := artillery[k.Value]; ok {
		p.fail(k, k.Value, "Artillery's %s is outside sweep's subset: %s", k.Value, why)
		return
	}
	p.fail(k, k.Value, "unknown key%s; the keys here are %s", suggest(k.Value, known), strings.Join(known, ", "))
}

func contains(list []string, s string) bool {
	for _, k := range list {
		if k == s {
			return true
		}
	}
	return false
}

// deref follows YAML aliases (Artillery files reuse steps through anchors)
// and unwraps a document.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && (n.Kind == yaml.AliasNode || n.Kind == yaml.DocumentNode) {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		} else if len(n.Content) > 0 {
			n = n.Content[0]
		} else {
			return nil
		}
	}
	return n
}

// scalar reports n's text when it is a scalar other than null.
func scalar(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", false
	}
	return n.Value, true
}

// str reads a string (any scalar but null: a header value may be 5).
func (p *parser) str(f field) (string, bool) {
	s, ok := scalar(f.val)
	if !ok {
		p.fail(f.val, f.key.Value, "must be a string")
	}
	return s, ok
}

// integer reads a YAML integer.
func (p *parser) integer(n *yaml.Node, key string) (int, bool) {
	if s, ok := scalar(n); ok && n.Tag == "!!int" {
		if v, err := strconv.ParseInt(s, 0, 32); err == nil {
			return int(v), true
		}
	}
	p.fail(n, key, "must be an integer")
	return 0, false
}

// number reads a finite YAML number.
func (p *parser) number(n *yaml.Node, key string) (float64, bool) {
	if s, ok := scalar(n); ok && (n.Tag == "!!int" || n.Tag == "!!float") {
		v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
		if err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			return v, true
		}
	}
	p.fail(n, key, "must be a number")
	return 0, false
}

// jsonNumber appends a YAML number as JSON writes it: YAML's 0x10, 1_000
// and +5 are not JSON, and .inf is not a number JSON has.
func (p *parser) jsonNumber(dst []byte, n *yaml.Node, key string) []byte {
	if n.Tag == "!!int" {
		if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
			return strconv.AppendInt(dst, v, 10)
		}
	}
	if v, ok := p.number(n, key); ok {
		return strconv.AppendFloat(dst, v, 'g', -1, 64)
	}
	return dst
}

// seq returns the items of a sequence; what names it in the message.
func (p *parser) seq(f field, what string) []*yaml.Node {
	if f.val == nil || f.val.Kind != yaml.SequenceNode {
		p.fail(f.val, f.key.Value, "must be %s", what)
		return nil
	}
	items := make([]*yaml.Node, len(f.val.Content))
	for i, n := range f.val.Content {
		items[i] = deref(n)
	}
	return items
}
