package main

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// config is the service's settings, read from the environment once at
// start. Every field has a default except the DSN.
type config struct {
	// Port is the TCP port to listen on (PORT, default 8080).
	Port string
	// Workers bounds how many API requests are handled at once
	// (ORDERS_WORKERS, default 4); the rest wait in line. /healthz goes
	// around the bound.
	Workers int
	// DBPool is the pgx pool's maximum of connections (ORDERS_DB_POOL,
	// default 4).
	DBPool int
	// DSN is the PostgreSQL connection string (ORDERS_DSN, required).
	DSN string
	// Instance is echoed in the X-Instance header, /healthz and the logs
	// (ORDERS_INSTANCE; sweep sets it to the cell's id).
	Instance string
	// AcquireTimeout is how long a request waits for a pool connection
	// before it is answered 503 (ORDERS_ACQUIRE_TIMEOUT, default 2s).
	AcquireTimeout time.Duration
	// DBWait bounds the start-up retries until the schema is created
	// (ORDERS_DB_WAIT, default 60s).
	DBWait time.Duration
}

// loadConfig reads the settings through getenv (os.Getenv in main); every
// bad value is reported, not only the first.
func loadConfig(getenv func(string) string) (config, error) {
	c := config{
		Port:     getenv("PORT"),
		DSN:      getenv("ORDERS_DSN"),
		Instance: getenv("ORDERS_INSTANCE"),
	}
	if c.Port == "" {
		c.Port = "8080"
	}
	var errs []error
	num := func(key string, def int) int {
		v, err := intEnv(getenv, key, def)
		errs = append(errs, err)
		return v
	}
	dur := func(key string, def time.Duration) time.Duration {
		v, err := durationEnv(getenv, key, def)
		errs = append(errs, err)
		return v
	}
	c.Workers = num("ORDERS_WORKERS", 4)
	c.DBPool = num("ORDERS_DB_POOL", 4)
	c.AcquireTimeout = dur("ORDERS_ACQUIRE_TIMEOUT", 2*time.Second)
	c.DBWait = dur("ORDERS_DB_WAIT", 60*time.Second)
	if c.DSN == "" {
		errs = append(errs, errors.New("ORDERS_DSN is not set"))
	}
	return c, errors.Join(errs...)
}

// intEnv is the whole number >= 1 in key, def when unset.
func intEnv(getenv func(string) string, key string, def int) (int, error) {
	s := getenv(key)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return def, fmt.Errorf("%s %q: want a whole number >= 1", key, s)
	}
	return n, nil
}

// durationEnv is the positive duration in key, def when unset.
func durationEnv(getenv func(string) string, key string, def time.Duration) (time.Duration, error) {
	s := getenv(key)
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return def, fmt.Errorf("%s %q: want a positive duration such as 2s", key, s)
	}
	return d, nil
}
