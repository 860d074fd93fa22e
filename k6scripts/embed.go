// Package k6scripts holds the k6 scripts sweep ships, and the built-in
// driver's scenario files beside them, embedded into the binary so every
// run can copy exactly what ran into its run directory. It holds no load
// logic: the scripts are configured through k6's __ENV by the k6 driver
// (package load/k6), the scenarios are read by package load/scenario, and
// this package only hands them out.
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

// DemoCRUD is the demo's CRUD workload as a scenario file of the built-in
// driver (package load/scenario, the subset of Artillery's format it
// reads): nine linked FHIR resources created, read, updated and deleted
// per iteration, as operations create, read, update and delete.
//
//go:embed scenarios/demo-crud.yaml
var DemoCRUD []byte

// DemoCRUDFile is DemoCRUD's file name, which its parse errors name.
const DemoCRUDFile = "demo-crud.yaml"

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
