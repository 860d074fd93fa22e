// Command echo answers every HTTP request on $PORT (default 8080) with a
// short 200. The reception test runs it in a container in the host's
// network, to see what the host's sockets say about the load.
package main

import (
	"net/http"
	"os"
)

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	http.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	if err := http.ListenAndServe(":"+port, nil); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}
