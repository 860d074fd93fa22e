package session

import (
	"fmt"

	"github.com/sweep-tool/sweep/load/remote"
	"github.com/sweep-tool/sweep/swarm"
	"github.com/sweep-tool/sweep/sweep"
)

// placeLoad makes the load run on a swarm node when the spec places it
// (a load=CONSTRAINT entry of place): each phase of the built-in driver
// then runs as a one-shot service there (package load/remote), created
// through the stack's manager with the stack's labels, so the stack's
// cleanup by label removes it too.
func (s *Session) placeLoad() error {
	cons := s.spec.LoadPlace()
	if len(cons) == 0 {
		return nil
	}
	st, ok := s.stack.(*swarm.Stack)
	if !ok {
		return sweep.BadInput("place", "the load runs on a node of a swarm; give {swarm} too")
	}
	eng, ok := st.Manager().(remote.Engine)
	if !ok {
		return fmt.Errorf("load service: the swarm manager's client lacks service logs")
	}
	d, err := remote.New(eng, remote.Options{Image: s.spec.LoadImage, Constraints: cons, Labels: st.Labels(),
		NamePrefix: st.Project()})
	if err != nil {
		return sweep.BadInput("load_image", "%v", err)
	}
	s.driver = d
	return nil
}
