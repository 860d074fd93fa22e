package session

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"

	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/load/remote"
	"github.com/sweep-tool/sweep/metrics"
	"github.com/sweep-tool/sweep/sweep"
)

// The Kubernetes backend is a Stack.
var _ Stack = (*kube.Stack)(nil)

// newKubeStack builds the Kubernetes stack of manifests files on the
// cluster the environment's kubeconfig names; a cluster that does not
// answer is bad input of {kubernetes}, before anything is applied. The
// first one built serves the removal by label (its namespace).
func (s *Session) newKubeStack(ctx context.Context, files []string) (Stack, error) {
	return s.kubeStack(ctx, kube.Options{StackOptions: s.stackOptions(files, s.spec.URL)})
}

// kubeStack is kube.New with the spec's Kubernetes settings added to
// opts.
func (s *Session) kubeStack(ctx context.Context, opts kube.Options) (*kube.Stack, error) {
	opts.Context, opts.Container, opts.InPlace = s.spec.KubeContext, s.spec.Container, s.spec.InPlace
	st, err := kube.New(ctx, opts)
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

// buildKubeLanes is buildLanes on Kubernetes: a namespace per lane
// (sweep-<id>-l<k>), every pod of it pinned to the lane's node, its
// database reached through a port-forward of its own and its load a Job
// pinned to the lane's node too (unless the spec places the load).
func (s *Session) buildKubeLanes(ctx context.Context) error {
	c, err := kube.Connect(ctx, s.opts.Env, s.spec.KubeContext)
	if errors.Is(err, kube.ErrCluster) {
		return sweep.BadInput("kubernetes", "%v", err)
	}
	if err != nil {
		return err
	}
	nodes, err := kube.LaneNodes(ctx, c, s.spec.LaneNodes, s.spec.Parallel)
	if err != nil {
		return laneNodesErr(err)
	}
	var stacks []*kube.Stack
	for k, n := range nodes {
		l := &lane{node: n, spec: s.spec.ForLane(n.Addr)}
		st, err := s.kubeStack(ctx, kube.Options{StackOptions: s.stackOptions(s.spec.Manifests, l.spec.URL), Client: c,
			Lane: fmt.Sprint("l", k+1), PinTo: n.Hostname})
		if err != nil {
			return err
		}
		l.stack = st
		stacks = append(stacks, st)
		if err := s.addLane(l, k, func() (sweep.Driver, error) { return s.kubeLoad(st, n.Hostname) }); err != nil {
			return err
		}
		l.db.forward = kubeForward(st)
	}
	s.cleanup = func(ctx context.Context) error {
		var errs []error
		for _, st := range stacks {
			errs = append(errs, st.Down(ctx))
		}
		return errors.Join(errs...)
	}
	return nil
}

// kubeLoad is the built-in driver, or k6 from the spec's k6 image, as
// one Job per phase in the stack's namespace, placed by the spec's
// load=KEY=VALUE entries (a node selector), else on node (a host name;
// "": anywhere), so the target's Service name resolves from the load.
func (s *Session) kubeLoad(st *kube.Stack, node string) (sweep.Driver, error) {
	sel := map[string]string{}
	for _, e := range s.spec.LoadPlace() {
		k, v, ok := strings.Cut(e, "=")
		if !ok || k == "" {
			return nil, sweep.BadInput("place", "load=%s: on Kubernetes the load is placed by a node label, load=KEY=VALUE (e.g. load=kubernetes.io/hostname=node2)", e)
		}
		sel[k] = v
	}
	if len(sel) == 0 && node != "" {
		sel[corev1.LabelHostname] = node
	}
	opts := kube.DriverOptions{Image: s.spec.LoadImage, Namespace: st.Namespace(), Labels: st.Labels(), NodeSelector: sel, Builtin: s.builtin}
	if s.spec.K6Away() {
		opts.K6 = &remote.K6Options{Image: s.spec.K6Image, Script: s.spec.Script}
	}
	d, err := kube.NewDriver(st.Client(), opts)
	if err != nil {
		return nil, awayDriverError(opts.K6 != nil, err)
	}
	return d, nil
}

// forwardFunc opens a port-forward to host:port when host is a Service
// of the run, returning the local address and its stop; ok is false for
// any other host.
type forwardFunc func(ctx context.Context, host string, port int) (addr string, stop func() error, ok bool, err error)

// kubeForward is forwardFunc on the Kubernetes stack st.
func kubeForward(st *kube.Stack) forwardFunc {
	return func(ctx context.Context, host string, port int) (string, func() error, bool, error) {
		f, err := st.Forward(ctx, host, port)
		if errors.Is(err, kube.ErrNoService) {
			return "", nil, false, nil
		}
		if err != nil {
			return "", nil, true, err
		}
		return f.Addr, f.Close, true, nil
	}
}

// viaForward is dsn with its host and port replaced by a port-forward's
// local end when its host is a Service of the run (a DSN as a pod of the
// run's namespace would dial it: postgres://…@db:5432/…); any other DSN
// as it is. A Service that cannot be forwarded to is bad input of field.
func (x *samplers) viaForward(ctx context.Context, field, dsn string) (string, error) {
	if x.forward == nil {
		return dsn, nil
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil || net.ParseIP(cfg.Host) != nil || cfg.Host == "localhost" || strings.HasPrefix(cfg.Host, "/") {
		return dsn, nil
	}
	addr, stop, ok, err := x.forward(ctx, cfg.Host, int(cfg.Port))
	if !ok {
		return dsn, nil
	}
	if err != nil {
		return "", sweep.BadInput(field, "%s names Service %s of the run, and sweep could not forward a local port to it: %v",
			metrics.RedactDSN(dsn), cfg.Host, err)
	}
	x.forwards = append(x.forwards, stop)
	return withAddr(dsn, addr), nil
}

// withAddr is dsn (a URL or key=value pairs) at host:port addr.
func withAddr(dsn, addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Host = addr
		return u.String()
	}
	return dsn + " host=" + host + " port=" + port
}
