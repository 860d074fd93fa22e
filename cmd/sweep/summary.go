package main

import (
	"fmt"

	"github.com/sweep-tool/sweep/sweep"
)

// summarize prints the end-of-run summary and the matrices.
func (e *runEnv) summarize(dir string, sum sweep.Summary) error {
	fmt.Fprintf(e.stdout, "run %s: %d cells run, %d skipped (already done), %d failed; orchestration overhead %.2f s per cell\n",
		e.runID, len(sum.Records), sum.Skipped, sum.Failed(), sum.OverheadS)
	return nil
}
