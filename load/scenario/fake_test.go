package scenario

import (
	"bytes"
	"strings"
	"testing"
)

// sent is a copy of a request a fake Doer got.
type sent struct {
	method, path, body, ctype string
	keepBody                  bool
	headers                   map[string]string
}

// reply is what a fake Doer answers.
type reply struct {
	status  int
	body    string
	headers map[string]string
	err     error
}

// fakeDoer answers from a function of the request, and keeps copies of
// the requests.
type fakeDoer struct {
	answer func(sent) reply
	got    []sent
}

func (f *fakeDoer) Do(req *Request, resp *Response) error {
	s := sent{method: req.Method, path: string(req.Path), ctype: req.ContentType, keepBody: req.KeepBody, headers: map[string]string{}}
	if req.Body != nil {
		s.body = string(req.Body)
	}
	for _, h := range req.Headers {
		s.headers[h.Name] = string(h.Value)
	}
	f.got = append(f.got, s)
	r := f.answer(s)
	if r.err != nil {
		return r.err
	}
	resp.Status, resp.Body, resp.Headers = r.status, append(resp.Body[:0], r.body...), resp.Headers[:0]
	for _, name := range req.KeepHeaders {
		if v, ok := r.headers[name]; ok {
			resp.Headers = append(resp.Headers, Header{Name: name, Value: []byte(v)})
		}
	}
	return nil
}

// outcomes is a Recorder that keeps every outcome.
type outcomes []Outcome

func (o *outcomes) Record(x Outcome) {
	x.Body = bytes.Clone(x.Body) // the VU reuses it
	*o = append(*o, x)
}

// classes lists the outcomes' classes, "ok" for a success.
func (o outcomes) classes() string {
	var b []string
	for _, x := range o {
		b = append(b, cmpOr(x.Class, "ok"))
	}
	return strings.Join(b, " ")
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func mustParse(t testing.TB, src string) *Script {
	t.Helper()
	s, err := Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// iterate runs one iteration of a fresh VU against d.
func iterate(t *testing.T, s *Script, d Doer) outcomes {
	t.Helper()
	var rec outcomes
	if err := s.NewVU(1, 1).Iterate(t.Context(), d, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}
