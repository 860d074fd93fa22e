package sweep

import "strings"

// Env is the process environment as the front end read it, once, at its
// edge (os.Environ's KEY=VALUE lines): library packages take an Env
// instead of reading the environment themselves, so what a run sees is
// what its caller handed it, and a test states it.
type Env []string

// Get is the value of key, the last one when it is set twice (as
// os.Getenv); "" when unset.
func (e Env) Get(key string) string {
	v, _ := e.Lookup(key)
	return v
}

// Lookup is the value of key and whether it is set (as os.LookupEnv).
func (e Env) Lookup(key string) (string, bool) {
	for i := len(e) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// With is e with the lines kv (KEY=VALUE) after it, so they win.
func (e Env) With(kv ...string) Env {
	return append(append(Env(nil), e...), kv...)
}

// Map is e as a map, the last value of a key winning.
func (e Env) Map() map[string]string {
	m := make(map[string]string, len(e))
	for _, line := range e {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}
