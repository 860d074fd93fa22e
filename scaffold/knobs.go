package scaffold

import (
	"slices"
	"strconv"
	"strings"
)

// word is a part of a variable's name that makes it a knob, with how
// strongly.
type word struct {
	text   string
	weight int
}

// The words of the names of web-thread and pool variables, the stronger
// first; a name with both kinds of word (THREAD_POOL_SIZE) sets threads.
var (
	webWords  = []word{{"THREAD", 3}, {"WORKER", 3}, {"CONCURRENCY", 3}, {"CHILDREN", 2}, {"PROCESSES", 2}, {"PROCS", 1}}
	poolWords = []word{{"POOL", 3}, {"MAX_CONNECTIONS", 2}, {"CONN", 1}}
	// a name with one of these parts is a timeout, a lower bound or a
	// port, not a size
	notKnobParts = []string{"TIMEOUT", "IDLE", "MIN", "MINIMUM", "TTL", "LIFETIME", "PORT", "RETRY", "RETRIES",
		"WAIT", "INTERVAL", "DELAY", "AGE"}
	// parts that make a knob the more likely one of its kind
	webHints  = []string{"WEB", "HTTP", "SERVER"}
	poolHints = []string{"DB", "DATABASE", "PG", "SQL", "HIKARI"}
)

// knob is a variable init takes for the web threads or the pool.
type knob struct {
	service string // the service that has it
	name    string
	value   string // its value today, an integer
	word    string // the word of its name that made it a knob
	score   int
}

// webScore says how much name looks like a web-thread variable (0: not
// at all), and by which word.
func webScore(name string) (int, string) {
	return score(name, webWords, webHints)
}

// poolScore is webScore for a pool variable.
func poolScore(name string) (int, string) {
	if n, _ := webScore(name); n > 0 {
		return 0, ""
	}
	return score(name, poolWords, poolHints)
}

func score(name string, words []word, hints []string) (int, string) {
	up := strings.ToUpper(name)
	parts := strings.FieldsFunc(up, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for _, p := range parts {
		if slices.Contains(notKnobParts, p) {
			return 0, ""
		}
	}
	for _, w := range words {
		if !strings.Contains(up, w.text) {
			continue
		}
		n := w.weight
		for _, h := range hints {
			if slices.Contains(parts, h) {
				n++
				break
			}
		}
		return n, w.text
	}
	return 0, ""
}

// knobsOf are the variables of s that are knobs by their name (by) and
// an integer value, the likeliest first.
func knobsOf(s service, by func(string) (int, string)) []knob {
	var out []knob
	for _, e := range s.env {
		n, w := by(e.name)
		if v, err := strconv.Atoi(strings.TrimSpace(e.value)); n == 0 || !e.known || err != nil || v < 1 {
			continue
		}
		out = append(out, knob{service: s.name, name: e.name, value: strings.TrimSpace(e.value), word: w, score: n})
	}
	slices.SortStableFunc(out, func(a, b knob) int { return b.score - a.score })
	return out
}

// names are the knobs' names, for "others: ...".
func names(ks []knob) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.name
	}
	return out
}
