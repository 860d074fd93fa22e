package session

import (
	"errors"
	"fmt"

	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/load/remote"
	"github.com/sweep-tool/sweep/swarm"
	"github.com/sweep-tool/sweep/sweep"
)

// placeLoad makes the load run on a swarm node when the spec places it
// (a load=CONSTRAINT entry of place): each phase of the built-in driver,
// or of k6 from the spec's k6 image, then runs as a one-shot service
// there (package load/remote), created
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

// remoteLoad is the built-in driver, or k6 from the spec's k6 image, as
// one-shot services placed by the spec's load=CONSTRAINT entries, made
// through st's manager.
func (s *Session) remoteLoad(st *swarm.Stack) (sweep.Driver, error) {
	eng, ok := st.Manager().(remote.Engine)
	if !ok {
		return nil, fmt.Errorf("load service: the swarm manager's client lacks service logs")
	}
	opts := remote.Options{Image: s.spec.LoadImage, Constraints: s.spec.LoadPlace(), Labels: st.Labels(),
		NamePrefix: st.Project(), Builtin: s.builtin}
	if s.spec.K6Away() {
		opts.K6 = &remote.K6Options{Image: s.spec.K6Image, Script: s.spec.Script}
	}
	d, err := remote.New(eng, opts)
	if err != nil {
		return nil, awayDriverError(opts.K6 != nil, err)
	}
	return d, nil
}

// awayDriverError is the error of a driver away from sweep's process
// that its options refuse, as bad input of the field at fault.
func awayDriverError(k6 bool, err error) error {
	switch {
	case errors.Is(err, remote.ErrNoK6Image):
		return sweep.BadInput("k6_image", "%v", err)
	case k6 && !errors.Is(err, remote.ErrNoImage):
		return sweep.BadInput("script", "%v", err)
	}
	return sweep.BadInput("load_image", "%v", err)
}
