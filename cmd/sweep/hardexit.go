package main

import (
	"fmt"
	"os"
	"sync/atomic"
)

// onHardExit is what a second Ctrl-C runs before exiting: the run command
// registers a best-effort removal of the containers labelled with its run
// id. It is the one piece of process-wide state, because a signal handler
// has nothing else to reach it through.
var onHardExit atomic.Pointer[func()]

// hardExit removes what it can and exits with 130 at once.
func hardExit() {
	fmt.Fprintln(os.Stderr, "sweep: second interrupt: removing the run's containers and exiting")
	if f := onHardExit.Load(); f != nil {
		(*f)()
	}
	os.Exit(exitInterrupted)
}
