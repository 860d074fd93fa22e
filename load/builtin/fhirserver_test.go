package builtin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// fakeFHIR is a FHIR-like CRUD server that checks what the driver does:
// every reference must name a stored resource, a resource is read before
// it is updated and updated before it is deleted, and nothing is deleted
// while another resource still references it (so deletes must come in
// reverse order). Problems are collected, not answered with odd statuses
// only, so a test can list them.
type fakeFHIR struct {
	failType string // POSTs of this type get 500

	mu       sync.Mutex
	next     int
	store    map[string]*stored // "Type/id"
	posts    map[string]int     // POSTs per type
	problems []string
}

type stored struct {
	refs  []string
	stage int // 0 created, 1 read, 2 updated
}

func newFakeFHIR(failType string) *fakeFHIR {
	return &fakeFHIR{failType: failType, store: map[string]*stored{}, posts: map[string]int{}}
}

func (f *fakeFHIR) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/fhir"), "/"), "/")
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case len(parts) == 1 && r.Method == http.MethodPost:
		f.create(w, parts[0], body)
	case len(parts) == 2:
		f.item(w, r.Method, parts[0]+"/"+parts[1], body)
	default:
		f.problem(w, http.StatusNotFound, "unexpected %s %s", r.Method, r.URL.Path)
	}
}

func (f *fakeFHIR) create(w http.ResponseWriter, typ string, body []byte) {
	f.posts[typ]++
	if typ == f.failType {
		http.Error(w, "injected failure", http.StatusInternalServerError)
		return
	}
	refs, ok := f.checkBody(w, typ, "", body)
	if !ok {
		return
	}
	f.next++
	id := "r" + strconv.Itoa(f.next)
	f.store[typ+"/"+id] = &stored{refs: refs}
	w.Header().Set("Content-Type", "application/fhir+json")
	w.WriteHeader(http.StatusCreated)
	// A nested "id" comes first: the driver must take the top-level one.
	fmt.Fprintf(w, `{"meta":{"id":"nested","versionId":"1"},"id":%q,"resourceType":%q}`, id, typ)
}

func (f *fakeFHIR) item(w http.ResponseWriter, method, key string, body []byte) {
	s, ok := f.store[key]
	if !ok {
		f.problem(w, http.StatusNotFound, "%s %s: no such resource", method, key)
		return
	}
	switch method {
	case http.MethodGet:
		f.advance(key, s, 0, 1)
		fmt.Fprintf(w, `{"resourceType":%q,"id":%q}`, strings.Split(key, "/")[0], strings.Split(key, "/")[1])
	case http.MethodPut:
		typ, id, _ := strings.Cut(key, "/")
		if refs, ok := f.checkBody(w, typ, id, body); ok {
			s.refs = refs
			f.advance(key, s, 1, 2)
			fmt.Fprintf(w, `{"resourceType":%q,"id":%q}`, typ, id)
		}
	case http.MethodDelete:
		f.advance(key, s, 2, 2)
		for other, o := range f.store {
			for _, ref := range o.refs {
				if ref == key {
					f.problem(w, http.StatusConflict, "delete %s: still referenced by %s", key, other)
					return
				}
			}
		}
		delete(f.store, key)
		w.WriteHeader(http.StatusNoContent)
	default:
		f.problem(w, http.StatusMethodNotAllowed, "%s %s", method, key)
	}
}

// advance checks the resource is at stage from and moves it to stage to.
func (f *fakeFHIR) advance(key string, s *stored, from, to int) {
	if s.stage != from {
		f.problems = append(f.problems, fmt.Sprintf("%s at stage %d, want %d", key, s.stage, from))
	}
	s.stage = to
}

// checkBody parses a resource and checks its type, id and references.
func (f *fakeFHIR) checkBody(w http.ResponseWriter, typ, id string, body []byte) ([]string, bool) {
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		f.problem(w, http.StatusBadRequest, "%s: body: %v", typ, err)
		return nil, false
	}
	if doc["resourceType"] != typ || (id != "" && doc["id"] != id) {
		f.problem(w, http.StatusBadRequest, "%s/%s: body says %v/%v", typ, id, doc["resourceType"], doc["id"])
		return nil, false
	}
	refs := references(doc)
	for _, ref := range refs {
		if _, ok := f.store[ref]; !ok {
			f.problem(w, http.StatusUnprocessableEntity, "%s: dangling reference %s", typ, ref)
			return nil, false
		}
	}
	return refs, true
}

func (f *fakeFHIR) problem(w http.ResponseWriter, status int, format string, args ...any) {
	f.problems = append(f.problems, fmt.Sprintf(format, args...))
	http.Error(w, "problem", status)
}

// references collects every {"reference": "..."} value in a document.
func references(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "reference" {
				out = append(out, s)
			}
			out = append(out, references(x)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, references(x)...)
		}
	}
	return out
}

func (f *fakeFHIR) report() (problems []string, posts map[string]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	posts = make(map[string]int)
	for k, v := range f.posts {
		posts[k] = v
	}
	return append([]string(nil), f.problems...), posts
}
