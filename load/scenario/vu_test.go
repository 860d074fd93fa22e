package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// crud is a flow whose later steps need the first one's capture.
const crud = `scenarios:
  - flow:
      - post: {url: /o, json: {}, capture: {json: $.id, as: id}, expect: 201, name: create}
      - get: {url: "/o/{{ id }}", name: read}
      - get: {url: /o, name: list}
      - delete: {url: "/o/{{ id }}", expect: [200, 204], name: delete}
`

func TestIterateOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		create reply
		want   string // the classes of create, read, list, delete
		sent   int    // requests sent
	}{
		{"all good", reply{status: 201, body: `{"id": "a1"}`}, "ok ok ok ok", 4},
		{"number id", reply{status: 201, body: `{"id": 17}`}, "ok ok ok ok", 4},
		{"capture finds nothing", reply{status: 201, body: `{"uuid": "a1"}`}, "capture skipped ok skipped", 2},
		{"body is not JSON", reply{status: 201, body: `<html>`}, "capture skipped ok skipped", 2},
		{"unexpected status", reply{status: 404, body: `{"id": "a1"}`}, "http_404 skipped ok skipped", 2},
		{"transport error", reply{err: classed("timeout")}, "timeout skipped ok skipped", 2},
		{"error without a class", reply{err: errors.New("boom")}, "other skipped ok skipped", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, crud)
			d := &fakeDoer{answer: func(r sent) reply {
				if r.method == "POST" {
					return tc.create
				}
				return reply{status: 200, body: `[]`}
			}}
			rec := iterate(t, s, d)
			if got := rec.classes(); got != tc.want {
				t.Errorf("classes = %s, want %s", got, tc.want)
			}
			if len(d.got) != tc.sent {
				t.Errorf("sent %d requests, want %d", len(d.got), tc.sent)
			}
			for _, r := range d.got {
				if r.path == "/o/" || r.path == "/o/{{ id }}" {
					t.Errorf("sent %s %s with the failed capture", r.method, r.path)
				}
			}
			for i, o := range rec {
				if o.Op != i || o.Sent != (o.Class != ClassSkipped) {
					t.Errorf("outcome %d = %+v", i, o)
				}
			}
		})
	}
}

// classed is a Doer error with a class.
type classed string

func (c classed) Error() string { return string(c) }
func (c classed) Class() string { return string(c) }

func TestCaptureNumberAndStringIDs(t *testing.T) {
	t.Parallel()
	s := mustParse(t, crud)
	for body, path := range map[string]string{`{"id": 17}`: "/o/17", `{"id": "x-9"}`: "/o/x-9", `{"id": "a/b c"}`: "/o/a/b%20c"} {
		d := &fakeDoer{answer: func(sent) reply { return reply{status: 201, body: body} }}
		iterate(t, s, d)
		if d.got[1].path != path {
			t.Errorf("after %s: read %s, want %s", body, d.got[1].path, path)
		}
	}
}

func TestCaptureLocationHeader(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `scenarios:
  - flow:
      - post: {url: /orders, capture: {header: Location, as: loc}, expect: 201}
      - get: {url: "{{ loc }}"}
      - get: {url: "/audit{{ loc }}"}
`)
	for loc, want := range map[string]string{"/orders/17": "/orders/17", "http://h:8080/orders/17?x=1": "/orders/17?x=1"} {
		d := &fakeDoer{answer: func(r sent) reply {
			return reply{status: 201, headers: map[string]string{"Location": loc}}
		}}
		if got := iterate(t, s, d).classes(); got != "ok ok ok" {
			t.Fatalf("Location %s: %s", loc, got)
		}
		if d.got[1].path != want || d.got[2].path != "/audit"+want {
			t.Errorf("Location %s: got %s and %s, want %s", loc, d.got[1].path, d.got[2].path, want)
		}
	}
	d := &fakeDoer{answer: func(sent) reply { return reply{status: 201} }}
	if got := iterate(t, s, d).classes(); got != "capture skipped skipped" {
		t.Errorf("no Location: %s", got)
	}
}

