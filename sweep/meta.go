package sweep

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// NewMeta is sweep.json of a new run of spec by this tool version, before
// the facts of what ran: the cells, whether a database is sampled, and
// the spec itself with its DSNs left out.
func NewMeta(runID, version string, spec Spec) results.Meta {
	m := results.Meta{SchemaVersion: results.SchemaVersion, RunID: runID, CreatedAt: time.Now().UTC(),
		ToolVersion: version, DBSampled: spec.DBDSN != ""}
	for _, c := range spec.Cells() {
		m.Cells = append(m.Cells, c.Info())
	}
	m.Spec, _ = json.Marshal(spec.Redacted())
	return m
}

// FindSavedCell finds cell id in the run meta describes, before anything
// else about the run (its database, script or engine) is asked for.
func FindSavedCell(meta results.Meta, id string) (Cell, error) {
	var s Spec
	if err := json.Unmarshal(meta.Spec, &s); err != nil {
		return Cell{}, fmt.Errorf("spec in sweep.json: %w", err)
	}
	return s.FindCell(id)
}

// SpecOf reads the spec an earlier run saved in its sweep.json. The DSN
// is not saved: dsn fills it, and is needed exactly when the run sampled
// a database (any DSN: a changed host or password is no other spec). The
// hashes of the k6 script and the scenario file are taken again from
// their files, so a file edited since the run differs from the saved
// spec (see DiffSpecs).
func SpecOf(meta results.Meta, dsn string) (Spec, error) {
	var s Spec
	if err := json.Unmarshal(meta.Spec, &s); err != nil {
		return s, fmt.Errorf("spec in sweep.json: %w", err)
	}
	s.DBDSN = dsn
	var err error
	if s.Script, err = s.Script.rehash(); err != nil {
		return s, err
	}
	if s.Scenario, err = s.Scenario.rehash(); err != nil {
		return s, err
	}
	switch sampled := meta.SampledDB(); {
	case sampled && dsn == "":
		return s, BadInput("db_dsn", "the run sampled a database; give its DSN with {db_dsn} or SWEEP_DB_DSN")
	case !sampled && dsn != "":
		return s, BadInput("db_dsn", "the run used no database; drop {db_dsn} and SWEEP_DB_DSN")
	}
	return s, nil
}
