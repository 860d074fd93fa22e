package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sweep-tool/sweep/results"
)

// ErrFileChanged means a user file of the spec (the k6 script, the
// scenario file) no longer has the content the run recorded: what runs
// would not be what sweep.json says ran.
var ErrFileChanged = errors.New("changed since the run recorded it")

// UserFile is a file of the user's that makes the load, as the spec
// records it: its absolute path and the sha256 of its content. It is
// part of the spec, so a resume with a changed file is refused like any
// other change, and the run keeps a copy. K is its kind: the spec's key
// (the field bad input names), the words for it and the folder of the
// run's copy. Files the file itself names (a k6 script's modules) are
// not hashed.
type UserFile[K FileKind] struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// FileKind is a kind of UserFile: K6Script or ScenarioFile.
type FileKind interface{ fileKind() fileKind }

type fileKind struct {
	field string // the spec's key
	noun  string // how a message names it
	dir   string // the run directory's folder of its copy
}

// K6Script is the kind of the user's k6 script (--script).
type K6Script struct{}

func (K6Script) fileKind() fileKind { return fileKind{"script", "k6 script", results.ScriptDir} }

// ScenarioFile is the kind of the built-in driver's scenario file
// (--scenario, package load/scenario).
type ScenarioFile struct{}

func (ScenarioFile) fileKind() fileKind {
	return fileKind{"scenario", "scenario file", results.ScenarioDir}
}

// Script is the user's k6 script as the spec records it; nil runs the
// bundled crud.js.
type Script = UserFile[K6Script]

// Scenario is the built-in driver's scenario file as the spec records
// it; nil runs the demo's CRUD.
type Scenario = UserFile[ScenarioFile]

// userFileKeys are the spec's keys of user files, for DiffSpecs.
var userFileKeys = map[string]bool{K6Script{}.fileKind().field: true, ScenarioFile{}.fileKind().field: true}

func kindOf[K FileKind]() fileKind {
	var k K
	return k.fileKind()
}

// ReadUserFile hashes the file at path; an empty path is no file (nil,
// the bundled load runs). An unreadable file is bad input.
func ReadUserFile[K FileKind](path string) (*UserFile[K], error) {
	if path == "" {
		return nil, nil
	}
	k := kindOf[K]()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, BadInput(k.field, "%v", err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, BadInput(k.field, "cannot read the %s: %v", k.noun, err)
	}
	return &UserFile[K]{Path: abs, SHA256: hashOf(data)}, nil
}

// Verify reads the file again and returns its content; the error wraps
// ErrFileChanged when the content no longer has the recorded hash.
func (f *UserFile[K]) Verify() ([]byte, error) {
	k := kindOf[K]()
	data, err := os.ReadFile(f.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.noun, err)
	}
	if got := hashOf(data); got != f.SHA256 {
		return nil, fmt.Errorf("the %s %s %w: it has sha256 %.12s…, the run recorded %.12s…", k.noun, f.Path, ErrFileChanged, got, f.SHA256)
	}
	return data, nil
}

// Save copies the file into the run directory (<kind's folder>/<name>),
// after checking that it still has the recorded content, so the run
// keeps exactly what it measured with. A nil file saves nothing.
func (f *UserFile[K]) Save(runDir string) error {
	if f == nil {
		return nil
	}
	data, err := f.Verify()
	if err != nil {
		return err
	}
	k := kindOf[K]()
	dir := filepath.Join(runDir, k.dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("keep the %s: %w", k.noun, err)
	}
	return results.WriteFileAtomic(filepath.Join(dir, filepath.Base(f.Path)), data)
}

// Ref is what a cell's record says of the file (results.LoadInfo): its
// base name and hash; nil for no file.
func (f *UserFile[K]) Ref() *results.FileRef {
	if f == nil {
		return nil
	}
	return &results.FileRef{Name: filepath.Base(f.Path), SHA256: f.SHA256}
}

// rehash replaces a saved file's hash with its file's current one, so
// that DiffSpecs shows a file edited since the run as a difference.
func (f *UserFile[K]) rehash() (*UserFile[K], error) {
	if f == nil {
		return nil, nil
	}
	data, err := os.ReadFile(f.Path)
	if err != nil {
		k := kindOf[K]()
		return nil, BadInput(k.field, "the run's %s cannot be read (%v); its copy is in the run's %s/ folder",
			k.noun, err, k.dir)
	}
	return &UserFile[K]{Path: f.Path, SHA256: hashOf(data)}, nil
}

// userFileDiff describes a change of the spec's user-file key (saved and
// current are its decoded JSON values) for DiffSpecs.
func userFileDiff(key string, saved, current any) string {
	var was, now Script // every kind has the same JSON
	remarshal(saved, &was)
	remarshal(current, &now)
	switch {
	case saved == nil || current == nil:
		return fmt.Sprintf("%s (was %s, now %s)", key, show(saved), show(current))
	case was.Path != now.Path:
		return fmt.Sprintf("%s (was %s, now %s)", key, was.Path, now.Path)
	}
	return fmt.Sprintf("%s (%s changed: sha256 %.12s… → %.12s…)", key, now.Path, was.SHA256, now.SHA256)
}

func remarshal(from, to any) {
	b, _ := json.Marshal(from)
	_ = json.Unmarshal(b, to)
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
