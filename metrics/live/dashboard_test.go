package live

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// dashboardFile is the Grafana dashboard shipped for these metrics.
var dashboardFile = filepath.Join("..", "..", "docs", "grafana", "sweep-live.json")

// metricName finds the metric names a PromQL expression uses; every
// family here starts with sweep_.
var metricName = regexp.MustCompile(`\bsweep_[a-zA-Z0-9_:]*`)

// dashboard is the part of Grafana's dashboard model the test reads.
type dashboard struct {
	UID        string `json:"uid"`
	Templating struct {
		List []struct {
			Name  string          `json:"name"`
			Query json.RawMessage `json:"query"`
		} `json:"list"`
	} `json:"templating"`
	Panels []dashPanel `json:"panels"`
}

type dashPanel struct {
	ID      int         `json:"id"`
	Title   string      `json:"title"`
	GridPos *struct{}   `json:"gridPos"`
	Panels  []dashPanel `json:"panels"` // a collapsed row's
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

// TestDashboardUsesTheRealMetrics: the dashboard is valid JSON, every
// metric name its queries (and its variables') use is a family the
// registry serves, and every family the registry serves is on a panel.
func TestDashboardUsesTheRealMetrics(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s is not valid JSON: %v", dashboardFile, err)
	}
	served := familyNames(t, everyFamily())
	used := map[string]bool{}
	ids := map[int]string{}
	for _, p := range flatten(d.Panels) {
		if prev, dup := ids[p.ID]; dup || p.ID == 0 || p.GridPos == nil {
			t.Errorf("panel %q: id %d (also %q) or no gridPos", p.Title, p.ID, prev)
		}
		ids[p.ID] = p.Title
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			checkNames(t, "panel "+p.Title, tg.Expr, served, used)
		}
	}
	for _, v := range d.Templating.List {
		checkNames(t, "variable "+v.Name, string(v.Query), served, nil)
	}
	for _, name := range served {
		if !used[name] {
			t.Errorf("%s is served but no panel shows it", name)
		}
	}
	t.Logf("%d panels over %d families", len(ids), len(served))
}

// checkNames fails for each metric name in expr that is not served and
// marks the others used.
func checkNames(t *testing.T, where, expr string, served []string, used map[string]bool) {
	t.Helper()
	names := metricName.FindAllString(expr, -1)
	if used != nil && len(names) == 0 {
		t.Errorf("%s: query %q names no sweep metric", where, expr)
	}
	for _, n := range names {
		if !slices.Contains(served, n) {
			t.Errorf("%s: query %q uses %s, which the registry does not serve (it serves %v)", where, expr, n, served)
		}
		if used != nil {
			used[n] = true
		}
	}
}

func flatten(ps []dashPanel) []dashPanel {
	var out []dashPanel
	for _, p := range ps {
		out = append(out, p)
		out = append(out, flatten(p.Panels)...)
	}
	return out
}

// familyNames are the names of the families m's registry gathers.
func familyNames(t *testing.T, m *Metrics) []string {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fams {
		names = append(names, f.GetName())
	}
	return names
}
