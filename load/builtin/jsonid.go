package builtin

// topLevelID returns the "id" member of the JSON object in b, ignoring
// members of nested objects (FHIR elements may carry ids of their own). It
// is a scanner rather than encoding/json because it runs on every create
// response; it accepts only ids that are valid FHIR ids
// ([A-Za-z0-9-.]{1,64}), which also makes them safe in a URL path.
func topLevelID(b []byte) (string, bool) {
	depth := 0
	for i := 0; i < len(b); {
		switch b[i] {
		case '"':
			end := stringEnd(b, i)
			if end < 0 {
				return "", false
			}
			if depth == 1 && string(b[i+1:end-1]) == "id" {
				if v, isKey, ok := memberValue(b, end); isKey {
					return v, ok
				}
			}
			i = end
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		i++
	}
	return "", false
}

// memberValue looks after a string that ends before b[i]: when it is a key
// (a colon follows), isKey is set and the string value is returned if it is
// a valid id.
func memberValue(b []byte, i int) (v string, isKey, ok bool) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return "", false, false
	}
	i = skipSpace(b, i+1)
	if i >= len(b) || b[i] != '"' {
		return "", true, false
	}
	end := stringEnd(b, i)
	if end < 0 || !validID(b[i+1:end-1]) {
		return "", true, false
	}
	return string(b[i+1 : end-1]), true, true
}

// stringEnd returns the index just past the string that opens at b[i], or
// -1 when it is not closed.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func validID(id []byte) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for _, c := range id {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}
