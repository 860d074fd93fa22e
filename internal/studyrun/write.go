package studyrun

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// RunID is the run id of the study's run directory.
const RunID = "game-of-pools"

// Write reads the table and writes it as a run directory in dir:
// sweep.json with the study's spec and one result.json per cell.
func Write(dir string, table io.Reader, p Params) error {
	recs, err := Records(table, p)
	if err != nil {
		return err
	}
	spec := sweep.Spec{CPUs: CPUs, WebMult: WebMult, DBMult: DBMult, Service: "aidbox",
		WebEnv: "BOX_WEB_THREAD", PoolEnv: "BOX_DB_POOL_MAXIMUM_POOL_SIZE", NameEnv: "BOX_INSTANCE_NAME",
		Warmup: sweep.Duration(p.Warmup), Duration: sweep.Duration(time.Duration(recs[0].DurationS) * time.Second),
		Load: sweep.LoadSpec{VUsPerWeb: 2}, Driver: "k6", Repeat: 1, Order: "grid"}
	raw, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	meta := results.Meta{SchemaVersion: results.SchemaVersion, RunID: RunID, Spec: raw,
		Host: results.HostFacts{Driver: "k6"}}
	for _, r := range recs {
		meta.Cells = append(meta.Cells, r.Cell)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := meta.Write(dir); err != nil {
		return err
	}
	for _, r := range recs {
		cellDir := results.CellDir(dir, r.Cell.ID, r.Repetition)
		if err := os.MkdirAll(cellDir, 0o755); err != nil {
			return err
		}
		if err := results.WriteJSONAtomic(filepath.Join(cellDir, results.ResultFile), r); err != nil {
			return err
		}
	}
	return nil
}
