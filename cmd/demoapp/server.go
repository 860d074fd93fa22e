package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"time"
)

// maxBody bounds a request body; FHIR-like resources in the demo are small.
const maxBody = 1 << 20

// healthTimeout bounds /health's database ping so that Docker's 1 s
// healthcheck gets an answer even when the pool is saturated.
const healthTimeout = 900 * time.Millisecond

// server is the demo's HTTP API. Resource routes run under a semaphore of
// cfg.WebThreads slots, like a fixed thread-pool server: the rest wait in
// line (until their client goes away). /health goes around that bound so
// a busy instance is not reported dead because its queue is long; it still
// needs a pool connection within healthTimeout, so a starved pool shows.
type server struct {
	store      store
	slots      chan struct{}
	instance   string
	neverReady bool
	log        *slog.Logger
}

func newServer(cfg config, st store, log *slog.Logger) *server {
	return &server{
		store:      st,
		slots:      make(chan struct{}, cfg.WebThreads),
		instance:   cfg.Instance,
		neverReady: cfg.Fault.Kind == faultNeverReady,
		log:        log,
	}
}

// Handler returns the routed handler.
func (s *server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", s.health)
	mux.Handle("POST /{type}", s.bounded(s.create))
	mux.Handle("GET /{type}/{id}", s.bounded(s.get))
	mux.Handle("PUT /{type}/{id}", s.bounded(s.update))
	mux.Handle("DELETE /{type}/{id}", s.bounded(s.delete))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.instance != "" {
			w.Header().Set("X-Instance", s.instance)
		}
		mux.ServeHTTP(w, r)
	})
}

// bounded checks the resource type, then waits for a free slot.
func (s *server) bounded(h func(http.ResponseWriter, *http.Request, string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		typ := r.PathValue("type")
		if !slices.Contains(resourceTypes, typ) {
			writeError(w, http.StatusNotFound, "unknown resource type "+typ)
			return
		}
		select {
		case s.slots <- struct{}{}:
		case <-r.Context().Done():
			return // the client left while queued
		}
		defer func() { <-s.slots }()
		h(w, r, typ)
	})
}

func (s *server) health(w http.ResponseWriter, r *http.Request) {
	if s.neverReady {
		writeError(w, http.StatusServiceUnavailable, "fault: never-ready")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		writeError(w, http.StatusServiceUnavailable, "database: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"status":"pass"}`)
}

func (s *server) create(w http.ResponseWriter, r *http.Request, typ string) {
	id := newID()
	doc, ok := readResource(w, r, id)
	if !ok {
		return
	}
	if err := s.store.Create(r.Context(), typ, id, doc); err != nil {
		s.storeError(w, r, err)
		return
	}
	w.Header().Set("Location", "/"+typ+"/"+id)
	writeJSON(w, http.StatusCreated, doc)
}

func (s *server) get(w http.ResponseWriter, r *http.Request, typ string) {
	doc, err := s.store.Get(r.Context(), typ, r.PathValue("id"))
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

func (s *server) update(w http.ResponseWriter, r *http.Request, typ string) {
	id := r.PathValue("id")
	doc, ok := readResource(w, r, id)
	if !ok {
		return
	}
	if err := s.store.Update(r.Context(), typ, id, doc); err != nil {
		s.storeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

func (s *server) delete(w http.ResponseWriter, r *http.Request, typ string) {
	if err := s.store.Delete(r.Context(), typ, r.PathValue("id")); err != nil {
		s.storeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// storeError maps a store error to a status code; unexpected ones are
// logged.
func (s *server) storeError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, errNotFound):
		writeError(w, http.StatusNotFound, "not found")
	case errors.Is(err, errBusy):
		writeError(w, http.StatusServiceUnavailable, err.Error())
	case r.Context().Err() != nil:
		// the client went away; nobody reads the answer
	default:
		s.log.Error("store", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "database error")
	}
}

// readResource reads a JSON object from the body and sets its "id".
func readResource(w http.ResponseWriter, r *http.Request, id string) ([]byte, bool) {
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(&fields); err != nil || fields == nil {
		writeError(w, http.StatusBadRequest, "body must be a JSON object")
		return nil, false
	}
	fields["id"], _ = json.Marshal(id)
	doc, err := json.Marshal(fields)
	if err != nil {
		writeError(w, http.StatusBadRequest, "body must be a JSON object")
		return nil, false
	}
	return doc, true
}

func writeJSON(w http.ResponseWriter, status int, doc []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(doc)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(map[string]string{"error": msg})
	writeJSON(w, status, body)
}

// newID returns a random UUID-shaped id.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
