package sweep

// Labels put on what sweep creates, so a crashed run can be found and
// cleaned up by label and a user's own containers are never touched.
const (
	// LabelRun carries the run id on every container of the stack.
	LabelRun = "sweep.run"
	// LabelCell carries the cell id on the target container.
	LabelCell = "sweep.cell"
	// LabelTarget marks a target an interleaved group runs (a container
	// or service of its own, Targets.StartTargets); its value is the
	// target's cell id.
	LabelTarget = "sweep.target"
	// LabelDir carries the absolute path of the run directory on every
	// container, and LabelHost the name of the host that path is on: they
	// lead `sweep clean` to the run's lock, which tells a live run from a
	// dead one.
	LabelDir  = "sweep.dir"
	LabelHost = "sweep.host"
)

// ProjectName is the compose project of a run: "sweep" and the run id's
// letters and digits (compose v2 wants lowercase letters and digits).
func ProjectName(runID string) string {
	out := []byte("sweep")
	for _, c := range []byte(runID) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			out = append(out, c)
		case c >= 'A' && c <= 'Z':
			out = append(out, c+'a'-'A')
		}
	}
	return string(out)
}
