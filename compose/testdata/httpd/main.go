// Command httpd is the tiny target of the compose integration test: a
// static HTTP server answering 200 on /health, which is also its own
// healthcheck (-check). CRASH=1 makes it exit at once with code 3.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"
)

func main() {
	check := flag.Bool("check", false, "GET /health on localhost and exit 0 on 200")
	flag.Parse()
	if *check {
		c := http.Client{Timeout: time.Second}
		resp, err := c.Get("http://127.0.0.1:8080/health")
		if err != nil || resp.StatusCode != http.StatusOK {
			fmt.Println("unhealthy:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv("CRASH") == "1" {
		fmt.Println("httpd crashing on purpose")
		os.Exit(3)
	}
	fmt.Printf("httpd up WEB_THREADS=%s\n", os.Getenv("WEB_THREADS"))
	http.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	fmt.Fprintln(os.Stderr, http.ListenAndServe(":8080", nil))
	os.Exit(1)
}
