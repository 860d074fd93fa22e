package results

import (
	"os"
	"sync"
)

// LazyFile is a log file (sweep.log) opened for appending on the first
// write, so that checks which fail before a run starts leave no run
// directory behind. Writing is best effort: a run file that matters
// fails on its own. It is safe for concurrent use (lanes of cells share
// one).
type LazyFile struct {
	mu   sync.Mutex
	path string
	f    *os.File
	err  error
}

// NewLazyFile is the log file at path, not opened yet.
func NewLazyFile(path string) *LazyFile { return &LazyFile{path: path} }

func (a *LazyFile) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil && a.err == nil {
		a.f, a.err = os.OpenFile(a.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	}
	if a.err != nil {
		return len(p), nil
	}
	return a.f.Write(p)
}

// Close closes the file if it was opened.
func (a *LazyFile) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	return a.f.Close()
}
