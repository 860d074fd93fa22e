// Command burn spins every CPU until killed; the container sampler's test
// runs it under a CPU limit to see throttling. Spinning on all CPUs uses
// up the quota early in each period even on a busy host.
package main

import "runtime"

func main() {
	for range runtime.NumCPU() - 1 {
		go spin()
	}
	spin()
}

func spin() {
	n := 0
	for {
		n++
	}
}
