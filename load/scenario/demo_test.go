package scenario

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sweep-tool/sweep/k6scripts"
)

// fhirStore is the demo's API in memory, stricter than the demo: a
// resource must name its own type, every reference must name a resource
// that exists, an update must carry its id, and a resource still
// referenced cannot be deleted.
type fhirStore struct {
	mu   sync.Mutex
	next int
	docs map[string]map[string]any // "Type/id" → resource
	fail string                    // a type whose creates answer 500
}

func (s *fhirStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	typ, id, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	key := typ + "/" + id
	var doc map[string]any
	if r.Body != nil && (r.Method == "POST" || r.Method == "PUT") {
		if err := json.NewDecoder(r.Body).Decode(&doc); err != nil || doc["resourceType"] != typ || !s.refsExist(doc) {
			http.Error(w, "bad resource", http.StatusBadRequest)
			return
		}
	}
	_, exists := s.docs[key]
	switch {
	case r.Method == "POST" && id == "" && typ == s.fail:
		http.Error(w, "fault", http.StatusInternalServerError)
	case r.Method == "POST" && id == "":
		s.next++
		doc["id"] = "r" + strconv.Itoa(s.next)
		s.docs[typ+"/"+doc["id"].(string)] = doc
		writeJSON(w, http.StatusCreated, doc)
	case !exists:
		http.Error(w, "not found", http.StatusNotFound)
	case r.Method == "GET":
		writeJSON(w, http.StatusOK, s.docs[key])
	case r.Method == "PUT" && doc["id"] == id:
		s.docs[key] = doc
		writeJSON(w, http.StatusOK, doc)
	case r.Method == "DELETE" && !s.referenced(key):
		delete(s.docs, key)
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "conflict", http.StatusConflict)
	}
}

func (s *fhirStore) refsExist(doc map[string]any) bool {
	for _, ref := range refs(doc, nil) {
		if _, ok := s.docs[ref]; !ok {
			return false
		}
	}
	return true
}

func (s *fhirStore) referenced(key string) bool {
	for _, doc := range s.docs {
		if slices.Contains(refs(doc, nil), key) {
			return true
		}
	}
	return false
}

// refs collects the values of every "reference" member in v.
func refs(v any, out []string) []string {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "reference" {
				out = append(out, s)
			}
			out = refs(x, out)
		}
	case []any:
		for _, x := range v {
			out = refs(x, out)
		}
	}
	return out
}

func TestDemoCRUDScenario(t *testing.T) {
	t.Parallel()
	s, err := Parse(k6scripts.DemoCRUDFile, k6scripts.DemoCRUD)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"create", "read", "update", "delete"}; !slices.Equal(s.Ops(), want) {
		t.Errorf("Ops() = %q, want %q, the built-in driver's operations", s.Ops(), want)
	}
	tests := []struct {
		fail string // the type whose create fails
		want map[string]int
	}{
		{"", map[string]int{"create ok": 9, "read ok": 9, "update ok": 9, "delete ok": 9}},
		// Encounter's failure takes the four resources that reference it along.
		{"Encounter", map[string]int{"create ok": 4, "create http_500": 1, "create skipped": 4,
			"read ok": 4, "read skipped": 5, "update ok": 4, "update skipped": 5, "delete ok": 4, "delete skipped": 5}},
	}
	for _, tc := range tests {
		t.Run("fail "+cmpOr(tc.fail, "none"), func(t *testing.T) {
			t.Parallel()
			store := &fhirStore{docs: map[string]map[string]any{}, fail: tc.fail}
			srv := httptest.NewServer(store)
			t.Cleanup(srv.Close)
			got := map[string]int{}
			for _, o := range iterate(t, s, httpDoer{base: srv.URL, c: srv.Client()}) {
				got[s.Ops()[o.Op]+" "+cmpOr(o.Class, "ok")]++
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("outcomes = %v, want %v", got, tc.want)
			}
			if len(store.docs) != 0 {
				t.Errorf("%d resources left after the iteration", len(store.docs))
			}
		})
	}
}
