package benchcli

import (
	"context"
	"os/exec"
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

func TestSweepExit(t *testing.T) {
	t.Parallel()
	exit := func(code string) error { return exec.Command("sh", "-c", "exit "+code).Run() }
	if note, err := SweepExit(t.Context(), exit("1")); note == "" || err != nil {
		t.Errorf("exit 1: %q, %v; want a note that a cell failed, no error", note, err)
	}
	if note, err := SweepExit(t.Context(), exit("2")); note != "" || err == nil {
		t.Errorf("exit 2: %q, %v; want the error", note, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := SweepExit(ctx, exit("1")); err == nil {
		t.Error("exit 1 after the bench was interrupted: no error")
	}
	if note, err := SweepExit(t.Context(), nil); note != "" || err != nil {
		t.Errorf("success: %q, %v", note, err)
	}
}
