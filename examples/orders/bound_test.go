package main

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// gated holds every Get until open is closed, counting how many are held
// at once; the rest goes to the real store.
type gated struct {
	store
	open      chan struct{}
	held, max atomic.Int64
}

func (g *gated) Get(ctx context.Context, id int64) (order, error) {
	n := g.held.Add(1)
	for m := g.max.Load(); n > m && !g.max.CompareAndSwap(m, n); m = g.max.Load() {
	}
	defer g.held.Add(-1)
	select {
	case <-g.open:
	case <-ctx.Done():
		return order{}, ctx.Err()
	}
	return g.store.Get(ctx, id)
}

// TestWorkersBound: with ORDERS_WORKERS=2 and six reads at once, two are
// handled and four wait; /healthz answers around the bound, saying 2 in
// flight; once released, all six are answered.
func TestWorkersBound(t *testing.T) {
	st := openTestStore(t, testDSN(t), 1)
	g := &gated{store: st, open: make(chan struct{})}
	base := startService(t, config{Workers: 2, DBPool: 1}, g)
	if code, _, body := call(t, base, "POST", "/api/orders", `{"customer":"c","items":[{"sku":"A","qty":1}],"total":1}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	var wg sync.WaitGroup
	codes := make(chan int, 6)
	for range 6 {
		wg.Go(func() {
			code, _, _ := call(t, base, "GET", "/api/orders/1", "")
			codes <- code
		})
	}
	deadline := time.Now().Add(5 * time.Second)
	for g.held.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // room for a third to get in, were it let
	var h struct {
		InFlight int `json:"in_flight"`
	}
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || h.InFlight != 2 {
		t.Errorf("/healthz while the workers are busy: %s, in_flight %d (%v); want 200 and 2", resp.Status, h.InFlight, err)
	}
	if n := g.held.Load(); n != 2 {
		t.Errorf("%d reads handled at once, want 2 (ORDERS_WORKERS)", n)
	}
	close(g.open)
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != 200 {
			t.Errorf("a read answered %d, want 200", code)
		}
	}
	if m := g.max.Load(); m != 2 {
		t.Errorf("at most %d reads at once, want 2", m)
	}
}
