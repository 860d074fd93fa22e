package scenario

// Captured is a value a step captured, as a trace shows it: the name
// later steps use, and the value as they would get it (a string's text,
// a number's or other JSON value's as written); OK is false when the
// capture found nothing.
type Captured struct {
	Name  string
	Value string
	OK    bool
}

// Captured appends to dst the captures of the step whose outcome was
// recorded last (during or after Record), in the step's order; a step
// without captures, or a skipped one, appends none that are OK.
func (v *VU) Captured(dst []Captured) []Captured {
	if v.last == nil {
		return dst
	}
	for _, c := range v.last.captures {
		val := &v.vals[c.slot]
		dst = append(dst, Captured{Name: v.s.captures[c.slot], Value: string(val.b), OK: val.set})
	}
	return dst
}
