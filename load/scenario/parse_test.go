package scenario

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/k6scripts"
)

// orders is the order service's flow of the package comment.
const orders = `config:
  variables:
    customer: "c3"
scenarios:
  - name: orders
    weight: 1
    flow:
      - post:
          url: "/api/orders"
          json: {customer: "{{ customer }}", total: "{{ $randomNumber(1, 100) }}"}
          capture:
            - json: "$.order_id"
              as: id
          expect: 201
      - get:   {url: "/api/orders/{{ id }}", expect: 200}
      - patch: {url: "/api/orders/{{ id }}", json: {total: 5}, expect: 200}
      - get:   {url: "/api/customers/{{ customer }}/orders", name: "search"}
      - think: 0
      - delete: {url: "/api/orders/{{ id }}", expect: [{statusCode: 204}]}
`

func TestParseOps(t *testing.T) {
	t.Parallel()
	s, err := Parse("orders.yaml", []byte(orders))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"POST /api/orders", "GET /api/orders/:id", "PATCH /api/orders/:id", "search", "DELETE /api/orders/:id"}
	if !slices.Equal(s.Ops(), want) {
		t.Errorf("Ops() = %q, want %q", s.Ops(), want)
	}
	if got := s.Scenarios(); !slices.Equal(got, []string{"orders"}) {
		t.Errorf("Scenarios() = %q", got)
	}
}

func TestParseOfSourceIsTheSameScript(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, src, want string }{
		{"/home/u/load/orders.yaml", orders, "orders.yaml"},
		{k6scripts.DemoCRUDFile, string(k6scripts.DemoCRUD), filepath.Base(k6scripts.DemoCRUDFile)},
	} {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			data := []byte(tc.src)
			s, err := Parse(tc.file, data)
			if err != nil {
				t.Fatal(err)
			}
			data[0] = '#' // the caller's buffer is the caller's
			name, src := s.Source()
			if name != tc.want || string(src) != tc.src {
				t.Fatalf("Source() = %q, %d bytes; want %q and the %d bytes parsed", name, len(src), tc.want, len(tc.src))
			}
			again, err := Parse(name, src)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again.flows, s.flows) || !slices.Equal(again.ops, s.ops) ||
				again.total != s.total || !slices.Equal(again.captures, s.captures) {
				t.Errorf("Parse(Source()) compiled another script: ops %q, want %q", again.Ops(), s.Ops())
			}
		})
	}
}

