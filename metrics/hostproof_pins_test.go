package metrics

import (
	"net"
	"strings"
	"testing"
)

// TestLocalEndpoint: a URL's port, or its scheme's (80, 443); loopback
// names resolve to this machine; a port that is no number, or a host
// that is not this machine, is an error.
func TestLocalEndpoint(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		url  string
		port int
	}{{"http://127.0.0.1:18080/health", 18080}, {"http://127.0.0.1/", 80}, {"https://127.0.0.1/", 443}, {"https://localhost:8443", 8443}} {
		ips, port, err := localEndpoint(t.Context(), c.url)
		if err != nil || port != c.port || len(ips) == 0 || !ips[0].IsLoopback() {
			t.Errorf("%s: %v %d %v, want a loopback address and port %d", c.url, ips, port, err, c.port)
		}
	}
	if _, _, err := localEndpoint(t.Context(), "http://127.0.0.1:http/"); err == nil {
		t.Error("a port that is no number: no error")
	}
	if _, _, err := localEndpoint(t.Context(), "http://"+net.JoinHostPort("192.0.2.1", "80")); err == nil || !strings.Contains(err.Error(), "192.0.2.1") {
		t.Errorf("a documentation address (not this machine): %v, want an error naming it", err)
	}
}
