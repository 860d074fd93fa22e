package scenario

import (
	"testing"

	"github.com/sweep-tool/sweep/k6scripts"
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

// BenchmarkIterateDemo is one iteration of the demo's CRUD (36 requests)
// against an in-memory Doer: the package's share of the built-in driver's
// CPU per request on the demo, which is this divided by 36.
func BenchmarkIterateDemo(b *testing.B) {
	s, err := Parse(k6scripts.DemoCRUDFile, k6scripts.DemoCRUD)
	if err != nil {
		b.Fatal(err)
	}
	doc := []byte(`{"resourceType":"Encounter","id":"r42","meta":{"versionId":"1","lastUpdated":"2024-01-01T00:00:00Z"},"status":"in-progress","subject":{"reference":"Patient/r1"}}`)
	d := &cannedDoer{created: doc, ok: doc}
	v := s.NewVU(1, 1)
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Iterate(ctx, d, nopRecorder{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(36*b.N), "ns/req")
}