// flowOf wraps steps (indented as flow items) into a file whose line 5 is
// the first step's.
func flowOf(steps string) string {
	return "config:\n  variables: {customer: c3}\nscenarios:\n  - flow:\n" + steps
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      []string // each a whole line of the error
	}{
		{"typo in a request key", flowOf(`      - post:
          url: /api/orders
          captur: {json: "$.id", as: id}
`), []string{"orders.yaml:7: captur: unknown key (did you mean capture?); the keys here are url, json, body, headers, capture, expect, name"}},
		{"malformed JSONPath", flowOf(`      - post: {url: /a, capture: {json: "$.[", as: id}}
`), []string{`orders.yaml:5: json: "$.[" at 1: . without a key (the subset is $, .key, ['key'] and [N])`}},
		{"JSONPath wildcard", flowOf(`      - post: {url: /a, capture: {json: "$.items[*].id", as: id}}
`), []string{`orders.yaml:5: json: "$.items[*].id" at 7: [*: an index is [N] with N >= 0 (the subset is $, .key, ['key'] and [N])`}},
		{"undefined template", flowOf(`      - get: {url: "/api/orders/{{ x }}"}
`), []string{"orders.yaml:5: url: {{ x }} is not defined: neither in config.variables nor captured by an earlier step of this flow"}},
		{"capture used before it is defined", flowOf(`      - get: {url: "/a/{{ id }}"}
      - post: {url: /a, capture: {json: $.id, as: id}}
`), []string{"orders.yaml:5: url: {{ id }} is used before it is captured (at line 6): a step may use only what an earlier step of its flow captured"}},
		{"capture of another scenario", "scenarios:\n  - flow:\n      - post: {url: /a, capture: {json: $.id, as: id}}\n  - flow:\n      - get: {url: \"/a/{{ id }}\"}\n",
			[]string{"orders.yaml:5: url: {{ id }} is not defined: neither in config.variables nor captured by an earlier step of this flow"}},
		{"unknown step", flowOf(`      - head: {url: /}
`), []string{"orders.yaml:5: head: unknown key; the keys here are get, post, put, patch, delete, think"}},
		{"two methods in a step", flowOf(`      - get: {url: /a}
        post: {url: /b}
`), []string{"orders.yaml:6: post: a step has one action, and this one has get too: start a new step with -"}},
		{"weight below 1", "scenarios:\n  - weight: 0\n    flow:\n      - get: {url: /}\n", []string{"orders.yaml:2: weight: must be at least 1"}},
		{"empty flow", "scenarios:\n  - name: a\n    flow: []\n", []string{"orders.yaml:3: flow: empty: a flow has at least one step"}},
		{"no scenarios", "config: {variables: {a: 1}}\n", []string{"orders.yaml:1: scenarios: missing: the file lists its scenarios under scenarios:"}},
		{"Artillery's target", "config:\n  target: http://x\nscenarios:\n  - flow: [{get: {url: /}}]\n",
			[]string{"orders.yaml:2: target: Artillery's target is outside sweep's subset: sweep's --url is the base URL"}},
		{"unknown function", flowOf(`      - get: {url: "/a/{{ $randomUUID }}"}
`), []string{"orders.yaml:5: url: {{ $randomUUID }}: unknown function (did you mean $uuid?); the functions are " + functions}},
		{"bad function arguments", flowOf(`      - get: {url: "/a/{{ $randomNumber(5, 1) }}"}
`), []string{"orders.yaml:5: url: {{ $randomNumber(5, 1) }}: write $randomNumber(min, max) with integers min <= max"}},
		{"unclosed template", flowOf(`      - get: {url: "/a/{{ id"}
`), []string{`orders.yaml:5: url: "{{ id": {{ without }}`}},
		{"absolute url", flowOf(`      - get: {url: "http://x/a"}
`), []string{`orders.yaml:5: url: "http://x/a" is not a path: a url is relative to sweep's --url and starts with /`}},
		{"json and body", flowOf(`      - post: {url: /a, json: {}, body: x}
`), []string{"orders.yaml:5: body: a step sends json or body, not both"}},
		{"status out of range", flowOf(`      - get: {url: /a, expect: 42}
`), []string{"orders.yaml:5: expect: 42 is not an HTTP status"}},
		{"expect with contentType", flowOf(`      - get: {url: /a, expect: [{contentType: json}]}
`), []string{"orders.yaml:5: contentType: unknown key; the keys here are statusCode"}},
		{"driver's header", flowOf(`      - get: {url: /a, headers: {Host: x}}
`), []string{"orders.yaml:5: Host: the driver sets this header"}},
		{"negative think", flowOf(`      - think: -1
`), []string{"orders.yaml:5: think: must be seconds between 0 and 3600"}},
		{"capture without as", flowOf(`      - get: {url: /a, capture: {json: $.id}}
`), []string{"orders.yaml:5: as: missing: a capture names its value with as"}},
		{"capture shadows a variable", flowOf(`      - get: {url: /a, capture: {json: $.id, as: customer}}
`), []string{`orders.yaml:5: as: "customer" is a config variable; capture into another name`}},
		{"duplicate key", flowOf(`      - get: {url: /a, url: /b}
`), []string{"orders.yaml:5: url: given twice"}},
		{"not YAML", "scenarios: [\n", []string{"orders.yaml:1: not YAML: did not find expected node content"}},
		{"empty file", "", []string{"orders.yaml:1: empty file: a scenario file holds config and scenarios"}},
		{"every problem at once", flowOf(`      - post:
          url: /api/orders
          captur: {json: "$.id", as: id}
      - get: {url: "/a/{{ x }}"}
`), []string{
			"orders.yaml:7: captur: unknown key (did you mean capture?); the keys here are url, json, body, headers, capture, expect, name",
			"orders.yaml:8: url: {{ x }} is not defined: neither in config.variables nor captured by an earlier step of this flow",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("orders.yaml", []byte(tc.src))
			if err == nil {
				t.Fatal("Parse: no error")
			}
			if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, tc.want) {
				t.Errorf("Parse error:\n%s\nwant:\n%s", err, strings.Join(tc.want, "\n"))
			}
			var e *Error
			if !errors.As(err, &e) || e.File != "orders.yaml" || e.Line == 0 {
				t.Errorf("errors.As(*Error) = %+v", e)
			}
		})
	}
}
