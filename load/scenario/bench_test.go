package scenario

import (
	"testing"
)

// cannedDoer answers at once from memory, so that a benchmark measures the
// package's own work per request.
type cannedDoer struct{ created, ok []byte }

func (d *cannedDoer) Do(req *Request, resp *Response) error {
	switch req.Method {
	case "POST":
		resp.Status, resp.Body = 201, append(resp.Body[:0], d.created...)
	case "DELETE":
		resp.Status, resp.Body = 204, resp.Body[:0]
	default:
		resp.Status, resp.Body = 200, append(resp.Body[:0], d.ok...)
	}
	return nil
}

type nopRecorder struct{}

func (nopRecorder) Record(Outcome) {}

// BenchmarkIterate is one iteration of the order flow (five requests and a
// zero think) against an in-memory Doer: rendering, checks and captures.
func BenchmarkIterate(b *testing.B) {
	s := mustParse(b, orders)
	d := &cannedDoer{created: []byte(`{"order_id": 17, "customer": "c3", "total": 42}`), ok: []byte(`{"order_id": 17, "total": 5}`)}
	v := s.NewVU(0, 1)
	// The zero think still asks the context, as a real one would.
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Iterate(ctx, d, nopRecorder{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderJSON renders a json: body with a capture, a variable and
// three functions.
func BenchmarkRenderJSON(b *testing.B) {
	s := mustParse(b, `config: {variables: {customer: c3}}
scenarios:
  - flow:
      - post: {url: /a, capture: {json: $.id, as: id}}
      - post:
          url: "/a/{{ id }}"
          json: {id: "{{ id }}", customer: "{{ customer }}", total: "{{ $randomNumber(1, 100) }}", key: "{{ $uuid }}", note: "vu {{ $vu }} #{{ $iteration }}"}
`)
	v := s.NewVU(0, 1)
	v.vals[0] = value{b: []byte("17"), num: true, set: true}
	st := &s.flows[0].steps[1]
	b.ReportAllocs()
	for b.Loop() {
		v.hasUUID = false
		v.render(st)
	}
}
