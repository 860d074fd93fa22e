package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/sweep-tool/sweep/load/k6"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// k6 away from sweep's process. The far end is `sweep drive` all the
// same, run where a k6 is on PATH (a user's k6 image, grafana/k6, with
// the static sweep binary copied in beside it: see Install): it runs the
// phase with package load/k6's driver, so the argv, the summary export's
// parser, the REST API polled each second, the steering of a user's
// script (`k6 inspect`: its options give way to sweep's load, or it is
// refused) and the warm-up's files kept apart from the measured phase's
// are the very code a local k6 runs. Its measurement comes back in the
// same frames as the built-in driver's, with the files k6 left (the
// summary export, k6's log) for the near end to keep in the cell's
// directory, where a local k6 leaves them. The script rides in the
// request as its text, like a scenario file: no ConfigMap or Docker
// config to create, label and remove per phase, and the same limit
// (CheckK6Script).

// K6Request asks the far end to run the phase with k6 instead of the
// built-in driver.
type K6Request struct {
	// Script is the user's k6 script; nil runs the bundled crud.js.
	Script *K6Script `json:"script,omitempty"`
}

// K6Script is a user's k6 script as it travels: its base name, which
// k6's messages name, and its text. Modules it imports do not travel: a
// script that imports local files is refused by k6 on the far end.
type K6Script struct {
	File string `json:"file"`
	JS   string `json:"js"`
}

// NewK6Request is the Request that runs req with k6 on the far end,
// script (nil: the bundled crud.js) in it.
func NewK6Request(req sweep.LoadRequest, script *K6Script) Request {
	r := phaseRequest(req)
	r.K6 = &K6Request{Script: script}
	return r
}

// CheckK6Script returns an error when script cannot travel to the far
// end, whatever the phase, as CheckRequest does for a scenario file: too
// large (ErrRequestTooLarge) or not UTF-8 (ErrScriptNotUTF8).
func CheckK6Script(script *K6Script) error {
	_, err := NewK6Request(sweep.LoadRequest{}, script).encode(MaxRequestSize - phaseReserve)
	return err
}

// ScriptOf is the user's k6 script as it travels, read from the content
// its recorded hash vouches for (nil for none: the bundled crud.js).
func ScriptOf(s *sweep.Script) (*K6Script, error) {
	if s == nil {
		return nil, nil
	}
	data, err := s.Verify()
	if err != nil {
		return nil, err
	}
	return &K6Script{File: filepath.Base(s.Path), JS: string(data)}, nil
}

// keptFiles are the files of a k6 phase that come back in the result
// (Result.Files): load/k6's names, so that a cell's directory holds what
// a local k6 leaves there. No other name is written on the near end.
var keptFiles = []string{k6.SummaryFile, k6.WarmupSummaryFile, k6.LogFile, k6.WarmupLogFile, k6.ConfigFile, k6.WarmupConfigFile}

// maxKeptFile bounds a file that comes back: a longer one (the log of a
// script that prints much) comes back as its last maxKeptFile bytes.
const maxKeptFile = 256 << 10

// ServeOptions are the far end's own settings, which `sweep drive` takes
// as flags: nothing of them travels in the request.
type ServeOptions struct {
	// Dir is where a k6 phase keeps its files (a directory of its own
	// made in it, removed at the end); empty: the system's temporary
	// directory.
	Dir string
	// K6 is the k6 binary; empty: k6 on PATH.
	K6 string
}

// k6Phase prepares the k6 phase r asks for: the driver against the k6
// that opts name (its version asked, for the record), the phase in a
// directory of its own with the user's script written into it, and the
// directory's removal.
func (r Request) k6Phase(ctx context.Context, opts ServeOptions) (farPhase, error) {
	lr, err := r.phase()
	if err != nil {
		return farPhase{}, err
	}
	bin, err := k6.Find(opts.K6)
	if err != nil {
		return farPhase{}, fmt.Errorf("the load's image: %w", err)
	}
	version, err := k6.Version(ctx, bin)
	if err != nil {
		return farPhase{}, fmt.Errorf("the load's image: %w", err)
	}
	dir, err := os.MkdirTemp(opts.Dir, "sweep-k6-")
	if err != nil {
		return farPhase{}, fmt.Errorf("k6 phase directory: %w", err)
	}
	cleanup := func() { _ = os.RemoveAll(dir) }
	var script *sweep.Script
	if s := r.K6.Script; s != nil {
		name := filepath.Base(s.File)
		if name == "." || name == "/" || name == ".." || slices.Contains(keptFiles, name) {
			name = "script.js"
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(s.JS), 0o644); err != nil {
			cleanup()
			return farPhase{}, fmt.Errorf("k6 script: %w", err)
		}
		if script, err = sweep.ReadUserFile[sweep.K6Script](path); err != nil {
			cleanup()
			return farPhase{}, err
		}
	}
	lr.Dir = dir
	return farPhase{driver: k6.New(k6.Options{Binary: bin, Script: script}), req: lr, cleanup: cleanup, k6Version: version}, nil
}

// readKept reads the kept files k6 left in dir.
func readKept(dir string) map[string]string {
	files := map[string]string{}
	for _, name := range keptFiles {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if st, err := f.Stat(); err == nil && st.Size() > maxKeptFile {
			_, _ = f.Seek(st.Size()-maxKeptFile, io.SeekStart)
		}
		data, err := io.ReadAll(io.LimitReader(f, maxKeptFile))
		_ = f.Close()
		if err == nil {
			files[name] = string(data)
		}
	}
	return files
}

// keep writes the files of a result into dir (a cell repetition's
// directory; "" keeps none); a name that is not one of keptFiles is
// refused.
func (r *Result) keep(dir string) error {
	if dir == "" || len(r.Files) == 0 {
		return nil
	}
	var errs []error
	for name, text := range r.Files {
		if !slices.Contains(keptFiles, name) {
			errs = append(errs, fmt.Errorf("%w: result file %q is not one of k6's", ErrFraming, name))
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		errs = append(errs, results.WriteFileAtomic(filepath.Join(dir, name), []byte(text)))
	}
	return errors.Join(errs...)
}

// InstalledName is the name Install gives the binary it copies.
const InstalledName = "sweep"

// Install copies the running program (the static sweep binary) into dir
// as InstalledName, executable by every user, and returns its path: how
// the load image hands `sweep drive` to a container of another image (a
// user's k6 image) through a volume both mount, with no shell or cp in
// either. It replaces a file of that name, and leaves dir writable by
// every user (as /tmp is: sticky), for `sweep drive --dir` run by the k6
// image's user, whichever it is (grafana/k6's is not root; a named
// volume on a swarm node is made root's 0755).
func Install(dir string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("install sweep: %w", err)
	}
	src, err := os.Open(self)
	if err != nil {
		return "", fmt.Errorf("install sweep: %w", err)
	}
	defer src.Close()
	dst := filepath.Join(dir, InstalledName)
	tmp, err := os.CreateTemp(dir, ".sweep-*")
	if err != nil {
		return "", fmt.Errorf("install sweep: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = io.Copy(tmp, src)
	err = errors.Join(err, tmp.Chmod(0o755), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err == nil {
		err = shareDir(dir)
	}
	if err != nil {
		return "", fmt.Errorf("install sweep into %s: %w", dir, err)
	}
	return dst, nil
}

// shareDir makes dir writable by every user, sticky, unless it is
// already writable by every user (a Kubernetes emptyDir, which its user
// may not own).
func shareDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm()&0o002 != 0 {
		return err
	}
	return os.Chmod(dir, 0o777|os.ModeSticky)
}
