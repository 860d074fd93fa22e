package report

import "testing"

func TestProfileAdmits(t *testing.T) {
	t.Parallel()
	grid := Profile{Found: true, WebMult: 2, DBMult: 1, Best: [2]float64{2, 1}, Equivalent: [][2]float64{{2, 2}}}
	cases := []struct {
		name  string
		grid  Profile
		other Profile
		want  bool
	}{
		{"same pair", grid, Profile{Found: true, WebMult: 2, DBMult: 1}, true},
		{"equivalent in the grid", grid, Profile{Found: true, WebMult: 2, DBMult: 2}, true},
		{"another pair", grid, Profile{Found: true, WebMult: 4, DBMult: 1}, false},
		{"none found by the other", grid, Profile{}, false},
		{"none found by either", Profile{}, Profile{}, true},
		// Equivalence is the grid's: the other's ties do not count.
		{"the other's tie", Profile{Found: true, WebMult: 4, DBMult: 1, Best: [2]float64{4, 1}},
			Profile{Found: true, WebMult: 2, DBMult: 1, Equivalent: [][2]float64{{4, 1}}}, false},
	}
	for _, c := range cases {
		if got := c.grid.Admits(c.other); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
