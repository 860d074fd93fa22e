package sweep

import "strings"

// LoadPlaceKey is the name a Place entry gives the load instead of a
// service: load=node.id==<id> runs the load on that node.
const LoadPlaceKey = "load"

// LoadPlace is the constraints of the load=CONSTRAINT entries of Place:
// where the load's one-shot services run; none runs the load in sweep's
// own process.
func (s Spec) LoadPlace() []string {
	var out []string
	for _, e := range s.Place {
		if c, ok := strings.CutPrefix(e, LoadPlaceKey+"="); ok {
			out = append(out, c)
		}
	}
	return out
}

// StackPlace is the entries of Place that place services of the stack:
// all but the load's.
func (s Spec) StackPlace() []string {
	var out []string
	for _, e := range s.Place {
		if !strings.HasPrefix(e, LoadPlaceKey+"=") {
			out = append(out, e)
		}
	}
	return out
}
