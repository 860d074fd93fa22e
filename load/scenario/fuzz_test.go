package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzParse feeds Parse arbitrary files: it must not panic, a file it
// refuses must be refused as Errors of *Error at a line, and a file it
// accepts must run an iteration.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{orders, crud, flowOf("      - get: {url: \"/a/{{ $randomString(3) }}\", headers: {A: b}}\n"),
		"scenarios:\n  - flow:\n      - post: {url: /a, json: [1, {b: \"{{ $uuid }}\"}], capture: [{header: Location, as: l}]}\n      - get: {url: \"{{ l }}\"}\n",
		"config: &a {variables: {x: 1}}\nscenarios: [{flow: [{get: {url: /}}, *a]}]\n",
		"config: {variables: {q: 'a \"b'}}\nscenarios: [{flow: [{put: {url: '/a b/{{ q }}', json: {'k\"': 'v\\\\ {{ q }}', n: '{{ q }}'}}}]}]\n"} {
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
		d := checkingDoer{t: t, d: &cannedDoer{created: []byte(`{"id": 1}`), ok: []byte(`{}`)}}
		if err := s.NewVU(0, 1).Iterate(t.Context(), d, nopRecorder{}); err != nil {
			t.Fatal(err)
		}
	})
}

// checkingDoer fails the test on a request a server could not read: a
// json: body that is not JSON, a path or header with a control byte or a
// space.
type checkingDoer struct {
	t *testing.T
	d Doer
}

func (c checkingDoer) Do(req *Request, resp *Response) error {
	if req.ContentType == "application/json" && !json.Valid(req.Body) {
		c.t.Fatalf("json body %q is not JSON", req.Body)
	}
	if i := bytes.IndexFunc(req.Path, func(r rune) bool { return r <= ' ' || r >= 0x7f }); i >= 0 || len(req.Path) == 0 || req.Path[0] != '/' {
		c.t.Fatalf("path %q", req.Path)
	}
	for _, h := range req.Headers {
		if bytes.ContainsAny(h.Value, "\r\n") {
			c.t.Fatalf("header %s: %q", h.Name, h.Value)
		}
	}
	return c.d.Do(req, resp)
}
