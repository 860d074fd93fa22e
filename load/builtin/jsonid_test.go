package builtin

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTopLevelID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		id   string
		ok   bool
	}{
		{"plain", `{"resourceType":"Patient","id":"p-1.2"}`, "p-1.2", true},
		{"spaces", "{ \"id\" :\n \"abc\" }", "abc", true},
		{"nested first", `{"meta":{"id":"inner"},"contained":[{"id":"c1"}],"id":"outer"}`, "outer", true},
		{"id as a value", `{"code":"id","id":"x9"}`, "x9", true},
		{"escaped quote before", `{"text":"say \"id\":\"no\"","id":"yes"}`, "yes", true},
		{"every kind of character", `{"id":"aAzZ09-."}`, "aAzZ09-.", true},
		{"missing", `{"resourceType":"Patient"}`, "", false},
		{"not a string", `{"id":42}`, "", false},
		{"invalid id chars", `{"id":"a/b"}`, "", false},
		{"empty id", `{"id":""}`, "", false},
		{"too long", `{"id":"` + strings.Repeat("a", 65) + `"}`, "", false},
		{"truncated", `{"id":"abc`, "", false},
		{"not json", `<html>`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			id, ok := topLevelID([]byte(tt.body))
			if id != tt.id || ok != tt.ok {
				t.Errorf("topLevelID(%s) = %q, %v; want %q, %v", tt.body, id, ok, tt.id, tt.ok)
			}
		})
	}
}

func TestTemplatesRenderLinkedJSON(t *testing.T) {
	t.Parallel()
	var ids [numResources]string
	for i := range ids {
		ids[i] = "id" + string(rune('a'+i))
	}
	for i, r := range resources {
		t.Run(r.Type, func(t *testing.T) {
			t.Parallel()
			for _, tc := range []struct {
				kind string
				tpl  template
				own  string
			}{{"create", r.create, ""}, {"update", r.update, ids[i]}} {
				body := tc.tpl.render(nil, &ids, tc.own, 12345)
				var doc map[string]any
				if err := json.Unmarshal(body, &doc); err != nil {
					t.Fatalf("%s body is not JSON: %v\n%s", tc.kind, err, body)
				}
				if doc["resourceType"] != r.Type || (tc.own != "" && doc["id"] != tc.own) || (tc.own == "" && doc["id"] != nil) {
					t.Errorf("%s body: resourceType %v id %v", tc.kind, doc["resourceType"], doc["id"])
				}
				refs := map[string]bool{}
				for _, ref := range references(doc) {
					refs[ref] = true
				}
				for _, d := range r.deps {
					if want := typeNames[d] + "/" + ids[d]; !refs[want] {
						t.Errorf("%s body does not reference %s: %s", tc.kind, want, body)
					}
				}
				if len(refs) != len(r.deps) {
					t.Errorf("%s body references %v, want exactly its deps", tc.kind, refs)
				}
			}
		})
	}
}

// TestTopLevelIDCutShort: a body that ends right after the key, its colon
// or the space between them has no id (and is not read past its end).
func TestTopLevelIDCutShort(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"id"`, `{"id" `, `{"id":`, `{"id": `, `{"id":"`} {
		if id, ok := topLevelID([]byte(body)); ok || id != "" {
			t.Errorf("topLevelID(%q) = %q, %v; want \"\", false", body, id, ok)
		}
	}
	if id, ok := topLevelID([]byte(`{"id":"` + strings.Repeat("a", 64) + `"}`)); !ok || len(id) != 64 {
		t.Errorf("a 64-character id: %q, %v; want it, true", id, ok)
	}
}

// TestCompileSlotAtStart: a body that opens with a slot renders the slot,
// not the braces.
func TestCompileSlotAtStart(t *testing.T) {
	t.Parallel()
	var ids [numResources]string
	got := string(compile("{{id}}/{{n}}", nil).render(nil, &ids, "own-1", 7))
	if got != "own-1/7" {
		t.Errorf("render = %q, want %q", got, "own-1/7")
	}
}
