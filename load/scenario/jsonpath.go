package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// jsonPath is a compiled JSONPath of the subset captures take: "$" (the
// whole body), then any number of ".key", "['key']" (or ["key"]) and
// "[N]" (N >= 0). No wildcards, slices, filters or "..": a capture names
// one value, which must be a string or a number.
type jsonPath []pathElem

type pathElem struct {
	key   string
	index int // -1 for a key
}

// compilePath parses s, or says where it leaves the subset.
func compilePath(s string) (jsonPath, error) {
	rest, ok := strings.CutPrefix(s, "$")
	if !ok {
		return nil, fmt.Errorf("%q: a JSONPath starts with $", s)
	}
	var p jsonPath
	for rest != "" {
		at := len(s) - len(rest)
		var e pathElem
		var err error
		switch rest[0] {
		case '.':
			e, rest, err = dotKey(rest[1:])
		case '[':
			e, rest, err = bracket(rest[1:])
		default:
			err = fmt.Errorf("unexpected %q", rest[0])
		}
		if err != nil {
			return nil, fmt.Errorf("%q at %d: %w (the subset is $, .key, ['key'] and [N])", s, at, err)
		}
		p = append(p, e)
	}
	return p, nil
}

func dotKey(s string) (pathElem, string, error) {
	n := 0
	for n < len(s) && s[n] != '.' && s[n] != '[' {
		if c := s[n]; c == '*' || c == '?' || c == '@' || c == '(' || c == ' ' {
			return pathElem{}, "", fmt.Errorf("%q in a key", c)
		}
		n++
	}
	if n == 0 {
		return pathElem{}, "", fmt.Errorf(". without a key")
	}
	return pathElem{key: s[:n], index: -1}, s[n:], nil
}

func bracket(s string) (pathElem, string, error) {
	if s != "" && (s[0] == '\'' || s[0] == '"') {
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 || !strings.HasPrefix(s[end+2:], "]") {
			return pathElem{}, "", fmt.Errorf("unclosed [%c", s[0])
		}
		return pathElem{key: s[1 : end+1], index: -1}, s[end+3:], nil
	}
	inner, rest, ok := strings.Cut(s, "]")
	n, err := strconv.Atoi(inner)
	if !ok || err != nil || n < 0 || strings.HasPrefix(inner, "+") {
		return pathElem{}, "", fmt.Errorf("[%s: an index is [N] with N >= 0", inner)
	}
	return pathElem{index: n}, rest, nil
}

// extract finds the path's value in the JSON document b and appends it to
// dst: a string unescaped, a number as written. ok is false when the path
// is not there or names something else (an object, an array, true, null).
func (p jsonPath) extract(dst, b []byte) (v []byte, num, ok bool) {
	i := skipSpace(b, 0)
	for _, e := range p {
		if e.index < 0 {
			i = member(b, i, e.key)
		} else {
			i = element(b, i, e.index)
		}
		if i < 0 {
			return dst, false, false
		}
	}
	end, ok := valueEnd(b, i)
	switch {
	case !ok:
		return dst, false, false
	case b[i] == '"':
		return unquote(dst, b[i:end])
	case b[i] == '-' || b[i] >= '0' && b[i] <= '9':
		return append(dst, b[i:end]...), true, true
	}
	return dst, false, false
}

// unquote appends the content of the JSON string q (quotes included).
func unquote(dst, q []byte) ([]byte, bool, bool) {
	if bytes.IndexByte(q, '\\') < 0 {
		return append(dst, q[1:len(q)-1]...), false, true
	}
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return dst, false, false
	}
	return append(dst, s...), false, true
}

// member returns the start of the value of key in the object at b[i], or -1.
func member(b []byte, i int, key string) int {
	if i >= len(b) || b[i] != '{' {
		return -1
	}
	for i = skipSpace(b, i+1); i < len(b) && b[i] == '"'; {
		end, ok := valueEnd(b, i)
		if !ok {
			return -1
		}
		k := b[i+1 : end-1]
		if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
			return -1
		}
		i = skipSpace(b, i+1)
		if keyIs(k, key) {
			return i
		}
		if i = next(b, i); i < 0 {
			return -1
		}
	}
	return -1
}

// keyIs compares a raw (escaped) key with key.
func keyIs(raw []byte, key string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == key
	}
	var s string
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	return json.Unmarshal(q, &s) == nil && s == key
}

// element returns the start of the n-th value of the array at b[i], or -1.
func element(b []byte, i, n int) int {
	if i >= len(b) || b[i] != '[' {
		return -1
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return -1
	}
	for ; n > 0; n-- {
		if i = next(b, i); i < 0 {
			return -1
		}
	}
	return i
}

// next skips the value at b[i] and its comma, returning the start of the
// following member or element; -1 at the closing bracket or on bad JSON.
func next(b []byte, i int) int {
	end, ok := valueEnd(b, i)
	if !ok {
		return -1
	}
	i = skipSpace(b, end)
	if i >= len(b) || b[i] != ',' {
		return -1 // the closing bracket (the value is not there) or bad JSON
	}
	return skipSpace(b, i+1)
}

// The JSON scanner under the captures: it finds one value in a response
// body without decoding the rest, because it runs on every response a
// capture reads.

// valueEnd returns the index just past the JSON value that starts at
// b[i]; ok is false when none does or it is not closed.
func valueEnd(b []byte, i int) (end int, ok bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return stringEnd(b, i)
	case c == '{' || c == '[':
		return nestedEnd(b, i)
	case c == '-' || c >= '0' && c <= '9':
		return numberEnd(b, i)
	case c == 't':
		return wordEnd(b, i, "true")
	case c == 'f':
		return wordEnd(b, i, "false")
	case c == 'n':
		return wordEnd(b, i, "null")
	}
	return 0, false
}

// stringEnd returns the index just past the string that opens at b[i].
func stringEnd(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// nestedEnd skips an object or array, counting brackets outside strings.
func nestedEnd(b []byte, i int) (int, bool) {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, ok := stringEnd(b, j)
			if !ok {
				return 0, false
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}

func numberEnd(b []byte, i int) (int, bool) {
	j, digits := i, 0
	for ; j < len(b); j++ {
		c := b[j]
		if c >= '0' && c <= '9' {
			digits++
			continue
		}
		if c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			break
		}
	}
	return j, digits > 0
}

func wordEnd(b []byte, i int, w string) (int, bool) {
	if len(b)-i < len(w) || string(b[i:i+len(w)]) != w {
		return 0, false
	}
	return i + len(w), true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
