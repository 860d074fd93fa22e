package scenario

// The JSON scanner under the captures: it finds one value in a response
// body without decoding the rest, in the manner of load/builtin's
// topLevelID, because it runs on every response a capture reads.

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
