package session

import (
	"context"
	"errors"
	"strings"

	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/sweep"
)

// The Kubernetes backend is a Stack.
var _ Stack = (*kube.Stack)(nil)

// newKubeStack builds the Kubernetes stack of manifests files on the
// cluster the environment's kubeconfig names; a cluster that does not
// answer is bad input of {kubernetes}, before anything is applied. The
// first one built serves the removal by label (its namespace).
func (s *Session) newKubeStack(ctx context.Context, files []string) (Stack, error) {
	st, err := kube.New(ctx, kube.Options{StackOptions: s.stackOptions(files, s.spec.URL),
		Context: s.spec.KubeContext, Container: s.spec.Container})
	if errors.Is(err, kube.ErrCluster) {
		return nil, sweep.BadInput("kubernetes", "%v", err)
	}
	if err != nil {
		return nil, err
	}
	if s.cleanup == nil {
		s.cleanup = st.Down
	}
	return st, nil
}

// kubeLoad is the built-in driver as one Job per phase in the run's
// namespace, placed by the spec's load=KEY=VALUE entries (a node
// selector), so the target's Service name resolves from the load.
func (s *Session) kubeLoad(st *kube.Stack) (sweep.Driver, error) {
	sel := map[string]string{}
	for _, e := range s.spec.LoadPlace() {
		k, v, ok := strings.Cut(e, "=")
		if !ok || k == "" {
			return nil, sweep.BadInput("place", "load=%s: on Kubernetes the load is placed by a node label, load=KEY=VALUE (e.g. load=kubernetes.io/hostname=node2)", e)
		}
		sel[k] = v
	}
	d, err := kube.NewDriver(st.Client(), kube.DriverOptions{Image: s.spec.LoadImage, Namespace: st.Namespace(),
		Labels: st.Labels(), NodeSelector: sel})
	if err != nil {
		return nil, sweep.BadInput("load_image", "%v", err)
	}
	return d, nil
}
