package benchcli

import (
	"slices"
	"testing"
)

func TestFloats(t *testing.T) {
	t.Parallel()
	got, err := Floats("0.25, 0.5,1")
	if err != nil || !slices.Equal(got, []float64{0.25, 0.5, 1}) {
		t.Errorf("%v, %v; want [0.25 0.5 1]", got, err)
	}
	if _, err := Floats("1,,2"); err == nil {
		t.Error("an empty item was read as a number")
	}
}
