package results

import (
	"slices"
	"testing"
)

func TestAdopt(t *testing.T) {
	t.Parallel()
	ratio := 0.98
	rec := Record{Cell: CellInfo{ID: "cpu_1__web_2__db_4"}, Status: StatusOK, Applied: Applied{CPUs: 1},
		PhasesS: map[string]float64{"apply": 1, "measure": 0}, Warnings: []string{"cell's own"},
		ConnLimit: []string{"run over the connection limit: pool 8"}, Round: 2}
	from := Record{Cell: CellInfo{ID: "other"}, Status: StatusFailed, Applied: Applied{CPUs: 9},
		Load: LoadInfo{Driver: "k6", Model: "closed", VUs: 8}, Measurement: Measurement{Requests: 10, RPS: 5},
		Driver: &DriverStats{CPUPerRequestUS: 250}, Host: &HostStats{CPUPressure: &CPUPressure{SomeShare: 0.5}},
		LittlesRatio: &ratio, PhasesS: map[string]float64{"apply": 7, "measure": 5, "warmup": 2},
		Warnings: []string{"level's"}, Round: 1, Stopping: &Stopping{StoppedEarly: true},
		ConnLimit: []string{"run over the connection limit: pool 8", "3 line(s) of the target's log say too many clients"}}
	rec.Adopt(from)
	if rec.Cell.ID != "cpu_1__web_2__db_4" || rec.Status != StatusOK || rec.Applied.CPUs != 1 || rec.Round != 2 {
		t.Errorf("identity, status or applied changed: %+v", rec)
	}
	if rec.RPS != 5 || rec.Load.Driver != "k6" || rec.Driver.CPUPerRequestUS != 250 || rec.Host.CPUPressure.SomeShare != 0.5 ||
		*rec.LittlesRatio != ratio {
		t.Errorf("measurement not adopted: %+v", rec)
	}
	if rec.PhasesS["apply"] != 1 || rec.PhasesS["measure"] != 0 || rec.PhasesS["warmup"] != 2 {
		t.Errorf("phases %v: the cell's own must stay, missing ones come from the level", rec.PhasesS)
	}
	if !slices.Equal(rec.Warnings, []string{"cell's own", "level's"}) {
		t.Errorf("warnings %q", rec.Warnings)
	}
}

// TestAdoptFindings: what the adopted measurement found about connection
// limits reaches the cell once, and so does how its phases were stopped;
// nothing adopted keeps the cell's own.
func TestAdoptFindings(t *testing.T) {
	t.Parallel()
	rec := Record{ConnLimit: []string{"run over the connection limit: pool 8"}}
	rec.Adopt(Record{Stopping: &Stopping{StoppedEarly: true},
		ConnLimit: []string{"run over the connection limit: pool 8", "3 line(s) of the target's log say too many clients"}})
	if want := []string{"run over the connection limit: pool 8", "3 line(s) of the target's log say too many clients"}; !slices.Equal(rec.ConnLimit, want) {
		t.Errorf("conn_limit %q, want %q", rec.ConnLimit, want)
	}
	if rec.Stopping == nil || !rec.StoppedEarly {
		t.Errorf("stopping %+v, want the measurement's", rec.Stopping)
	}
	own := &Stopping{WarmupUsedS: 3}
	rec = Record{Stopping: own}
	rec.Adopt(Record{})
	if rec.Stopping != own || rec.ConnLimit != nil {
		t.Errorf("nothing to adopt changed the cell: %+v %q", rec.Stopping, rec.ConnLimit)
	}
}
