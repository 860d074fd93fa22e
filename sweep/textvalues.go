package sweep

import "strings"

// The spec's fields that are given as text, as values a flag package sets
// (String, Set and Type, pflag.Value's methods), each read by the spec's
// own parser.

// Numbers is a list of numbers > 0 (CPU limits, multipliers) set from
// "2,4,6"; a later Set replaces the earlier list, so a second "1" after a
// config file's list really means one value. Field names it in errors.
type Numbers struct {
	Field string
	Vals  *[]float64
}

func (l Numbers) String() string {
	if l.Vals == nil {
		return ""
	}
	parts := make([]string, len(*l.Vals))
	for i, v := range *l.Vals {
		parts[i] = FormatNumber(v)
	}
	return strings.Join(parts, ",")
}

// Set parses text with ParseNumberList and replaces the list.
func (l Numbers) Set(text string) error {
	v, err := ParseNumberList(l.Field, text)
	if err != nil {
		return err
	}
	*l.Vals = v
	return nil
}

// Type is what the value is, for help texts.
func (l Numbers) Type() string { return "numbers" }

// Share is a share such as 5% or 0.05 (Spec.Precision, the report's
// noise band), set with ParseShare; Field names it in errors.
type Share struct {
	Field string
	V     *float64
}

func (p Share) String() string {
	if p.V == nil {
		return ""
	}
	return FormatShare(*p.V)
}

// Set parses text with ParseShare.
func (p Share) Set(text string) error {
	v, err := ParseShare(p.Field, text)
	if err != nil {
		return err
	}
	*p.V = v
	return nil
}

// Type is what the value is, for help texts.
func (p Share) Type() string { return "share" }

// Repeat is a spec's repetitions: a number, or auto (SetRepeat).
type Repeat struct{ S *Spec }

func (r Repeat) String() string {
	if r.S == nil {
		return ""
	}
	return r.S.RepeatText()
}

// Set sets the spec's repetitions from text.
func (r Repeat) Set(text string) error { return r.S.SetRepeat(text) }

// Type is what the value is, for help texts.
func (r Repeat) Type() string { return "N|auto" }
