package scenario

import "testing"

func TestJSONPathExtract(t *testing.T) {
	t.Parallel()
	const doc = ` {"id": "p-1", "order_id": 17, "data": {"id": "d\"9", "n": -2.5e3},
		"items": [{"id": 3}, {"id": "x"}, []], "a b": "sp", "flag": true, "none": null,
		"list": [10, 20, 30], "esc\u0061ped": 1, "uni": "\u00e9"}`
	tests := []struct {
		path, want string
		num, ok    bool
	}{
		{"$.id", "p-1", false, true},
		{"$.order_id", "17", true, true},
		{"$.data.id", `d"9`, false, true},
		{"$['data']['n']", "-2.5e3", true, true},
		{`$["data"].n`, "-2.5e3", true, true},
		{"$.items[0].id", "3", true, true},
		{"$.items[1].id", "x", false, true},
		{"$.list[2]", "30", true, true},
		{"$['a b']", "sp", false, true},
		{"$.escaped", "1", true, true},
		{"$.uni", "é", false, true},
		{"$.list[3]", "", false, false},
		{"$.items[2][0]", "", false, false},
		{"$.missing", "", false, false},
		{"$.data", "", false, false},
		{"$.flag", "", false, false},
		{"$.none", "", false, false},
		{"$.id.x", "", false, false},
		{"$[0]", "", false, false},
		{"$", "", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			p, err := compilePath(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			got, num, ok := p.extract(nil, []byte(doc))
			if string(got) != tc.want || num != tc.num || ok != tc.ok {
				t.Errorf("extract = %q, num %v, ok %v; want %q, %v, %v", got, num, ok, tc.want, tc.num, tc.ok)
			}
		})
	}
}

func TestJSONPathWholeBody(t *testing.T) {
	t.Parallel()
	p, err := compilePath("$")
	if err != nil {
		t.Fatal(err)
	}
	for body, want := range map[string]string{`42`: "42", ` "abc" `: "abc", `{}`: ""} {
		got, _, ok := p.extract(nil, []byte(body))
		if string(got) != want || ok != (want != "") {
			t.Errorf("$ of %s = %q, %v; want %q", body, got, ok, want)
		}
	}
}

func TestJSONPathMalformedBody(t *testing.T) {
	t.Parallel()
	p, err := compilePath("$.b")
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{``, `{`, `{"a": "x`, `{"a" 1, "b": 2}`, `{"a": [1, "b": 2}`, `{"a": tru, "b": 1}`, `<html>`} {
		if got, _, ok := p.extract(nil, []byte(body)); ok {
			t.Errorf("extract from %q = %q, want no value", body, got)
		}
	}
}

func TestCompilePathErrors(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "id", "$.", "$.[", "$..id", "$[-1]", "$[+1]", "$[x]", "$['a'", "$.a[0", "$.*", "$.a b", "$x"} {
		if p, err := compilePath(s); err == nil {
			t.Errorf("compilePath(%q) = %v, want an error", s, p)
		}
	}
}
