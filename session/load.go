package session

import (
	"fmt"

	"github.com/sweep-tool/sweep/kube"
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
	if st, ok := s.stack.(*kube.Stack); ok {
		d, err := s.kubeLoad(st, "")
		if err != nil {
			return err
		}
		s.driver = d
		return nil
	}
	if len(s.spec.LoadPlace()) == 0 {
		return nil
	}
	st, ok := s.stack.(*swarm.Stack)
	if !ok {
		return sweep.BadInput("place", "the load runs on a node of a swarm; give {swarm} too")
	}
	d, err := s.remoteLoad(st)
	if err != nil {
		return err
	}
	s.driver = d
	return nil
}

// laneLoad is a swarm lane's load driver: the session's, or with the
// load placed on a node a one-shot service per phase made through the
// lane's stack (its labels and name).
func (s *Session) laneLoad(st *swarm.Stack) (sweep.Driver, error) {
	if len(s.spec.LoadPlace()) == 0 {
		return s.driver, nil
	}
	return s.remoteLoad(st)
}

// remoteLoad is the built-in driver as one-shot services placed by the
// spec's load=CONSTRAINT entries, made through st's manager.
func (s *Session) remoteLoad(st *swarm.Stack) (sweep.Driver, error) {
	eng, ok := st.Manager().(remote.Engine)
	if !ok {
		return nil, fmt.Errorf("load service: the swarm manager's client lacks service logs")
	}
	d, err := remote.New(eng, remote.Options{Image: s.spec.LoadImage, Constraints: s.spec.LoadPlace(), Labels: st.Labels(),
		NamePrefix: st.Project(), Builtin: s.builtin})
	if err != nil {
		return nil, sweep.BadInput("load_image", "%v", err)
	}
	return d, nil
}
