package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
)

// testDSN is a throwaway PostgreSQL database for one test.
func testDSN(t *testing.T) string {
	t.Helper()
	return testenv.Postgres(t, "orders").URL + "/postgres?sslmode=disable"
}

// startService serves the order API on st at an httptest server, with
// cfg's workers, and returns its URL.
func startService(t *testing.T, cfg config, st store) string {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewServer(newServer(cfg, st, log).Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// openTestStore opens the store on dsn with a pool of size and closes it
// when the test ends.
func openTestStore(t *testing.T, dsn string, size int) *pgStore {
	t.Helper()
	st, err := openStore(t.Context(), dsn, size, time.Second, 10*time.Second)
	if err != nil {
		t.Fatalf("openStore: %v", err)
	}
	t.Cleanup(st.Close)
	return st
}

// call sends method path with body (JSON, or none when "") and returns
// the status, the Location header and the body.
func call(t *testing.T, base, method, path, body string) (int, string, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

// TestAPI runs the order API on a real PostgreSQL: every route's answer
// and status, 404s for unknown or malformed ids, 400s for bad bodies, the
// search's order and limit, and that reset.sql empties it all and restarts
// the ids.
func TestAPI(t *testing.T) {
	dsn := testDSN(t)
	st := openTestStore(t, dsn, 2)
	base := startService(t, config{Workers: 2, DBPool: 2, Instance: "cell-1"}, st)

	code, loc, body := call(t, base, "POST", "/api/orders", `{"customer":"ada","items":[{"sku":"A-1","qty":2},{"sku":"B-2","qty":1}],"total":42.5}`)
	if code != 201 || loc != "/api/orders/1" || body != `{"order_id":1}` {
		t.Fatalf("create: %d, Location %q, %s; want 201, /api/orders/1, {\"order_id\":1}", code, loc, body)
	}
	var o order
	code, _, body = call(t, base, "GET", loc, "")
	if err := json.Unmarshal([]byte(body), &o); code != 200 || err != nil {
		t.Fatalf("read: %d %s (%v)", code, body, err)
	}
	if o.ID != 1 || o.Customer != "ada" || o.Status != "new" || o.Total != 42.5 || len(o.Items) != 2 ||
		o.Items[0] != (item{"A-1", 2}) || o.Items[1] != (item{"B-2", 1}) || o.CreatedAt.IsZero() {
		t.Errorf("read: %+v", o)
	}
	code, _, body = call(t, base, "PATCH", loc, `{"status":"paid"}`)
	var p order
	if err := json.Unmarshal([]byte(body), &p); code != 200 || err != nil || p.Status != "paid" || p.Total != 42.5 ||
		p.Customer != "ada" || len(p.Items) != 2 || p.UpdatedAt.Before(o.UpdatedAt) {
		t.Errorf("patch: %d %s (%v)", code, body, err)
	}

	checkSearch(t, base)
	checkRefused(t, base)

	if code, _, body = call(t, base, "DELETE", loc, ""); code != 204 || body != "" {
		t.Errorf("delete: %d %q, want 204 and no body", code, body)
	}
	for _, m := range []string{"GET", "DELETE"} {
		if code, _, _ = call(t, base, m, loc, ""); code != 404 {
			t.Errorf("%s of a deleted order: %d, want 404", m, code)
		}
	}
	checkReset(t, st, base)
}

// checkSearch creates 55 orders of one customer and 1 of another: the
// search answers the first's newest 50, newest first, and nothing for a
// customer without orders.
func checkSearch(t *testing.T, base string) {
	t.Helper()
	for i := range 55 {
		if code, _, body := call(t, base, "POST", "/api/orders", fmt.Sprintf(`{"customer":"bob","items":[{"sku":"S","qty":1}],"total":%d}`, i)); code != 201 {
			t.Fatalf("create %d: %d %s", i, code, body)
		}
	}
	call(t, base, "POST", "/api/orders", `{"customer":"eve","items":[{"sku":"S","qty":1}],"total":1}`)
	code, _, body := call(t, base, "GET", "/api/customers/bob/orders", "")
	var list []summary
	if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil || len(list) != searchLimit {
		t.Fatalf("search: %d, %d orders (%v), want 200 and %d", code, len(list), err, searchLimit)
	}
	for i, o := range list {
		if o.Total != float64(54-i) || o.Status != "new" {
			t.Errorf("search: #%d is %+v, want total %d (newest first)", i, o, 54-i)
		}
	}
	if code, _, body = call(t, base, "GET", "/api/customers/nobody/orders", ""); code != 200 || body != "[]" {
		t.Errorf("search of nobody: %d %s, want 200 []", code, body)
	}
}

// checkRefused: bad bodies are 400, ids that are none or unknown 404.
func checkRefused(t *testing.T, base string) {
	t.Helper()
	for _, c := range []struct{ name, method, path, body string }{
		{"no items", "POST", "/api/orders", `{"customer":"c","items":[],"total":1}`},
		{"no customer", "POST", "/api/orders", `{"items":[{"sku":"A","qty":1}],"total":1}`},
		{"zero qty", "POST", "/api/orders", `{"customer":"c","items":[{"sku":"A","qty":0}],"total":1}`},
		{"negative total", "POST", "/api/orders", `{"customer":"c","items":[{"sku":"A","qty":1}],"total":-1}`},
		{"total as text", "POST", "/api/orders", `{"customer":"c","items":[{"sku":"A","qty":1}],"total":"1"}`},
		{"an id of its own", "POST", "/api/orders", `{"order_id":9,"customer":"c","items":[{"sku":"A","qty":1}],"total":1}`},
		{"unknown field", "POST", "/api/orders", `{"customer":"c","items":[{"sku":"A","qty":1}],"total":1,"x":1}`},
		{"not JSON", "POST", "/api/orders", `order`},
		{"empty patch", "PATCH", "/api/orders/2", `{}`},
		{"unknown status", "PATCH", "/api/orders/2", `{"status":"lost"}`},
		{"patch items", "PATCH", "/api/orders/2", `{"items":[]}`},
	} {
		if code, _, body := call(t, base, c.method, c.path, c.body); code != 400 || !strings.Contains(body, `"error"`) {
			t.Errorf("%s: %d %s, want 400 with an error", c.name, code, body)
		}
	}
	for _, path := range []string{"/api/orders/999999", "/api/orders/0", "/api/orders/x", "/api/orders/99999999999999999999"} {
		for _, m := range []string{"GET", "PATCH", "DELETE"} {
			if code, _, body := call(t, base, m, path, `{"status":"paid"}`); code != 404 || !strings.Contains(body, "no such order") {
				t.Errorf("%s %s: %d %s, want 404", m, path, code, body)
			}
		}
	}
}

// checkReset runs examples/orders/reset.sql: no order is left and the
// next one is number 1 again.
func checkReset(t *testing.T, st *pgStore, base string) {
	t.Helper()
	script, err := os.ReadFile("reset.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.pool.Exec(t.Context(), string(script)); err != nil {
		t.Fatalf("reset.sql: %v", err)
	}
	var n int
	if err := st.pool.QueryRow(t.Context(), "SELECT (SELECT count(*) FROM orders) + (SELECT count(*) FROM order_items)").Scan(&n); err != nil || n != 0 {
		t.Errorf("after reset.sql: %d rows (%v), want 0", n, err)
	}
	if code, loc, _ := call(t, base, "POST", "/api/orders", `{"customer":"c","items":[{"sku":"A","qty":1}],"total":1}`); code != 201 || loc != "/api/orders/1" {
		t.Errorf("create after reset.sql: %d %s, want 201 /api/orders/1", code, loc)
	}
}

// TestHealthz reports the settings the process applied and the pool as
// pgx holds it, with the X-Instance header.
func TestHealthz(t *testing.T) {
	st := openTestStore(t, testDSN(t), 3)
	base := startService(t, config{Workers: 5, DBPool: 3, Instance: "cell-7"}, st)
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct {
		Status   string    `json:"status"`
		Instance string    `json:"instance"`
		Workers  int       `json:"workers"`
		DBPool   int       `json:"db_pool"`
		Pool     poolStats `json:"pool"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/healthz: %s (%v)", resp.Status, err)
	}
	if h.Status != "pass" || h.Instance != "cell-7" || h.Workers != 5 || h.DBPool != 3 || h.Pool.Max != 3 ||
		h.Pool.Total < 1 || resp.Header.Get("X-Instance") != "cell-7" {
		t.Errorf("/healthz: %+v, X-Instance %q", h, resp.Header.Get("X-Instance"))
	}
}
