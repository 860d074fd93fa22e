package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
)

// TestPGStore runs the store against a throwaway PostgreSQL cluster, once
// per query exec mode (the simple protocol is what PgBouncer needs).
func TestPGStore(t *testing.T) {
	base := testenv.Postgres(t, "sweep").URL + "/postgres?sslmode=disable"
	modes := []string{"cache_statement", "simple_protocol"}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			dsn := base + "&default_query_exec_mode=" + mode
			st, err := openPG(t.Context(), dsn, 2, time.Second, 10*time.Second)
			if err != nil {
				t.Fatalf("openPG: %v", err)
			}
			defer st.Close()
			checkCRUD(t, st)
			if err := st.Ping(t.Context()); err != nil {
				t.Errorf("Ping: %v", err)
			}
		})
	}
	t.Run("acquire timeout", func(t *testing.T) { checkAcquireTimeout(t, base) })
	t.Run("demo reset.sql", func(t *testing.T) { checkResetSQL(t, base) })
}

// checkResetSQL runs the demo stack's reset script (compose/demo/reset.sql)
// against the schema this app creates and checks that it empties it.
func checkResetSQL(t *testing.T, dsn string) {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("..", "..", "compose", "demo", "reset.sql"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := openPG(t.Context(), dsn, 1, time.Second, 10*time.Second)
	if err != nil {
		t.Fatalf("openPG: %v", err)
	}
	defer st.Close()
	for _, typ := range resourceTypes {
		if err := st.Create(t.Context(), typ, newID(), []byte(`{}`)); err != nil {
			t.Fatalf("Create %s: %v", typ, err)
		}
	}
	if _, err := st.pool.Exec(t.Context(), string(script)); err != nil {
		t.Fatalf("reset.sql: %v", err)
	}
	for _, typ := range resourceTypes {
		var n int
		if err := st.pool.QueryRow(t.Context(), "SELECT count(*) FROM "+tableName(typ)).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s after reset: %d rows, %v", typ, n, err)
		}
	}
}

func checkCRUD(t *testing.T, st *pgStore) {
	t.Helper()
	ctx := t.Context()
	for _, typ := range resourceTypes {
		id := newID()
		if err := st.Create(ctx, typ, id, []byte(`{"id":"`+id+`","n":1,"s":"it's \\ ok"}`)); err != nil {
			t.Fatalf("Create %s: %v", typ, err)
		}
		doc, err := st.Get(ctx, typ, id)
		if err != nil || !strings.Contains(string(doc), `"s": "it's \\ ok"`) {
			t.Fatalf("Get %s = %s, %v", typ, doc, err)
		}
		if err := st.Update(ctx, typ, id, []byte(`{"n":2}`)); err != nil {
			t.Fatalf("Update %s: %v", typ, err)
		}
		if err := st.Delete(ctx, typ, id); err != nil {
			t.Fatalf("Delete %s: %v", typ, err)
		}
		if _, err := st.Get(ctx, typ, id); !errors.Is(err, errNotFound) {
			t.Errorf("Get deleted %s: %v, want errNotFound", typ, err)
		}
		if err := st.Update(ctx, typ, id, []byte(`{}`)); !errors.Is(err, errNotFound) {
			t.Errorf("Update deleted %s: %v, want errNotFound", typ, err)
		}
		if err := st.Delete(ctx, typ, id); !errors.Is(err, errNotFound) {
			t.Errorf("Delete deleted %s: %v, want errNotFound", typ, err)
		}
	}
}

// checkAcquireTimeout fills a pool of one with the background hold and
// checks that a request then answers errBusy.
func checkAcquireTimeout(t *testing.T, dsn string) {
	t.Helper()
	st, err := openPG(t.Context(), dsn, 1, 100*time.Millisecond, 10*time.Second)
	if err != nil {
		t.Fatalf("openPG: %v", err)
	}
	defer st.Close()
	held := make(chan error, 1)
	go func() { held <- st.Hold(t.Context(), 1, 700*time.Millisecond) }()
	time.Sleep(200 * time.Millisecond)
	if _, err := st.Get(t.Context(), "Patient", "x"); !errors.Is(err, errBusy) {
		t.Errorf("Get during hold: %v, want errBusy", err)
	}
	if err := <-held; err != nil {
		t.Errorf("Hold: %v", err)
	}
	if _, err := st.Get(t.Context(), "Patient", "x"); !errors.Is(err, errNotFound) {
		t.Errorf("Get after hold: %v, want errNotFound", err)
	}
}
