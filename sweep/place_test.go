package sweep

import (
	"reflect"
	"testing"
)

func TestPlaceSplitsTheLoadFromTheStack(t *testing.T) {
	t.Parallel()
	s := Spec{Place: []string{"app=node.id==b", "load=node.id==c", "db=node.labels.role==db", "load=node.labels.zone==1", "loader=node.id==d"}}
	if got, want := s.LoadPlace(), []string{"node.id==c", "node.labels.zone==1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("LoadPlace = %q, want %q", got, want)
	}
	if got, want := s.StackPlace(), []string{"app=node.id==b", "db=node.labels.role==db", "loader=node.id==d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("StackPlace = %q, want %q", got, want)
	}
	if got := (Spec{}).LoadPlace(); got != nil {
		t.Errorf("no place: LoadPlace = %q", got)
	}
}
