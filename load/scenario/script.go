// Package scenario owns the scenario file of the built-in load driver: a
// subset of Artillery's YAML scenario syntax (https://www.artillery.io/docs/reference/test-script),
// parsed, checked and compiled once, then run one iteration at a time by
// a virtual user through a Doer, the driver's HTTP client.
//
// The subset, exactly:
//
//	config:
//	  variables: {name: value}          # strings or numbers; fixed for the run
//	scenarios:
//	  - name: orders                    # default "scenario N"
//	    weight: 2                       # an integer >= 1, default 1
//	    flow:
//	      - post:                       # or get, put, patch, delete
//	          url: "/api/orders"        # relative to the base URL (--url)
//	          json: {total: 5}          # or body: "raw text"
//	          headers: {X-Tenant: "{{ tenant }}"}
//	          capture:                  # one, or a list
//	            - json: "$.order_id"    # $, .key, ['key'], [N]
//	              as: id
//	            - header: Location
//	              as: location
//	          expect: 201               # or [200, 204], or [{statusCode: 201}]
//	          name: create order        # the operation's name
//	      - think: 0.5                  # seconds
//
// Templates {{ name }} take config.variables and what an earlier step of
// the same flow captured, and the functions: Artillery's
// $randomNumber(min, max) (integers, both ends included),
// $randomString(length) (letters and digits; length 10 when omitted) and
// $uuid (a random UUID, one per iteration as Artillery's is one per
// virtual user's scenario run); and sweep's own $vu (the virtual user's
// number) and $iteration (the number of iterations the user began before
// this one), which Artillery has no names for. In a json: body a string
// that is one {{ … }} and nothing else becomes that value, so a captured
// number, $randomNumber, $vu and $iteration are sent as JSON numbers
// (Artillery sends function results as strings). Anything else is bad
// input: an *Error naming the file, line and key, all of a file's
// problems together in Errors.
//
// Each request step is an operation of the record (count, errors,
// percentiles): steps with the same name share one, and a step without a
// name is named by its method and url with each {{ x }} written :x
// (GET /api/orders/:id). A step without expect accepts any 2xx or 3xx.
// An unexpected status fails its step (class http_<status>), a capture
// that finds nothing fails it too (class capture), and a step that needs
// a value its flow failed to capture is not sent and fails as skipped.
//
// The package defines the port it runs through, Doer, so that the
// built-in driver's own client, a test's httptest server or an in-memory
// fake can carry the requests; it knows nothing of connections, timing
// or histograms.
package scenario

import (
	"path/filepath"
	"time"
)

// Script is a compiled scenario file. It is read-only and shared by every
// virtual user.
type Script struct {
	file     string
	src      []byte // the bytes Parse was given, for Source
	flows    []flow
	total    int      // the sum of the weights
	ops      []string // operation names, in the order they first appear
	captures []string // the capture names of the file, by slot (VU.vals)
}

// File is the name Parse was given.
func (s *Script) File() string { return s.file }

// Source returns what the script was parsed from: the file's base name
// and its bytes (not to be modified), so that Parse(Source()) elsewhere
// compiles the same script, its errors naming the file by that name.
// It is how a scenario travels to a driver running in another process.
func (s *Script) Source() (name string, data []byte) {
	return filepath.Base(s.file), s.src
}

// Ops returns the operation names; Outcome.Op indexes them.
func (s *Script) Ops() []string { return s.ops }

// Scenarios returns the scenarios' names, in file order.
func (s *Script) Scenarios() []string {
	names := make([]string, len(s.flows))
	for i, f := range s.flows {
		names[i] = f.name
	}
	return names
}

type flow struct {
	name   string
	weight int
	steps  []step
}

// step is a compiled step: a request, or a think time when op is -1.
type step struct {
	line         int
	op           int
	think        time.Duration
	method       string
	url          template
	headers      []header
	ctype        string // the Content-Type the driver sends; "" for none
	body         template
	hasBody      bool
	expect       []int // nil: any 2xx or 3xx
	captures     []capture
	bodyCaptures bool     // a capture reads the body
	keepHeaders  []string // the headers captures read
	needs        []int    // the captures the templates use
}

type header struct {
	name  string
	value template
}

// capture is compiled: into slot, from the body at path or from header.
type capture struct {
	slot   int
	path   jsonPath
	header string
}
