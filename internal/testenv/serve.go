package testenv

import (
	"net"
	"testing"
)

// Serve accepts TCP connections on a loopback port for the length of the
// test and hands each to handle on a goroutine of its own, closing it when
// handle returns: a server that misbehaves below HTTP (closes at once,
// never answers, forwards). It returns the address, host:port.
func Serve(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	addr, err := ServeOn(t, "127.0.0.1:0", handle)
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// ServeOn is Serve at a given address (e.g. a FreePort that should start
// answering later); it returns the listen error instead of failing the
// test, so it may run on any goroutine.
func ServeOn(t testing.TB, addr string, handle func(net.Conn)) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return ln.Addr().String(), nil
}
