package live

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// The server's bounds: a scraper that is slow to send its headers or
// read the answer is cut off, and Close waits for scrapes under way at
// most shutdownGrace.
const (
	readHeaderTimeout = 5 * time.Second
	writeTimeout      = 10 * time.Second
	idleTimeout       = time.Minute
	shutdownGrace     = 2 * time.Second
)

// Path is where the metrics are served.
const Path = "/metrics"

// Server serves a Metrics on Path over HTTP while a run goes.
type Server struct {
	srv  *http.Server
	addr string
	done chan struct{} // closed when Serve has returned
	once sync.Once
	err  error
}

// Start listens on addr (host:port) at once, so an address that is
// malformed or taken is an error before anything else starts, and serves
// m until ctx is done or Close is called.
func Start(ctx context.Context, addr string, m *Metrics) (*Server, error) {
	if addr == "" {
		return nil, errors.New("no address to listen on (want host:port, e.g. 127.0.0.1:9464)")
	}
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(Path, m.Handler())
	s := &Server{
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readHeaderTimeout,
			WriteTimeout: writeTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: 1 << 16},
		addr: ln.Addr().String(),
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.err = fmt.Errorf("serve metrics: %w", err)
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = s.Close()
		case <-s.done:
		}
	}()
	return s, nil
}

// Addr is the address served, with the port the system chose when addr
// asked for port 0.
func (s *Server) Addr() string { return s.addr }

// Close stops serving and waits until the server has stopped; scrapes
// under way get shutdownGrace to finish. It returns the error that ended
// serving, if any.
func (s *Server) Close() error {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			_ = s.srv.Close()
		}
	})
	<-s.done
	return s.err
}
