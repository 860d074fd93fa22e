package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestToolArgv(t *testing.T) {
	t.Parallel()
	cfg := config{duration: 5 * time.Second, conns: 50}
	tests := []struct {
		tool string
		want []string
	}{
		{"wrk", []string{"wrk", "-t", "2", "-c", "50", "-d", "5s", "http://h/"}},
		{"hey", []string{"hey", "-z", "5s", "-c", "50", "http://h/"}},
		{"ab", []string{"ab", "-k", "-q", "-c", "50", "-t", "5", "-n", "2000000", "http://h/"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			t.Parallel()
			got, err := toolArgv(tt.tool, cfg, "http://h/")
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("toolArgv = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := toolArgv("siege", cfg, "http://h/"); err == nil {
		t.Error("toolArgv accepted an unknown tool")
	}
}

// The testdata files are real outputs of the Debian packages' tools.
func TestParseOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool     string
		requests int64
		rps      float64
	}{
		{"wrk", 18349, 16691.06},
		{"hey", 6773, 6768.3827},
		{"ab", 14233, 14212.59},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			t.Parallel()
			out, err := os.ReadFile(filepath.Join("testdata", tt.tool+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := parseOutput(tt.tool, string(out))
			if err != nil || r.requests != tt.requests || r.rps != tt.rps {
				t.Errorf("parseOutput = %+v, %v; want %d requests at %.2f/s", r, err, tt.requests, tt.rps)
			}
		})
	}
	if _, err := parseOutput("wrk", "unable to connect to 127.0.0.1:1 Connection refused"); err == nil {
		t.Error("parseOutput accepted an output without figures")
	}
}
