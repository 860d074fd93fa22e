package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
)

// serve is the target process: a GET endpoint with a tiny body on a
// loopback port, which it prints, until its stdin closes (the parent ended
// or finished).
func serve(stdin io.Reader, stdout io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	body := []byte("ok\n")
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write(body)
	})}
	go func() { _ = srv.Serve(ln) }()
	fmt.Fprintln(stdout, ln.Addr().String())
	_, _ = io.Copy(io.Discard, stdin)
	return srv.Close()
}
