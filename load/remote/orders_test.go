package remote

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/sweep-tool/sweep/load/scenario"
)

// ordersFile is a user's scenario for an API unlike the demo's: integer
// ids under order_id, PATCH, a search by query and DELETE answering 204.
const ordersFile = `config:
  variables:
    customer: "c<3>&"
scenarios:
  - name: orders
    flow:
      - post:
          url: "/api/orders"
          json: {customer: "{{ customer }}", total: "{{ $randomNumber(1, 100) }}"}
          capture: {json: "$.order_id", as: id}
          expect: 201
          name: place order
      - get: {url: "/api/orders/{{ id }}", expect: 200, name: read order}
      - patch: {url: "/api/orders/{{ id }}", json: {total: 5}, expect: 200, name: change total}
      - get: {url: "/api/orders?customer={{ customer }}", expect: 200, name: search}
      - delete: {url: "/api/orders/{{ id }}", expect: 204, name: cancel order}
`

// ordersOps are ordersFile's operations.
var ordersOps = []string{"place order", "read order", "change total", "search", "cancel order"}

func ordersScript(t *testing.T) *scenario.Script {
	t.Helper()
	s, err := scenario.Parse("/home/user/load/orders.yaml", []byte(ordersFile))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ordersServer serves ordersFile's API and returns its URL.
func ordersServer(t *testing.T) string {
	t.Helper()
	var mu sync.Mutex
	next, orders := 0, map[int]bool{}
	order := func(h func(w http.ResponseWriter, id int)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			id, err := strconv.Atoi(r.PathValue("id"))
			mu.Lock()
			defer mu.Unlock()
			if err != nil || !orders[id] {
				http.Error(w, "no such order", http.StatusNotFound)
				return
			}
			h(w, id)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/orders", func(w http.ResponseWriter, r *http.Request) {
		var o struct{ Total int }
		if err := json.NewDecoder(r.Body).Decode(&o); err != nil || o.Total < 1 {
			http.Error(w, "want an order with a total", http.StatusBadRequest)
			return
		}
		mu.Lock()
		next++
		id := next
		orders[id] = true
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"order_id": %d}`, id)
	})
	mux.HandleFunc("GET /api/orders/{id}", order(func(w http.ResponseWriter, id int) { fmt.Fprintf(w, `{"order_id": %d}`, id) }))
	mux.HandleFunc("PATCH /api/orders/{id}", order(func(w http.ResponseWriter, id int) { fmt.Fprintf(w, `{"order_id": %d}`, id) }))
	mux.HandleFunc("DELETE /api/orders/{id}", order(func(w http.ResponseWriter, id int) {
		delete(orders, id)
		w.WriteHeader(http.StatusNoContent)
	}))
	mux.HandleFunc("GET /api/orders", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("customer") == "" {
			http.Error(w, "search by customer", http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(`{"order_ids": []}`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}
