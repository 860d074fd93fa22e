// Package k6scripts holds the k6 scripts sweep ships, embedded into the
// binary so every run can copy exactly what ran into its run directory.
// It holds no load logic: the scripts are configured through k6's __ENV by
// the k6 driver (package load/k6), and this package only hands them out.
package k6scripts

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// FS holds the bundled scripts at its root (crud.js).
//
//go:embed *.js
var FS embed.FS

// CRUD is the file name of the bundled CRUD script, in FS and in the
// directory WriteTo writes to.
const CRUD = "crud.js"

// WriteTo copies every bundled script into dir, which must exist.
func WriteTo(dir string) error {
	names, err := fs.Glob(FS, "*.js")
	if err != nil {
		return fmt.Errorf("list scripts: %w", err)
	}
	for _, name := range names {
		data, err := FS.ReadFile(name)
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("write script: %w", err)
		}
	}
	return nil
}
