package scenario

import (
	"regexp"
	"strconv"
	"testing"
)

func TestRender(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `config:
  variables: {customer: "c\"3", k: 7}
scenarios:
  - flow:
      - get: {url: /first, capture: [{json: $.n, as: n}, {json: $.s, as: s}]}
      - post:
          url: "/x/{{ s }}?n={{ n }}&c={{ customer }}"
          headers: {X-S: "{{ s }}", X-K: "{{ k }}"}
          json:
            n: "{{ n }}"
            s: "{{ s }}"
            t: "id-{{ n }}"
            c: "{{ customer }}"
            k: "{{ k }}"
            vu: "{{ $vu }}"
            it: "{{ $iteration }}"
            fixed: [1, 2.5, true, null, "x"]
      - put: {url: "/y", body: "n={{ n }} s={{ s }}", headers: {Content-Type: text/plain}}
`)
	d := &fakeDoer{answer: func(r sent) reply {
		return reply{status: 200, body: `{"n": 17, "s": "a b/\"c\r\n"}`}
	}}
	if got := iterate(t, s, d).classes(); got != "ok ok ok" {
		t.Fatalf("outcomes = %s", got)
	}
	post, put := d.got[1], d.got[2]
	tests := []struct{ what, got, want string }{
		{"path", post.path, `/x/a%20b/%22c%0D%0A?n=17&c=c%223`},
		{"json body", post.body, `{"n":17,"s":"a b/\"c\r\n","t":"id-17","c":"c\"3","k":7,"vu":1,"it":0,"fixed":[1,2.5,true,null,"x"]}`},
		{"content type", post.ctype, "application/json"},
		{"header from a capture", post.headers["X-S"], `a b/"c`},
		{"header from a variable", post.headers["X-K"], "7"},
		{"raw body", put.body, "n=17 s=a b/\"c\r\n"},
		{"raw body's content type", put.ctype + "|" + put.headers["Content-Type"], "|text/plain"},
		{"get's body", d.got[0].body + "|" + d.got[0].ctype, "|"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s = %q, want %q", tc.what, tc.got, tc.want)
		}
	}
}

func TestRenderFunctions(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `scenarios:
  - flow:
      - post:
          url: "/r/{{ $randomNumber(-3, 3) }}/{{ $uuid }}"
          json: {n: "{{ $randomNumber(5, 5) }}", s: "{{ $randomString(25) }}", d: "{{ $randomString() }}", u: "{{ $uuid }}"}
`)
	body := regexp.MustCompile(`^\{"n":5,"s":"[a-zA-Z0-9]{25}","d":"[a-zA-Z0-9]{10}","u":"([0-9a-f-]{36})"\}$`)
	path := regexp.MustCompile(`^/r/(-?[0-3])/([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})$`)
	run := func(seed uint64, n int) []sent {
		d := &fakeDoer{answer: func(sent) reply { return reply{status: 201} }}
		v := s.NewVU(4, seed)
		for range n {
			if err := v.Iterate(t.Context(), d, new(outcomes)); err != nil {
				t.Fatal(err)
			}
		}
		return d.got
	}
	a, b := run(9, 50), run(9, 50)
	seen := map[string]bool{}
	for i, r := range a {
		pm, bm := path.FindStringSubmatch(r.path), body.FindStringSubmatch(r.body)
		if pm == nil || bm == nil {
			t.Fatalf("request %d: %s %s", i, r.path, r.body)
		}
		if pm[2] != bm[1] {
			t.Errorf("request %d: $uuid %s in the url, %s in the body: want one per iteration", i, pm[2], bm[1])
		}
		n, _ := strconv.Atoi(pm[1])
		seen[strconv.Itoa(n)] = true
		if r.path != b[i].path || r.body != b[i].body {
			t.Errorf("request %d differs under one seed: %s vs %s", i, r.path, b[i].path)
		}
	}
	if len(seen) != 7 {
		t.Errorf("$randomNumber(-3, 3) gave %d distinct values in 50 draws, want all 7", len(seen))
	}
	if a[0].path == a[1].path {
		t.Errorf("two iterations share %s: $uuid must be drawn per iteration", a[0].path)
	}
}

func TestRenderLiteralText(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `config: {variables: {hex: 0x1F, big: 1_000, f: 2.50}}
scenarios:
  - flow:
      - post:
          url: "/search?q=a b&x=1%2F&h={{ hex }}"
          headers: {X-A: "line\r\nInjected: 1"}
          json: {plain: 'say "hi" \ now', mixed: "tab\there {{ $vu }}", "key \"q\"": 1, n: [0x10, 1_000, +5, "{{ hex }}", "{{ big }}", "{{ f }}"]}
`)
	d := &fakeDoer{answer: func(sent) reply { return reply{status: 200} }}
	iterate(t, s, d)
	r := d.got[0]
	if want := "/search?q=a%20b&x=1%2F&h=31"; r.path != want {
		t.Errorf("path = %q, want %q", r.path, want)
	}
	if want := "lineInjected: 1"; r.headers["X-A"] != want {
		t.Errorf("header = %q, want %q", r.headers["X-A"], want)
	}
	if want := `{"plain":"say \"hi\" \\ now","mixed":"tab\there 1","key \"q\"":1,"n":[16,1000,5,31,1000,2.5]}`; r.body != want {
		t.Errorf("body = %s, want %s", r.body, want)
	}
}
