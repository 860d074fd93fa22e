package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/load/remote"
)

func TestDriveRefusesABadRequest(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCLI(t, "drive", "--request", `{"base_url":"http://a/","vus":2}`)
	if code != exitBadInput || !strings.Contains(stderr, "unknown field") {
		t.Fatalf("exit %d, stderr %q; want %d and the unknown key named", code, stderr, exitBadInput)
	}
}

func TestDrivePrintsTheRecordAsFrames(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer srv.Close()
	req := `{"base_url":"` + srv.URL + `","load":{"model":"closed","vus":1},"duration":"300ms","scenario":"get"}`
	code, stdout, stderr := runCLI(t, "drive", "--request", req)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, remote.FramePrefix+"result {\"measurement\":{\"requests\":") || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("stdout %q is not one result frame", stdout)
	}
}