func TestWeightedChoice(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `scenarios:
  - {name: a, weight: 1, flow: [{get: {url: /a}}]}
  - {name: b, weight: 3, flow: [{get: {url: /b}}]}
`)
	run := func(seed uint64) []string {
		d := &fakeDoer{answer: func(sent) reply { return reply{status: 200} }}
		v := s.NewVU(0, seed)
		for range 4000 {
			if err := v.Iterate(t.Context(), d, new(outcomes)); err != nil {
				t.Fatal(err)
			}
		}
		var paths []string
		for _, r := range d.got {
			paths = append(paths, r.path)
		}
		return paths
	}
	first := run(7)
	if !slices.Equal(first, run(7)) {
		t.Error("one seed gave two sequences")
	}
	if slices.Equal(first, run(8)) {
		t.Error("two seeds gave one sequence")
	}
	b := 0
	for _, p := range first {
		if p == "/b" {
			b++
		}
	}
	if share := float64(b) / float64(len(first)); share < 0.72 || share > 0.78 {
		t.Errorf("weight 3 of 4 picked %.3f of the time", share)
	}
}

// TestThinkStops: a cancel ends an hour's think at once. It runs on the
// clock of a synctest bubble, which moves only while every goroutine in
// it waits, so a loaded host cannot stretch it: Iterate returns at the
// cancel exactly, and a think that ignored it would show its hour at
// once instead of holding the test.
func TestThinkStops(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "scenarios:\n  - flow:\n      - think: 3600\n      - get: {url: /}\n")
	synctest.Test(t, func(t *testing.T) {
		const at = 20 * time.Millisecond
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		time.AfterFunc(at, cancel)
		d := &fakeDoer{answer: func(sent) reply { return reply{status: 200} }}
		began := time.Now()
		err := s.NewVU(0, 0).Iterate(ctx, d, new(outcomes))
		if took := time.Since(began); !errors.Is(err, context.Canceled) || took != at || len(d.got) != 0 {
			t.Errorf("Iterate = %v after %s with %d requests; want context.Canceled at the cancel, %s, none sent", err, took, len(d.got), at)
		}
	})
}

func TestAbort(t *testing.T) {
	t.Parallel()
	s := mustParse(t, crud)
	d := &fakeDoer{answer: func(sent) reply { return reply{err: fmt.Errorf("dial: %w", ErrAbort)} }}
	var rec outcomes
	if err := s.NewVU(0, 0).Iterate(t.Context(), d, &rec); !errors.Is(err, ErrAbort) || len(rec) != 0 || len(d.got) != 1 {
		t.Errorf("Iterate = %v, %d outcomes, %d sent; want ErrAbort after one request, none recorded", err, len(rec), len(d.got))
	}
}

func TestOutcomeBody(t *testing.T) {
	t.Parallel()
	s := mustParse(t, crud)
	d := &fakeDoer{answer: func(r sent) reply {
		switch {
		case r.method == "POST":
			return reply{status: 201, body: `{"id": 5}`}
		case r.path == "/o":
			return reply{err: classed("timeout")}
		}
		return reply{status: 404, body: `{"error": "gone"}`}
	}}
	got := iterate(t, s, d)
	want := outcomes{
		{Op: 0, Line: 3, Status: 201, Sent: true},
		{Op: 1, Line: 4, Status: 404, Class: "http_404", Sent: true, Body: []byte(`{"error": "gone"}`)},
		{Op: 2, Line: 5, Class: "timeout", Sent: true, Err: classed("timeout")},
		{Op: 3, Line: 6, Status: 404, Class: "http_404", Sent: true, Body: []byte(`{"error": "gone"}`)},
	}
	if !slices.EqualFunc(got, want, func(a, b Outcome) bool {
		return a.Op == b.Op && a.Line == b.Line && a.Status == b.Status && a.Class == b.Class &&
			a.Sent == b.Sent && string(a.Body) == string(b.Body) && a.Err == b.Err
	}) {
		t.Errorf("outcomes:\n%+v\nwant\n%+v", got, want)
	}
	if d.got[1].keepBody || !d.got[0].keepBody {
		t.Error("KeepBody should be set for the capturing step only")
	}
}
