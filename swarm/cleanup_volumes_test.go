package swarm

import (
	"context"
	"reflect"
	"testing"

	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"

	"github.com/sweep-tool/sweep/engine"
)

// volumeEngine is a node's engine holding volumes by label; only its
// volume calls are used.
type volumeEngine struct {
	engine.Engine
	vols    []*volume.Volume
	removed []string
}

func (e *volumeEngine) VolumeList(_ context.Context, opts volume.ListOptions) (volume.ListResponse, error) {
	var out []*volume.Volume
	for _, v := range e.vols {
		if opts.Filters.MatchKVList("label", v.Labels) {
			out = append(out, v)
		}
	}
	return volume.ListResponse{Volumes: out}, nil
}

func (e *volumeEngine) VolumeRemove(_ context.Context, id string, _ bool) error {
	e.removed = append(e.removed, id)
	return nil
}

// TestRemoveVolumesOnTheNodes: the volumes a run's selectors find on a
// node's engine are removed there once each, whichever selectors find
// them; another run's stay.
func TestRemoveVolumesOnTheNodes(t *testing.T) {
	t.Parallel()
	eng := &volumeEngine{vols: []*volume.Volume{
		{Name: "sweepr1-sweep-bin", Labels: map[string]string{"sweep.run": "r1", NamespaceLabel: "sweepr1"}},
		{Name: "sweepr1_pgdata", Labels: map[string]string{"sweep.run": "r1", NamespaceLabel: "sweepr1"}},
		{Name: "sweepr2-sweep-bin", Labels: map[string]string{"sweep.run": "r2", NamespaceLabel: "sweepr2"}},
	}}
	mgr := &fakeManager{}
	ns := newNodes(mgr)
	ns.byID["n1"] = &node{engine: eng}
	out, errs := removeVolumes(t.Context(), mgr, ns, []filters.Args{
		filters.NewArgs(filters.Arg("label", "sweep.run=r1")),
		filters.NewArgs(filters.Arg("label", NamespaceLabel+"=sweepr1")),
	}, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if want := []string{"sweepr1-sweep-bin", "sweepr1_pgdata"}; !reflect.DeepEqual(eng.removed, want) {
		t.Errorf("removed %v, want %v", eng.removed, want)
	}
	if want := []string{"n1: sweepr1-sweep-bin", "n1: sweepr1_pgdata"}; !reflect.DeepEqual(out, want) {
		t.Errorf("said %v, want %v", out, want)
	}
}
