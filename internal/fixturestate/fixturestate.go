// Package fixturestate reads the state file a test fixture (the Swarm
// fixture, the Kubernetes fixture) writes once it is up and removes
// first when it goes down: the file's presence says "up", its JSON where
// everything is. Each fixture's package keeps its own State type and its
// own check of what a usable one holds.
package fixturestate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Dir is the state directory the environment variable env names, or def.
func Dir(env, def string) string {
	if d := os.Getenv(env); d != "" {
		return d
	}
	return def
}

// Read decodes the state file at path into v. A missing file is an error
// wrapping notUp (the fixture is not up, or going down); a file that is
// no JSON of v's shape names the path.
func Read(path string, notUp error, v any) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: no %s", notUp, path)
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}
