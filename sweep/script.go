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

// ErrScriptChanged means the user's k6 script no longer has the content
// the run recorded: what runs would not be what sweep.json says ran.
var ErrScriptChanged = errors.New("the k6 script changed since the run recorded it")

// Script is the user's own k6 script (--script) as the spec records it:
// its absolute path and the sha256 of its content. It is part of the
// spec, so a resume with a changed script is refused like any other
// change. Modules the script imports are not hashed.
type Script struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// ReadScript hashes the script at path; an empty path is no script
// (nil, the bundled one runs). An unreadable file is bad input.
func ReadScript(path string) (*Script, error) {
	if path == "" {
		return nil, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, BadInput("script", "%v", err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, BadInput("script", "cannot read the k6 script: %v", err)
	}
	return &Script{Path: abs, SHA256: hashOf(data)}, nil
}

// Verify reads the script again and returns its content; the error wraps
// ErrScriptChanged when the content no longer has the recorded hash.
func (s *Script) Verify() ([]byte, error) {
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return nil, fmt.Errorf("k6 script: %w", err)
	}
	if got := hashOf(data); got != s.SHA256 {
		return nil, fmt.Errorf("%w: %s has sha256 %.12s…, the run recorded %.12s…", ErrScriptChanged, s.Path, got, s.SHA256)
	}
	return data, nil
}

// Save copies the script into the run directory (script/<name>), after
// checking that it still has the recorded content, so the run keeps
// exactly what it measured with. A nil Script saves nothing.
func (s *Script) Save(runDir string) error {
	if s == nil {
		return nil
	}
	data, err := s.Verify()
	if err != nil {
		return err
	}
	dir := filepath.Join(runDir, results.ScriptDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("keep the k6 script: %w", err)
	}
	return results.WriteFileAtomic(filepath.Join(dir, filepath.Base(s.Path)), data)
}

// rehash replaces a saved script's hash with its file's current one, so
// that DiffSpecs shows a script edited since the run as a difference.
func (s *Script) rehash() (*Script, error) {
	if s == nil {
		return nil, nil
	}
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return nil, BadInput("script", "the run's k6 script cannot be read (%v); its copy is in the run's %s/ folder",
			err, results.ScriptDir)
	}
	return &Script{Path: s.Path, SHA256: hashOf(data)}, nil
}

// scriptDiff describes a change of the spec's script key (saved and
// current are its decoded JSON values) for DiffSpecs.
func scriptDiff(saved, current any) string {
	var was, now Script
	remarshal(saved, &was)
	remarshal(current, &now)
	switch {
	case saved == nil || current == nil:
		return fmt.Sprintf("script (was %s, now %s)", show(saved), show(current))
	case was.Path != now.Path:
		return fmt.Sprintf("script (was %s, now %s)", was.Path, now.Path)
	}
	return fmt.Sprintf("script (%s changed: sha256 %.12s… → %.12s…)", now.Path, was.SHA256, now.SHA256)
}

func remarshal(from, to any) {
	b, _ := json.Marshal(from)
	_ = json.Unmarshal(b, to)
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
