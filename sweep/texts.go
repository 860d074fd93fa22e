package sweep

// Texts are the parts of a spec given as text (sweep's flags, a config
// file): Apply is the one place they are parsed into a Spec.
type Texts struct {
	// Load is the load model: vus=N, vus-per-web=K or rate=R.
	Load string
	// Strategy is grid or halving; empty: grid.
	Strategy string
	// Script is the path of the user's k6 script; empty: crud.js.
	Script string
	// Scenario is the path of the built-in driver's scenario file; empty:
	// the demo's CRUD.
	Scenario string
	// Baseline is web=W,pool=P; empty: none.
	Baseline string
	// Schedule is sequential or interleaved; empty: sequential.
	Schedule string
	// Rounds is an interleaved schedule's number of rounds or auto;
	// empty: auto with the interleaved schedule.
	Rounds string
	// LoadLevels, Memory, Axes and Variants are the extra axes.
	LoadLevels string
	Memory     []string
	Axes       []string
	Variants   []string
}

// Apply parses t into s: the load model (keeping s.Load.MaxVUs, which
// must not be negative), the strategy, the k6 script and the scenario
// file (read and hashed), the baseline and the extra axes, which replace
// the ones s had.
func (t Texts) Apply(s *Spec) error {
	load, err := ParseLoad(t.Load)
	if err != nil {
		return err
	}
	if s.Load.MaxVUs < 0 {
		return BadInput("load.max_vus", "must be >= 0")
	}
	load.MaxVUs = s.Load.MaxVUs
	s.Load = load
	if s.Strategy, err = ParseStrategy("strategy", t.Strategy); err != nil {
		return err
	}
	if s.Script, err = ReadUserFile[K6Script](t.Script); err != nil {
		return err
	}
	if s.Scenario, err = ReadUserFile[ScenarioFile](t.Scenario); err != nil {
		return err
	}
	if s.Schedule, err = ParseSchedule("schedule", t.Schedule); err != nil {
		return err
	}
	switch {
	case t.Rounds != "":
		if s.Rounds, s.RoundsAuto, err = ParseRounds("rounds", t.Rounds); err != nil {
			return err
		}
	case s.Interleaved():
		s.Rounds, s.RoundsAuto = 0, true // the default: auto
	}
	if t.Baseline != "" {
		if s.Baseline, err = ParseBaseline(t.Baseline); err != nil {
			return err
		}
	}
	return t.applyAxes(s)
}

// applyAxes parses the extra axes into s, replacing the ones it had.
func (t Texts) applyAxes(s *Spec) error {
	var err error
	s.LoadLevels, s.Memory, s.Axes, s.Variants = nil, nil, nil, nil
	if t.LoadLevels != "" {
		if s.LoadLevels, err = ParseLoadLevels(t.LoadLevels); err != nil {
			return err
		}
	}
	for _, m := range t.Memory {
		v, err := ParseMemory(m)
		if err != nil {
			return err
		}
		s.Memory = append(s.Memory, v)
	}
	for _, a := range t.Axes {
		axis, err := ParseAxis(a)
		if err != nil {
			return err
		}
		s.Axes = append(s.Axes, axis)
	}
	for _, v := range t.Variants {
		variant, err := ParseVariant(v)
		if err != nil {
			return err
		}
		s.Variants = append(s.Variants, variant)
	}
	return nil
}
