// Command pause is the Kubernetes fixture's sandbox process: it holds a
// pod's namespaces, reaps orphaned children (it is PID 1 of the pod) and
// exits on SIGTERM or SIGINT. It is built statically into the fixture's
// cache and imported into each node's containerd as a one-file image, since
// no image registry is reachable.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sig {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
