// Command burn spins one CPU until killed; the container sampler's test
// runs it under a CPU limit to see throttling.
package main

func main() {
	n := 0
	for {
		n++
	}
}
