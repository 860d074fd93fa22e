// Package flagfile sets flags from a YAML file whose keys are the flags'
// names (sweep's --config): what the command line gives wins, a list
// sets a list flag, relative paths are taken relative to the file, and
// the keys of other commands sharing the file are passed over.
// It is plumbing between a file and a pflag.FlagSet, with no knowledge
// of any one command.
package flagfile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/sweep-tool/sweep/sweep"
)

// Rebase turns a value of a path-valued key, as the file gives it, into
// one relative to where the program runs; dir is the file's folder.
type Rebase func(dir, value string) string

// File is a --config file as read: its path and its text, which the
// caller may read beyond the keys (sweep check names its TODO lines).
type File struct {
	Path string
	Data []byte
}

// Read reads the file at path; an error is bad input of the field
// "config".
func Read(path string) (File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return File{}, sweep.BadInput("config", "cannot read %s: %v", path, err)
	}
	return File{Path: path, Data: data}, nil
}

// Apply sets every flag of fs not given on the command line from the
// file; the values of the keys in paths are rebased. A key in others (a
// flag of another command that reads the same file) is passed over. Its
// errors are bad input of the field "config"; an unknown key (or the key
// "config" itself) is one.
func (f File) Apply(fs *pflag.FlagSet, paths map[string]Rebase, others ...string) error {
	var doc map[string]any
	if err := yaml.Unmarshal(f.Data, &doc); err != nil {
		return sweep.BadInput("config", "%s is not valid YAML: %v", f.Path, err)
	}
	for key, val := range doc {
		fl := fs.Lookup(key)
		if fl == nil && slices.Contains(others, key) {
			continue
		}
		if fl == nil || key == "config" {
			return sweep.BadInput("config", "unknown key %q in %s; keys are the flag names (see {help})", key, f.Path)
		}
		if fl.Changed {
			continue
		}
		if err := set(fl, val, filepath.Dir(f.Path), paths[key]); err != nil {
			return sweep.BadInput("config", "key %q in %s: %v", key, f.Path, message(err))
		}
	}
	return nil
}

func set(fl *pflag.Flag, val any, dir string, rebase Rebase) error {
	items, isList := val.([]any)
	if !isList {
		items = []any{val}
	}
	var parts []string
	for _, it := range items {
		switch it.(type) {
		case map[string]any, []any, nil:
			return fmt.Errorf("expected a value or a list of values")
		}
		s := fmt.Sprint(it)
		if rebase != nil {
			s = rebase(dir, s)
		}
		parts = append(parts, s)
	}
	if fl.Value.Type() == "stringArray" {
		for _, p := range parts {
			if err := fl.Value.Set(p); err != nil {
				return err
			}
		}
		return nil
	}
	return fl.Value.Set(strings.Join(parts, ","))
}

// Rel is the Rebase of a plain path: a relative one is joined to dir.
func Rel(dir, s string) string {
	if s != "" && !filepath.IsAbs(s) {
		s = filepath.Join(dir, s)
	}
	return s
}

// message is a flag's error without its field, for a message that names
// the config key instead.
func message(err error) string {
	if b, ok := err.(*sweep.BadInputError); ok {
		return b.Msg
	}
	return err.Error()
}
