package sweep

// Reachability before the night. Once the stack is first up and the
// target is ready, one request to the spec's URL must get an HTTP answer,
// whatever its status; a URL where nothing answers would otherwise be
// found by each cell in turn, after the night is spent.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"time"
)

// The kinds of connection-level failure, as Measurement.ConnectErrorKinds
// and ProbeError name them.
const (
	ConnectRefused = "refused"
	ConnectDNS     = "dns"
	ConnectTimeout = "timeout"
	ConnectReset   = "reset"
	ConnectTLS     = "tls"
	ConnectOther   = "other"
)

// ConnectKind classifies the error of an attempt that did not get an
// answer: nothing listens (refused), the host name does not resolve
// (dns), no answer in time (timeout), the connection was cut (reset), or
// other. A connection closed before any answer (what docker-proxy does in
// front of a published port with nothing behind it) counts as reset. A
// failed TLS handshake is the caller's to tell.
func ConnectKind(err error) string {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return ConnectDNS
	case errors.Is(err, syscall.ECONNREFUSED):
		return ConnectRefused
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return ConnectTimeout
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), closedBeforeRequest(err):
		return ConnectReset
	}
	return ConnectOther
}

// serverClosedIdle is the text of net/http's unexported error for a
// connection the server closed before the request went out: a new
// connection cut at once (docker-proxy with nothing behind it) gives it
// or io.EOF, whichever side of the race the request write lands on.
const serverClosedIdle = "http: server closed idle connection"

func closedBeforeRequest(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == serverClosedIdle {
			return true
		}
	}
	return false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// ProbeError says that the target's URL gave no HTTP answer: Kind is one
// of the Connect* kinds, Err what the HTTP client said.
type ProbeError struct {
	URL  string
	Kind string
	Err  error
}

func (e *ProbeError) Error() string {
	return fmt.Sprintf("%s gave no HTTP answer (%s): %v", e.URL, e.Kind, e.Err)
}

// Unwrap returns what the HTTP client said.
func (e *ProbeError) Unwrap() error { return e.Err }

// URLProber is a Stack whose target the load reaches from elsewhere than
// sweep's process (a Service name inside a cluster): it probes the URL
// as the load would see it, with Probe's meaning (nil for any HTTP
// answer, else a *ProbeError).
type URLProber interface {
	ProbeURL(ctx context.Context, url string) error
}

// ProbeTimeout bounds the one request of Probe.
const ProbeTimeout = 10 * time.Second

// Probe sends one GET to url, not following redirects, and returns nil
// for any HTTP answer, whatever its status, else a *ProbeError.
func Probe(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return &ProbeError{URL: url, Kind: ConnectOther, Err: err}
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}, Timeout: ProbeTimeout}
	resp, err := client.Do(req)
	if err != nil {
		kind := ConnectKind(err)
		if kind == ConnectOther && isTLS(err) {
			kind = ConnectTLS
		}
		return &ProbeError{URL: url, Kind: kind, Err: err}
	}
	_ = resp.Body.Close()
	return nil
}

// isTLS reports whether err comes from a TLS handshake or a certificate
// check, or is an https URL answered in plain HTTP.
func isTLS(err error) bool {
	var header tls.RecordHeaderError
	var alert tls.AlertError
	var verify *tls.CertificateVerificationError
	var host x509.HostnameError
	var authority x509.UnknownAuthorityError
	return errors.As(err, &header) || errors.As(err, &alert) || errors.As(err, &verify) ||
		errors.As(err, &host) || errors.As(err, &authority) || errors.Is(err, http.ErrSchemeMismatch)
}
