package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// config is the demo app's effective settings, read from the environment
// once at start. Every field has a default except the DSN.
type config struct {
	// Port is the TCP port to listen on (PORT, default 8080).
	Port string
	// WebThreads bounds how many requests execute at once
	// (BOX_WEB_THREAD, default 8); the rest wait in a queue.
	WebThreads int
	// PoolSize is the pgx pool's MaxConns (BOX_DB_POOL_MAXIMUM_POOL_SIZE,
	// default 8).
	PoolSize int
	// Instance is echoed in the X-Instance header and the logs
	// (BOX_INSTANCE_NAME).
	Instance string
	// DSN is the PostgreSQL connection string (DATABASE_URL, required).
	DSN string
	// AcquireTimeout is how long a request waits for a pool connection
	// before it answers 503 (DEMOAPP_ACQUIRE_TIMEOUT, default 2s).
	AcquireTimeout time.Duration
	// DBWait bounds the start-up retries until the schema is created
	// (DEMOAPP_DB_WAIT, default 60s).
	DBWait time.Duration
	// BgConns connections are held for BgHold every BgEvery by a
	// background task (DEMOAPP_BG_CONNS=2, DEMOAPP_BG_EVERY=1s,
	// DEMOAPP_BG_HOLD=300ms), as Aidbox's own jobs do; 0 conns disables it.
	BgConns int
	BgEvery time.Duration
	BgHold  time.Duration
	// Fault is the test-only fault knob (DEMOAPP_FAULT), already filtered
	// by DEMOAPP_FAULT_WHEN.
	Fault fault
}

// faultKind names one test-only failure mode.
type faultKind string

const (
	faultNone       faultKind = ""
	faultCrash      faultKind = "crash"
	faultNeverReady faultKind = "never-ready"
	faultCrashAfter faultKind = "crash-after"
)

// fault is a parsed DEMOAPP_FAULT value.
type fault struct {
	Kind  faultKind
	After time.Duration // for crash-after
}

// String renders the fault the way DEMOAPP_FAULT spells it.
func (f fault) String() string {
	if f.Kind == faultCrashAfter {
		return fmt.Sprintf("%s=%s", f.Kind, f.After)
	}
	if f.Kind == faultNone {
		return "none"
	}
	return string(f.Kind)
}

// loadConfig reads the settings through getenv (os.Getenv in main).
func loadConfig(getenv func(string) string) (config, error) {
	c := config{
		Port:     orDefault(getenv("PORT"), "8080"),
		Instance: getenv("BOX_INSTANCE_NAME"),
		DSN:      getenv("DATABASE_URL"),
	}
	var errs []error
	num := func(key string, def, minimum int) int {
		v, err := intEnv(getenv, key, def, minimum)
		errs = append(errs, err)
		return v
	}
	dur := func(key string, def time.Duration) time.Duration {
		v, err := durationEnv(getenv, key, def)
		errs = append(errs, err)
		return v
	}
	c.WebThreads = num("BOX_WEB_THREAD", 8, 1)
	c.PoolSize = num("BOX_DB_POOL_MAXIMUM_POOL_SIZE", 8, 1)
	c.BgConns = num("DEMOAPP_BG_CONNS", 2, 0)
	c.AcquireTimeout = dur("DEMOAPP_ACQUIRE_TIMEOUT", 2*time.Second)
	c.DBWait = dur("DEMOAPP_DB_WAIT", 60*time.Second)
	c.BgEvery = dur("DEMOAPP_BG_EVERY", time.Second)
	c.BgHold = dur("DEMOAPP_BG_HOLD", 300*time.Millisecond)
	f, err := parseFault(getenv("DEMOAPP_FAULT"))
	errs = append(errs, err)
	if when := getenv("DEMOAPP_FAULT_WHEN"); when == "" || when == c.Instance {
		c.Fault = f
	}
	if c.DSN == "" {
		errs = append(errs, errors.New("DATABASE_URL is not set"))
	}
	return c, errors.Join(errs...)
}

func parseFault(s string) (fault, error) {
	kind, arg, hasArg := strings.Cut(s, "=")
	switch k := faultKind(kind); {
	case s == "":
		return fault{}, nil
	case (k == faultCrash || k == faultNeverReady) && !hasArg:
		return fault{Kind: k}, nil
	case k == faultCrashAfter && hasArg:
		d, err := time.ParseDuration(arg)
		if err != nil || d <= 0 {
			return fault{}, fmt.Errorf("DEMOAPP_FAULT %q: want crash-after=<positive duration>", s)
		}
		return fault{Kind: k, After: d}, nil
	}
	return fault{}, fmt.Errorf("DEMOAPP_FAULT %q: want crash, never-ready or crash-after=<duration>", s)
}

func intEnv(getenv func(string) string, key string, def, minimum int) (int, error) {
	s := getenv(key)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < minimum {
		return def, fmt.Errorf("%s %q: want an integer >= %d", key, s, minimum)
	}
	return n, nil
}

func durationEnv(getenv func(string) string, key string, def time.Duration) (time.Duration, error) {
	s := getenv(key)
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return def, fmt.Errorf("%s %q: want a duration such as 300ms", key, s)
	}
	return d, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
