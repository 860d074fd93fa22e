package metrics

import (
	"net/url"
	"strings"
)

// redacted replaces a password wherever a DSN is shown.
const redacted = "xxxxx"

// RedactDSN returns dsn with its password replaced, for error messages and
// logs. It handles the URL form (postgres://user:pw@host/db?password=pw)
// and the keyword/value form (host=h password='p w'); anything else is
// returned with everything between "://" and the last "@" of the
// authority reduced to the user name.
func RedactDSN(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return redactURL(dsn)
	}
	return redactKeywords(dsn)
}

func redactURL(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return redactAuthority(dsn)
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), redacted)
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", redacted)
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// redactAuthority handles URLs that do not parse, such as a password with
// an unescaped '/' or '#'.
func redactAuthority(dsn string) string {
	scheme, rest, _ := strings.Cut(dsn, "://")
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return dsn
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return dsn
	}
	return scheme + "://" + user + ":" + redacted + rest[at:]
}

// redactKeywords rewrites the value of every password keyword in a
// libpq keyword/value string, whose values may be single-quoted with
// backslash escapes.
func redactKeywords(dsn string) string {
	var b strings.Builder
	i := 0
	for i < len(dsn) {
		key, valStart, valEnd := nextKeyword(dsn, i)
		if valStart < 0 {
			b.WriteString(dsn[i:])
			break
		}
		b.WriteString(dsn[i:valStart])
		if strings.TrimSpace(key) == "password" {
			b.WriteString(redacted)
		} else {
			b.WriteString(dsn[valStart:valEnd])
		}
		i = valEnd
	}
	return b.String()
}

// nextKeyword finds the keyword starting at or after i and the span of
// its value; valStart is -1 when no "key=value" follows.
func nextKeyword(s string, i int) (key string, valStart, valEnd int) {
	eq := strings.IndexByte(s[i:], '=')
	if eq < 0 {
		return "", -1, -1
	}
	key = strings.TrimSpace(s[i : i+eq])
	j := i + eq + 1
	for j < len(s) && s[j] == ' ' {
		j++
	}
	valStart, valEnd = j, j
	if j < len(s) && s[j] == '\'' {
		valEnd = j + 1
		for valEnd < len(s) && s[valEnd] != '\'' {
			if s[valEnd] == '\\' {
				valEnd++
			}
			valEnd++
		}
		return key, valStart, min(valEnd+1, len(s))
	}
	for valEnd < len(s) && s[valEnd] != ' ' {
		valEnd++
	}
	return key, valStart, valEnd
}
