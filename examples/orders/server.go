package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
)

const (
	// maxBody bounds a request body.
	maxBody = 64 << 10
	// maxItems bounds an order's lines; maxText its customer and skus.
	maxItems = 100
	maxText  = 64
	// maxTotal bounds a total: numeric(12, 2) holds less than 1e10.
	maxTotal = 1e10 - 1
	// searchLimit is how many orders a customer's search answers at most.
	searchLimit = 50
	// healthTimeout bounds /healthz's database ping, so that a starved
	// pool answers 503 within any healthcheck's timeout.
	healthTimeout = 900 * time.Millisecond
)

// statuses are the states an order can be patched to.
var statuses = []string{"new", "paid", "shipped", "delivered", "cancelled"}

// server is the order API. Its routes run under a semaphore of
// cfg.Workers slots, like a fixed pool of worker threads: the rest wait in
// line until a slot frees or their client goes away. /healthz goes around
// the bound, so a busy instance is not reported dead because its line is
// long; it still needs a pool connection within healthTimeout, so a
// starved pool shows.
type server struct {
	store    store
	slots    chan struct{}
	inFlight atomic.Int64
	cfg      config
	log      *slog.Logger
}

func newServer(cfg config, st store, log *slog.Logger) *server {
	return &server{store: st, slots: make(chan struct{}, cfg.Workers), cfg: cfg, log: log}
}

// Handler returns the routed handler.
func (s *server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.health)
	mux.Handle("POST /api/orders", s.bounded(s.create))
	mux.Handle("GET /api/orders/{id}", s.bounded(s.withID(s.get)))
	mux.Handle("PATCH /api/orders/{id}", s.bounded(s.withID(s.patch)))
	mux.Handle("DELETE /api/orders/{id}", s.bounded(s.withID(s.delete)))
	mux.Handle("GET /api/customers/{c}/orders", s.bounded(s.search))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.Instance != "" {
			w.Header().Set("X-Instance", s.cfg.Instance)
		}
		mux.ServeHTTP(w, r)
	})
}

// bounded waits for a free slot, then runs h.
func (s *server) bounded(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.slots <- struct{}{}:
		case <-r.Context().Done():
			return // the client left while in line
		}
		s.inFlight.Add(1)
		defer func() { s.inFlight.Add(-1); <-s.slots }()
		h(w, r)
	})
}

// withID parses the {id} of the path: an id that is no positive integer
// names no order.
func (s *server) withID(h func(http.ResponseWriter, *http.Request, int64)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil || id < 1 {
			writeError(w, http.StatusNotFound, errNotFound.Error())
			return
		}
		h(w, r, id)
	}
}

// health is the readiness check: the database answers through the pool,
// and the settings as the process applied them.
func (s *server) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		writeError(w, http.StatusServiceUnavailable, "database: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"status": "pass", "instance": s.cfg.Instance, "workers": cap(s.slots), "db_pool": s.cfg.DBPool,
		"in_flight": s.inFlight.Load(), "pool": s.store.Stats(),
	})
}

func (s *server) create(w http.ResponseWriter, r *http.Request) {
	var o order
	if !decode(w, r, &o) {
		return
	}
	if err := checkOrder(o); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	id, err := s.store.Create(r.Context(), o)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	w.Header().Set("Location", fmt.Sprintf("/api/orders/%d", id))
	writeJSON(w, http.StatusCreated, map[string]int64{"order_id": id})
}

func (s *server) get(w http.ResponseWriter, r *http.Request, id int64) {
	o, err := s.store.Get(r.Context(), id)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, o)
}

func (s *server) patch(w http.ResponseWriter, r *http.Request, id int64) {
	var p patch
	if !decode(w, r, &p) {
		return
	}
	if err := checkPatch(p); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	o, err := s.store.Patch(r.Context(), id, p)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, o)
}

func (s *server) delete(w http.ResponseWriter, r *http.Request, id int64) {
	if err := s.store.Delete(r.Context(), id); err != nil {
		s.storeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *server) search(w http.ResponseWriter, r *http.Request) {
	list, err := s.store.ByCustomer(r.Context(), r.PathValue("c"), searchLimit)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

// storeError maps a store error to a status code; unexpected ones are
// logged.
func (s *server) storeError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, errNotFound):
		writeError(w, http.StatusNotFound, errNotFound.Error())
	case errors.Is(err, errBusy):
		writeError(w, http.StatusServiceUnavailable, err.Error())
	case r.Context().Err() != nil:
		// the client went away; nobody reads the answer
	default:
		s.log.Error("store", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "database error")
	}
}

// decode reads one JSON object of known fields into v, or answers 400.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "body: "+err.Error())
		return false
	}
	return true
}

// checkOrder is a new order's rules: a customer, one to maxItems lines of
// a sku and a positive quantity, a total of 0 or more.
func checkOrder(o order) error {
	if o.ID != 0 || o.Status != "" || !o.CreatedAt.IsZero() || !o.UpdatedAt.IsZero() {
		return errors.New("order_id, status, created_at and updated_at are the service's")
	}
	if err := checkText("customer", o.Customer); err != nil {
		return err
	}
	if len(o.Items) == 0 || len(o.Items) > maxItems {
		return fmt.Errorf("items: want 1 to %d lines, got %d", maxItems, len(o.Items))
	}
	for i, it := range o.Items {
		if err := checkText(fmt.Sprintf("items[%d].sku", i), it.SKU); err != nil {
			return err
		}
		if it.Qty < 1 || it.Qty > math.MaxInt32 {
			return fmt.Errorf("items[%d].qty: want a whole number >= 1, got %d", i, it.Qty)
		}
	}
	return checkTotal(o.Total)
}

// checkPatch is a partial update's rules: at least one field, each as a
// new order's, the status one of statuses.
func checkPatch(p patch) error {
	if p.Customer == nil && p.Status == nil && p.Total == nil {
		return errors.New("nothing to update: want customer, status or total")
	}
	if p.Customer != nil {
		if err := checkText("customer", *p.Customer); err != nil {
			return err
		}
	}
	if p.Status != nil && !slices.Contains(statuses, *p.Status) {
		return fmt.Errorf("status %q: want one of %v", *p.Status, statuses)
	}
	if p.Total != nil {
		return checkTotal(*p.Total)
	}
	return nil
}

func checkText(field, s string) error {
	if s == "" || len(s) > maxText {
		return fmt.Errorf("%s: want 1 to %d bytes, got %d", field, maxText, len(s))
	}
	return nil
}

func checkTotal(t float64) error {
	if !(t >= 0 && t <= maxTotal) {
		return fmt.Errorf("total: want 0 to %.2f, got %v", float64(maxTotal), t)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":"encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
