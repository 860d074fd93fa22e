package sweep

import (
	"errors"
	"testing"
)

func TestLaneSpecIsCheckedBeforeAnythingStarts(t *testing.T) {
	t.Parallel()
	lanes := func(edit func(*Spec)) Spec {
		s := testSpec()
		s.Swarm, s.Parallel, s.URL = true, 2, "http://{node}:18080"
		edit(&s)
		return s
	}
	for _, c := range []struct {
		name  string
		spec  Spec
		field string
	}{
		{"without swarm", lanes(func(s *Spec) { s.Swarm = false }), "parallel"},
		{"negative", lanes(func(s *Spec) { s.Parallel = -1 }), "parallel"},
		{"too many", lanes(func(s *Spec) { s.Parallel = MaxParallel + 1 }), "parallel"},
		{"one URL for two lanes", lanes(func(s *Spec) { s.URL = "http://10.0.0.2:18080" }), "url"},
		{"one database for two lanes", lanes(func(s *Spec) { s.DBDSN = "postgres://u:p@10.0.0.2/db" }), "db_dsn"},
		{"one pooler for two lanes", lanes(func(s *Spec) { s.PoolerDSN = "postgres://u:p@10.0.0.2/pgbouncer" }), "pooler_dsn"},
		{"a service placed", lanes(func(s *Spec) { s.Place = []string{"app=node.id==x"} }), "place"},
		{"halving", lanes(func(s *Spec) { s.Strategy = StrategyHalving }), "parallel"},
		{"fewer nodes named than lanes", lanes(func(s *Spec) { s.LaneNodes = []string{"a"} }), "lane_nodes"},
		{"nodes named without lanes", lanes(func(s *Spec) { s.Parallel, s.URL, s.LaneNodes = 0, "http://x:1", []string{"a"} }), "lane_nodes"},
		{"{node} without lanes", lanes(func(s *Spec) { s.Parallel = 0 }), "parallel"},
	} {
		var bad *BadInputError
		if err := c.spec.Validate(); !errors.As(err, &bad) || bad.Field != c.field {
			t.Errorf("%s: %v, want bad input naming %s", c.name, err, c.field)
		}
	}
	ok := lanes(func(s *Spec) {
		s.DBDSN, s.Place = "postgres://u:p@{node}:15432/db", []string{"load=node.role==manager"}
		s.LoadImage = "sweep-drive:x"
	})
	if err := ok.Validate(); err != nil {
		t.Errorf("a templated URL and DSN with a placed load: %v", err)
	}
	l := ok.ForLane("10.77.0.4")
	if l.URL != "http://10.77.0.4:18080" || l.DBDSN != "postgres://u:p@10.77.0.4:15432/db" {
		t.Errorf("lane spec: URL %s, DSN %s", l.URL, l.DBDSN)
	}
	one := lanes(func(s *Spec) { s.Parallel, s.URL = 1, "http://10.0.0.2:18080" })
	if err := one.Validate(); err != nil {
		t.Errorf("one lane at a fixed URL: %v", err)
	}
}
