package scenario

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
