package sweep

import (
	"regexp"
	"strconv"
	"strings"
)

// Axis is an extra dimension of the grid: an environment variable of the
// target (Service empty) or of another service of the stack, with the
// values to try. Each value multiplies the grid.
type Axis struct {
	Service string   `json:"service,omitempty"`
	Name    string   `json:"name"`
	Values  []string `json:"values"`
}

// Key is the axis as given: NAME or SERVICE:NAME.
func (a Axis) Key() string {
	if a.Service == "" {
		return a.Name
	}
	return a.Service + ":" + a.Name
}

// Variant is a whole stack to compare (e.g. the same API in two
// languages): its own compose files, swapped in for its cells.
type Variant struct {
	Name  string   `json:"name"`
	Files []string `json:"files"`
}

// Extras are the values of the extra axes that one cell has.
type Extras struct {
	// Variant is the stack variant; empty when there are none.
	Variant string
	// Load is the load level; nil means the spec's --load.
	Load *LoadSpec
	// Memory is the target's memory limit as given (256m, 1g); empty: none.
	Memory string
	// Env holds the axis values by axis key (NAME or SERVICE:NAME).
	Env map[string]string
}

var (
	envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	serviceRe = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]*$`)
	memoryRe  = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?[bkmg]?$`)
	safeRe    = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
)

// ParseAxis parses --axis NAME=v1,v2 or SERVICE:NAME=v1,v2.
func ParseAxis(text string) (Axis, error) {
	key, vals, ok := strings.Cut(text, "=")
	if !ok || vals == "" {
		return Axis{}, BadInput("axes", "%q is not NAME=v1,v2 or SERVICE:NAME=v1,v2", text)
	}
	var a Axis
	if svc, name, ok := strings.Cut(key, ":"); ok {
		a.Service, a.Name = svc, name
		if !serviceRe.MatchString(svc) {
			return Axis{}, BadInput("axes", "%q is not a compose service name", svc)
		}
	} else {
		a.Name = key
	}
	if !envNameRe.MatchString(a.Name) {
		return Axis{}, BadInput("axes", "%q is not an environment variable name", a.Name)
	}
	for _, v := range strings.Split(vals, ",") {
		if v == "" || strings.ContainsAny(v, "\n\r\x00") {
			return Axis{}, BadInput("axes", "%q: values must be non-empty and on one line", text)
		}
		a.Values = append(a.Values, v)
	}
	return a, nil
}

// ParseVariant parses --variant NAME=FILE[+FILE…].
func ParseVariant(text string) (Variant, error) {
	name, files, ok := strings.Cut(text, "=")
	if !ok || files == "" || !envNameRe.MatchString(strings.ReplaceAll(name, "-", "_")) {
		return Variant{}, BadInput("variants", "%q is not NAME=FILE (compose files joined with +)", text)
	}
	return Variant{Name: name, Files: strings.Split(files, "+")}, nil
}

// ParseMemory checks a memory limit such as 256m or 1g.
func ParseMemory(text string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(text))
	if !memoryRe.MatchString(v) {
		return "", BadInput("memory", "%q is not a memory size such as 256m or 1g", text)
	}
	if b, _ := MemoryBytes(v); b < 6<<20 {
		return "", BadInput("memory", "%q is below Docker's minimum of 6m", text)
	}
	return v, nil
}

// MemoryBytes converts a memory size (256m, 1g, 1024k, 512) to bytes.
func MemoryBytes(v string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "k"):
		mult, v = 1<<10, strings.TrimSuffix(v, "k")
	case strings.HasSuffix(v, "m"):
		mult, v = 1<<20, strings.TrimSuffix(v, "m")
	case strings.HasSuffix(v, "g"):
		mult, v = 1<<30, strings.TrimSuffix(v, "g")
	default:
		v = strings.TrimSuffix(v, "b")
	}
	f, err := strconv.ParseFloat(v, 64)
	return int64(f * float64(mult)), err
}

// ParseLoadLevels parses --load-levels vus=100,500,1000 or rate=200,400:
// one model, increasing levels.
func ParseLoadLevels(text string) ([]LoadSpec, error) {
	key, vals, ok := strings.Cut(text, "=")
	if !ok {
		return nil, BadInput("load_levels", "%q is not vus=N1,N2… or rate=R1,R2…", text)
	}
	var out []LoadSpec
	for _, v := range strings.Split(vals, ",") {
		l, err := ParseLoad(key + "=" + strings.TrimSpace(v))
		if err != nil {
			return nil, BadInput("load_levels", "%s", err.(*BadInputError).Msg)
		}
		if n := len(out); n > 0 && l.level() <= out[n-1].level() {
			return nil, BadInput("load_levels", "levels must increase: %s", vals)
		}
		out = append(out, l)
	}
	return out, nil
}

// level is the number a load spec sets.
func (l LoadSpec) level() float64 { return l.Rate + l.VUsPerWeb + float64(l.VUs) }

// suffix is the part of a cell id the extras add, e.g.
// "__mem_256m__pgbouncer-POOL_MODE_session__vus_100__variant_go".
func (x Extras) suffix(axes []Axis) string {
	var b strings.Builder
	if x.Memory != "" {
		b.WriteString("__mem_" + x.Memory)
	}
	for _, a := range axes {
		key := strings.ReplaceAll(a.Key(), ":", "-")
		b.WriteString("__" + key + "_" + safeRe.ReplaceAllString(x.Env[a.Key()], "-"))
	}
	if x.Load != nil {
		b.WriteString("__" + strings.ReplaceAll(x.Load.String(), "=", "_"))
	}
	if x.Variant != "" {
		b.WriteString("__variant_" + safeRe.ReplaceAllString(x.Variant, "-"))
	}
	return b.String()
}

// combos lists every combination of the extra axes in a fixed order:
// variant, load level, memory, then the env axes as given.
func (s Spec) combos() []Extras {
	out := []Extras{{}}
	expand := func(n int, set func(x *Extras, i int)) {
		if n == 0 {
			return
		}
		var next []Extras
		for _, x := range out {
			for i := 0; i < n; i++ {
				y := x
				y.Env = copyEnv(x.Env)
				set(&y, i)
				next = append(next, y)
			}
		}
		out = next
	}
	expand(len(s.Variants), func(x *Extras, i int) { x.Variant = s.Variants[i].Name })
	expand(len(s.LoadLevels), func(x *Extras, i int) { l := s.LoadLevels[i]; x.Load = &l })
	expand(len(s.Memory), func(x *Extras, i int) { x.Memory = s.Memory[i] })
	for _, a := range s.Axes {
		expand(len(a.Values), func(x *Extras, i int) {
			if x.Env == nil {
				x.Env = map[string]string{}
			}
			x.Env[a.Key()] = a.Values[i]
		})
	}
	return out
}

func copyEnv(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
