package sweep

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
)

// deadAddr is a loopback address where nothing listens.
func deadAddr(t *testing.T) string { return "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t)) }

func TestProbe(t *testing.T) {
	t.Parallel()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "broken", http.StatusInternalServerError)
	}))
	t.Cleanup(failing.Close)
	redirect := httptest.NewServer(http.RedirectHandler("http://"+deadAddr(t)+"/", http.StatusFound))
	t.Cleanup(redirect.Close)
	closer := testenv.Serve(t, func(net.Conn) {})
	silent := testenv.Serve(t, func(net.Conn) { time.Sleep(5 * time.Second) })
	selfSigned := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(selfSigned.Close)
	for _, tc := range []struct {
		name, url, kind string
	}{
		{"an error status is an answer", failing.URL, ""},
		{"a redirect is an answer, not followed", redirect.URL, ""},
		{"nothing listens", "http://" + deadAddr(t), ConnectRefused},
		{"closed without an answer", "http://" + closer, ConnectReset},
		{"no answer in time", "http://" + silent, ConnectTimeout},
		{"name does not resolve", "http://nosuch.invalid:8080", ConnectDNS},
		{"a certificate nobody trusts", selfSigned.URL, ConnectTLS},
		{"https to a plain HTTP server", strings.Replace(failing.URL, "http:", "https:", 1), ConnectTLS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
			defer cancel()
			err := Probe(ctx, tc.url)
			var pe *ProbeError
			switch {
			case tc.kind == "" && err != nil:
				t.Errorf("Probe(%s) = %v, want an answer", tc.url, err)
			case tc.kind != "" && (!errors.As(err, &pe) || pe.Kind != tc.kind || pe.URL != tc.url):
				t.Errorf("Probe(%s) = %#v, want a ProbeError of kind %s", tc.url, err, tc.kind)
			}
		})
	}
}
