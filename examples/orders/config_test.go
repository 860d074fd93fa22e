package main

import (
	"strings"
	"testing"
	"time"
)

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		env     map[string]string
		want    config
		wantErr []string
	}{
		{name: "defaults", env: map[string]string{"ORDERS_DSN": "postgres://db/orders"},
			want: config{Port: "8080", Workers: 4, DBPool: 4, DSN: "postgres://db/orders", AcquireTimeout: 2 * time.Second, DBWait: time.Minute}},
		{name: "set", env: map[string]string{"ORDERS_DSN": "postgres://db/orders", "PORT": "9090", "ORDERS_WORKERS": "16",
			"ORDERS_DB_POOL": "7", "ORDERS_INSTANCE": "cpu_1__web_16__db_7", "ORDERS_ACQUIRE_TIMEOUT": "500ms", "ORDERS_DB_WAIT": "5s"},
			want: config{Port: "9090", Workers: 16, DBPool: 7, DSN: "postgres://db/orders", Instance: "cpu_1__web_16__db_7",
				AcquireTimeout: 500 * time.Millisecond, DBWait: 5 * time.Second}},
		{name: "the demo's names are not read", env: map[string]string{"ORDERS_DSN": "x", "BOX_WEB_THREAD": "9",
			"BOX_DB_POOL_MAXIMUM_POOL_SIZE": "9", "DATABASE_URL": "y"},
			want: config{Port: "8080", Workers: 4, DBPool: 4, DSN: "x", AcquireTimeout: 2 * time.Second, DBWait: time.Minute}},
		{name: "every bad value", env: map[string]string{"ORDERS_WORKERS": "0", "ORDERS_DB_POOL": "many", "ORDERS_ACQUIRE_TIMEOUT": "-1s", "ORDERS_DB_WAIT": "soon"},
			wantErr: []string{`ORDERS_WORKERS "0"`, `ORDERS_DB_POOL "many"`, `ORDERS_ACQUIRE_TIMEOUT "-1s"`, `ORDERS_DB_WAIT "soon"`, "ORDERS_DSN is not set"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := loadConfig(func(k string) string { return c.env[k] })
			if c.wantErr != nil {
				for _, w := range c.wantErr {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Errorf("error %v, want it to name %s", err, w)
					}
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("loadConfig = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

// TestRunRefusesBadInput: bad settings and unknown arguments exit 2
// before anything connects.
func TestRunRefusesBadInput(t *testing.T) {
	t.Parallel()
	var log strings.Builder
	for _, args := range [][]string{nil, {"serve"}} {
		err := run(t.Context(), args, func(k string) string { return map[string]string{"ORDERS_WORKERS": "-3"}[k] }, &log)
		ee, ok := err.(*exitError)
		if !ok || ee.code != 2 {
			t.Errorf("run(%q) = %v, want exit 2", args, err)
		}
	}
}
