package k6

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// memFHIR is a tiny in-memory CRUD server with the demo app's routes, for
// the tests that run the real k6.
type memFHIR struct {
	// failCreate makes every POST a 500, so no other operation runs.
	failCreate bool
	// delay is added to every answer, as a target's work would be.
	delay time.Duration

	mu   sync.Mutex
	docs map[string]map[string]any
}

func (s *memFHIR) handler() http.Handler {
	s.docs = map[string]map[string]any{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /{type}", func(w http.ResponseWriter, r *http.Request) {
		if s.failCreate {
			http.Error(w, "create refused", http.StatusInternalServerError)
			return
		}
		s.put(w, r, rand.Text(), http.StatusCreated)
	})
	mux.HandleFunc("GET /{type}/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		doc, ok := s.docs[key(r)]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		writeDoc(w, http.StatusOK, doc)
	})
	mux.HandleFunc("PUT /{type}/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.put(w, r, r.PathValue("id"), http.StatusOK)
	})
	mux.HandleFunc("DELETE /{type}/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		delete(s.docs, key(r))
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	if s.delay == 0 {
		return mux
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(s.delay)
		mux.ServeHTTP(w, r)
	})
}

// put stores the request's document under id and answers with it.
func (s *memFHIR) put(w http.ResponseWriter, r *http.Request, id string, status int) {
	var doc map[string]any
	if err := json.NewDecoder(r.Body).Decode(&doc); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	doc["id"] = id
	s.mu.Lock()
	s.docs[r.PathValue("type")+"/"+id] = doc
	s.mu.Unlock()
	writeDoc(w, status, doc)
}

func key(r *http.Request) string { return r.PathValue("type") + "/" + r.PathValue("id") }

func writeDoc(w http.ResponseWriter, status int, doc map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(doc)
}
