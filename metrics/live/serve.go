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
	err  error // what ended serving
	// closeErr is what failed in Close's stopping.
	closeErr error
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
	return serve(ctx, ln, m), nil
}

// serve serves m on ln until ctx is done or Close is called.
func serve(ctx context.Context, ln net.Listener, m *Metrics) *Server {
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
	return s
}

// Addr is the address served, with the port the system chose when addr
// asked for port 0.
func (s *Server) Addr() string { return s.addr }

// Close stops serving and waits until the server has stopped; scrapes
// under way get shutdownGrace to finish, then are cut. It returns the
// error that ended serving and what failed in stopping: a listener that
// would not close, the forced close after a failed Shutdown; a scrape
// cut at the end of the grace is no error.
func (s *Server) Close() error {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		err := s.srv.Shutdown(ctx)
		if err == nil {
			return
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = nil
		}
		if err = errors.Join(err, s.srv.Close()); err != nil {
			s.closeErr = fmt.Errorf("close metrics server: %w", err)
		}
	})
	<-s.done
	return errors.Join(s.err, s.closeErr)
}
