package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// httpDoer carries requests over net/http, as a test's stand-in for the
// built-in driver's client.
type httpDoer struct {
	base string
	c    *http.Client
}

func (d httpDoer) Do(req *Request, resp *Response) error {
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	r, err := http.NewRequest(req.Method, d.base+string(req.Path), body)
	if err != nil {
		return err
	}
	for _, h := range req.Headers {
		r.Header.Set(h.Name, string(h.Value))
	}
	if req.ContentType != "" {
		r.Header.Set("Content-Type", req.ContentType)
	}
	res, err := d.c.Do(r)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	resp.Status = res.StatusCode
	if resp.Body, err = io.ReadAll(res.Body); err != nil {
		return err
	}
	resp.Headers = resp.Headers[:0]
	for _, name := range req.KeepHeaders {
		if v := res.Header.Get(name); v != "" {
			resp.Headers = append(resp.Headers, Header{Name: name, Value: []byte(v)})
		}
	}
	return nil
}

// orderService is an API unlike the demo's: integer ids under order_id,
// PATCH, a search by customer, DELETE answering 204.
type orderService struct {
	mu     sync.Mutex
	next   int
	orders map[int]map[string]any
}

func newOrderService() http.Handler {
	s := &orderService{orders: map[int]map[string]any{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/orders", s.create)
	mux.HandleFunc("GET /api/orders/{id}", s.withOrder(func(w http.ResponseWriter, _ *http.Request, id int, o map[string]any) {
		writeJSON(w, http.StatusOK, o)
	}))
	mux.HandleFunc("PATCH /api/orders/{id}", s.withOrder(func(w http.ResponseWriter, r *http.Request, id int, o map[string]any) {
		if err := json.NewDecoder(r.Body).Decode(&o); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, http.StatusOK, o)
	}))
	mux.HandleFunc("DELETE /api/orders/{id}", s.withOrder(func(w http.ResponseWriter, _ *http.Request, id int, _ map[string]any) {
		delete(s.orders, id)
		w.WriteHeader(http.StatusNoContent)
	}))
	mux.HandleFunc("GET /api/customers/{c}/orders", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		var ids []int
		for id, o := range s.orders {
			if o["customer"] == r.PathValue("c") {
				ids = append(ids, id)
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"order_ids": ids})
	})
	return mux
}

func (s *orderService) create(w http.ResponseWriter, r *http.Request) {
	var o map[string]any
	if err := json.NewDecoder(r.Body).Decode(&o); err != nil || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "want a JSON order", http.StatusBadRequest)
		return
	}
	if _, ok := o["total"].(float64); !ok {
		http.Error(w, "total must be a number", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.next++
	id := s.next
	s.orders[id] = o
	s.mu.Unlock()
	w.Header().Set("Location", fmt.Sprintf("/api/orders/%d", id))
	writeJSON(w, http.StatusCreated, map[string]any{"order_id": id})
}

func (s *orderService) withOrder(h func(http.ResponseWriter, *http.Request, int, map[string]any)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.Atoi(r.PathValue("id"))
		s.mu.Lock()
		defer s.mu.Unlock()
		o, ok := s.orders[id]
		if err != nil || !ok {
			http.Error(w, `{"error": "no such order"}`, http.StatusNotFound)
			return
		}
		h(w, r, id, o)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func TestOrderServiceIteration(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newOrderService())
	t.Cleanup(srv.Close)
	s := mustParse(t, orders)
	v := s.NewVU(0, 1)
	d := httpDoer{base: srv.URL, c: srv.Client()}
	for i := range 3 {
		var rec outcomes
		if err := v.Iterate(t.Context(), d, &rec); err != nil {
			t.Fatal(err)
		}
		if got := rec.classes(); got != "ok ok ok ok ok" {
			t.Errorf("iteration %d: %s; outcomes %+v", i, got, rec)
		}
	}
}

func TestOrderServiceWrongAPI(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	s := mustParse(t, orders)
	var rec outcomes
	if err := s.NewVU(0, 1).Iterate(t.Context(), httpDoer{base: srv.URL, c: srv.Client()}, &rec); err != nil {
		t.Fatal(err)
	}
	if got := rec.classes(); got != "http_404 skipped skipped http_404 skipped" {
		t.Errorf("classes = %s", got)
	}
	if o := rec[0]; o.Status != 404 || string(o.Body) != "404 page not found\n" || rec[1].Sent || rec[1].Body != nil {
		t.Errorf("outcomes = %+v", rec)
	}
}
