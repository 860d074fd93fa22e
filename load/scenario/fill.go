package scenario

import (
	"bytes"
	"strconv"
	"strings"
)

// capture reads the step's captures from v.resp; it returns ClassCapture
// when one found nothing (the others are still read).
func (v *VU) capture(st *step) string {
	class := ""
	for _, c := range st.captures {
		val := &v.vals[c.slot]
		if c.header != "" {
			val.b = v.headerValue(val.b[:0], c.header)
			val.num, val.set = false, len(val.b) > 0
		} else {
			val.b, val.num, val.set = c.path.extract(val.b[:0], v.resp.Body)
		}
		if !val.set {
			class = ClassCapture
		}
	}
	return class
}

// headerValue appends the response header name; an absolute URL (a
// Location may be one) is cut to its path, which a later url can use.
func (v *VU) headerValue(dst []byte, name string) []byte {
	for _, h := range v.resp.Headers {
		if !strings.EqualFold(h.Name, name) {
			continue
		}
		val := h.Value
		for _, scheme := range [...]string{"http://", "https://"} {
			if rest, ok := bytes.CutPrefix(val, []byte(scheme)); ok {
				if i := bytes.IndexByte(rest, '/'); i >= 0 {
					val = rest[i:]
				} else {
					val = []byte("/")
				}
			}
		}
		return append(dst, val...)
	}
	return dst
}

// fill appends the value of a slot.
func (v *VU) fill(dst []byte, s *seg) []byte {
	switch s.kind {
	case slotCapture:
		c := &v.vals[s.idx]
		return appendValue(dst, c.b, c.num, s.esc)
	case slotRandNum:
		return strconv.AppendInt(dst, s.a+v.rng.Int64N(s.b-s.a+1), 10)
	case slotRandStr:
		return v.quoted(dst, s.esc, func(dst []byte) []byte { return v.randomString(dst, int(s.a)) })
	case slotUUID:
		return v.quoted(dst, s.esc, v.appendUUID)
	case slotVU:
		return strconv.AppendInt(dst, v.id, 10)
	case slotIter:
		return strconv.AppendInt(dst, v.iter, 10)
	}
	return dst
}

// quoted writes a generated string, quoted where it is a whole JSON value
// (what it generates needs no escaping).
func (v *VU) quoted(dst []byte, esc escape, gen func([]byte) []byte) []byte {
	if esc != escJSONValue {
		return gen(dst)
	}
	return append(gen(append(dst, '"')), '"')
}

const alphanumeric = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// randomString appends n letters and digits, Artillery's alphabet; ten
// come from each 64-bit draw (62^10 < 2^64).
func (v *VU) randomString(dst []byte, n int) []byte {
	for n > 0 {
		x := v.rng.Uint64()
		for k := 0; k < 10 && n > 0; k, n = k+1, n-1 {
			dst = append(dst, alphanumeric[x%62])
			x /= 62
		}
	}
	return dst
}

// appendUUID appends the iteration's UUID (version 4), drawn on first use.
func (v *VU) appendUUID(dst []byte) []byte {
	if !v.hasUUID {
		hi, lo := v.rng.Uint64(), v.rng.Uint64()
		hi = hi&^0xf000 | 0x4000     // version 4
		lo = lo&^(0xc<<60) | 0x8<<60 // RFC 4122 variant
		var raw [16]byte
		for i := range 8 {
			raw[i], raw[8+i] = byte(hi>>(56-8*i)), byte(lo>>(56-8*i))
		}
		j := 0
		for i, b := range raw {
			if i == 4 || i == 6 || i == 8 || i == 10 {
				v.uuid[j] = '-'
				j++
			}
			v.uuid[j], v.uuid[j+1] = "0123456789abcdef"[b>>4], "0123456789abcdef"[b&15]
			j += 2
		}
		v.hasUUID = true
	}
	return append(dst, v.uuid[:]...)
}

// appendValue writes v where a slot of esc stands; num marks a JSON
// number, written bare as a whole JSON value.
func appendValue(dst, v []byte, num bool, esc escape) []byte {
	switch esc {
	case escURL:
		return appendURL(dst, v)
	case escHeader:
		return appendHeader(dst, v)
	case escJSONString:
		return appendJSONString(dst, v)
	case escJSONValue:
		if num {
			return append(dst, v...)
		}
		dst = append(dst, '"')
		dst = appendJSONString(dst, v)
		return append(dst, '"')
	}
	return append(dst, v...)
}

const hex = "0123456789ABCDEF"

// appendURL %-escapes the bytes a request-target cannot hold (controls,
// space, non-ASCII, "<>\^`{|}) and keeps the rest, '/', '?' and '&'
// included, so a captured Location or query string stays one.
func appendURL(dst, v []byte) []byte {
	for _, c := range v {
		if c <= ' ' || c >= 0x7f || urlUnsafe(c) {
			dst = append(dst, '%', hex[c>>4], hex[c&15])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

func urlUnsafe(c byte) bool {
	switch c {
	case '"', '<', '>', '\\', '^', '`', '{', '|', '}', '#':
		return true
	}
	return false
}

// appendHeader drops CR and LF, which would end the header.
func appendHeader(dst, v []byte) []byte {
	for _, c := range v {
		if c != '\r' && c != '\n' {
			dst = append(dst, c)
		}
	}
	return dst
}

// appendJSONString writes v as the inside of a JSON string.
func appendJSONString(dst, v []byte) []byte {
	for _, c := range v {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
