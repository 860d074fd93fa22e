// Command probe is the Kubernetes fixture's in-cluster client for its
// checks: a static Go binary (Go's own DNS resolver reads the pod's
// /etc/resolv.conf, where the demo images' static busybox crashes looking a
// name up), imported into the nodes as a one-file image.
//
//	probe sleep                 wait until SIGTERM
//	probe http METHOD URL [BODY]  print the status line, the Location
//	                            header and the body; exit 1 on a transport error
//	probe lookup NAME           print NAME's addresses
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "sleep":
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
		<-sig
	case "http":
		if len(os.Args) < 4 {
			usage()
		}
		body := ""
		if len(os.Args) > 4 {
			body = os.Args[4]
		}
		os.Exit(doHTTP(os.Args[2], os.Args[3], body))
	case "lookup":
		if len(os.Args) != 3 {
			usage()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupHost(ctx, os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(strings.Join(addrs, " "))
	default:
		usage()
	}
}

func doHTTP(method, url, body string) int {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer resp.Body.Close()
	fmt.Printf("%s %s\n", resp.Proto, resp.Status)
	if loc := resp.Header.Get("Location"); loc != "" {
		fmt.Printf("Location: %s\n", loc)
	}
	fmt.Println()
	_, _ = io.Copy(os.Stdout, resp.Body)
	fmt.Println()
	return 0
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: probe sleep | probe http METHOD URL [BODY] | probe lookup NAME")
	os.Exit(2)
}
