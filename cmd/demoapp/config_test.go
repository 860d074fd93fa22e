package main

import (
	"testing"
	"time"
)

func TestLoadConfig(t *testing.T) {
	dsn := "postgres://u:p@db:5432/x"
	cases := []struct {
		name    string
		env     map[string]string
		wantErr bool
		check   func(config) bool
	}{
		{"defaults", map[string]string{"DATABASE_URL": dsn}, false, func(c config) bool {
			return c.Port == "8080" && c.WebThreads == 8 && c.PoolSize == 8 && c.BgConns == 2 &&
				c.BgEvery == time.Second && c.BgHold == 300*time.Millisecond &&
				c.AcquireTimeout == 2*time.Second && c.Fault.Kind == faultNone
		}},
		{"box knobs", map[string]string{
			"DATABASE_URL": dsn, "BOX_WEB_THREAD": "3", "BOX_DB_POOL_MAXIMUM_POOL_SIZE": "5",
			"BOX_INSTANCE_NAME": "a", "PORT": "9000", "DEMOAPP_BG_CONNS": "0",
		}, false, func(c config) bool {
			return c.WebThreads == 3 && c.PoolSize == 5 && c.Instance == "a" && c.Port == "9000" && c.BgConns == 0
		}},
		{"fault for everyone", map[string]string{"DATABASE_URL": dsn, "DEMOAPP_FAULT": "never-ready"}, false,
			func(c config) bool { return c.Fault.Kind == faultNeverReady }},
		{"fault for this instance", map[string]string{
			"DATABASE_URL": dsn, "DEMOAPP_FAULT": "crash-after=2s", "DEMOAPP_FAULT_WHEN": "a", "BOX_INSTANCE_NAME": "a",
		}, false, func(c config) bool { return c.Fault == fault{Kind: faultCrashAfter, After: 2 * time.Second} }},
		{"fault for another instance", map[string]string{
			"DATABASE_URL": dsn, "DEMOAPP_FAULT": "crash", "DEMOAPP_FAULT_WHEN": "b", "BOX_INSTANCE_NAME": "a",
		}, false, func(c config) bool { return c.Fault.Kind == faultNone }},
		{"no dsn", map[string]string{}, true, nil},
		{"zero web threads", map[string]string{"DATABASE_URL": dsn, "BOX_WEB_THREAD": "0"}, true, nil},
		{"bad pool", map[string]string{"DATABASE_URL": dsn, "BOX_DB_POOL_MAXIMUM_POOL_SIZE": "many"}, true, nil},
		{"bad duration", map[string]string{"DATABASE_URL": dsn, "DEMOAPP_BG_HOLD": "5"}, true, nil},
		{"unknown fault", map[string]string{"DATABASE_URL": dsn, "DEMOAPP_FAULT": "explode"}, true, nil},
		{"crash-after without duration", map[string]string{"DATABASE_URL": dsn, "DEMOAPP_FAULT": "crash-after"}, true, nil},
		{"crash with argument", map[string]string{"DATABASE_URL": dsn, "DEMOAPP_FAULT": "crash=1s"}, true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := loadConfig(func(k string) string { return c.env[k] })
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			if c.check != nil && !c.check(cfg) {
				t.Errorf("unexpected config %+v", cfg)
			}
		})
	}
}

func TestRedactDSN(t *testing.T) {
	cases := []struct{ dsn, want string }{
		{"postgres://sweep:secret@db:5432/sweep?sslmode=disable", "sweep@db:5432/sweep mode=cache_statement"},
		{"postgres://sweep:secret@pgb:6432/sweep?default_query_exec_mode=simple_protocol", "sweep@pgb:6432/sweep mode=simple_protocol"},
		{"host=db user=u password=secret dbname=d", "u@db:5432/d mode=cache_statement"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			if got := redactDSN(c.dsn); got != c.want {
				t.Errorf("redactDSN = %q, want %q", got, c.want)
			}
		})
	}
}
