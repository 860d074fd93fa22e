package scenario

import (
	"errors"
	"testing"
)

// FuzzParse feeds Parse arbitrary files: it must not panic, a file it
// refuses must be refused as Errors of *Error at a line, and a file it
// accepts must run an iteration.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{orders, crud, flowOf("      - get: {url: \"/a/{{ $randomString(3) }}\", headers: {A: b}}\n"),
		"scenarios:\n  - flow:\n      - post: {url: /a, json: [1, {b: \"{{ $uuid }}\"}], capture: [{header: Location, as: l}]}\n      - get: {url: \"{{ l }}\"}\n",
		"config: &a {variables: {x: 1}}\nscenarios: [{flow: [{get: {url: /}}, *a]}]\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse("f.yaml", []byte(src))
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("Parse error %T %v: want Errors", err, err)
			}
			for _, e := range es {
				if e.File != "f.yaml" || e.Msg == "" {
					t.Fatalf("error %+v", e)
				}
			}
			return
		}
		if len(s.flows) == 0 {
			t.Fatal("a script without scenarios")
		}
		d := &cannedDoer{created: []byte(`{"id": 1}`), ok: []byte(`{}`)}
		if err := s.NewVU(0, 1, s.NewSamples()).Iterate(t.Context(), d, nopRecorder{}); err != nil {
			t.Fatal(err)
		}
	})
}
