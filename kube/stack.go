package kube

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/sweep-tool/sweep/sweep"
)

// FieldManager is the server-side apply field manager sweep applies as.
const FieldManager = "sweep"

// Annotations sweep puts on what it creates: the run's directory and host
// (label values may not hold a path), and on the target's pod template the
// apply's sequence number, so every Apply rolls out a new pod even when a
// cell asks for the settings the last one had (as compose recreates the
// container).
const (
	AnnotationDir   = "sweep.dir"
	AnnotationHost  = "sweep.host"
	AnnotationApply = "sweep.apply"
)

// Options are the Kubernetes stack's: sweep.StackOptions (Files are the
// manifests, Service the target Deployment) and its own.
type Options struct {
	sweep.StackOptions
	// Context is the kubeconfig context (empty: the current one).
	Context string
	// Container is the target's container when its pod has several.
	Container string
	// Client is a connected client; nil: Connect with Env and Context.
	Client *Client
	// Lane, with Spec.Parallel, names the lane (l1, l2, ...): its
	// namespace is the run's with -Lane after it. PinTo is the node every
	// pod of the stack is pinned to (a node selector on its host name, in
	// place of the manifests' own node selectors and node affinity).
	Lane, PinTo string
	// InPlace resizes the target's pod in place (pods/resize) when a cell
	// differs from the last one applied only in its CPU limit, instead of
	// rolling out a new pod; where the cluster cannot, it rolls out.
	InPlace bool
}

// Stack is the user's manifests in the run's namespace.
type Stack struct {
	opts      Options
	c         *Client
	ns        string
	objs      []Object
	target    *appsv1.Deployment
	container string
	labels    map[string]string
	notes     map[string]string
	// applies counts Apply calls (the template's sweep.apply).
	applies int
	// env is what the last Apply set on other Deployments, by name.
	serviceEnv map[string]map[string]string
	// last is the configuration the last Apply set (nil before the
	// first); resizing names the pod the last Apply resized in place,
	// until WaitReady saw it done, and resized says the last Apply
	// resized rather than rolled out; noResize, once set, is why the
	// cluster cannot resize in place; rolledCPUs is the CPU limit of the
	// last rollout, which the Deployment's template keeps.
	last       *sweep.TargetConfig
	resizing   string
	resized    bool
	noResize   string
	rolledCPUs float64
	// own is, on a target's view of the stack (targets.go), the target's
	// sweep.target label: the other targets' pods are no part of it.
	own string
}

// Namespace is the namespace of run runID: sweep- and the id's letters
// and digits, lower case, at most 63 characters.
func Namespace(runID string) string {
	n := "sweep-" + strings.TrimPrefix(sweep.ProjectName(runID), "sweep")
	if len(n) > 63 {
		n = n[:63]
	}
	return n
}

// LaneNamespace is the namespace of lane lane of run runID: the run's
// namespace, cut to leave room, then - and the lane.
func LaneNamespace(runID, lane string) string {
	n := Namespace(runID)
	return n[:min(len(n), 62-len(lane))] + "-" + lane
}

// New reads the manifests and checks them, the target Deployment and its
// container, then connects to the cluster. Nothing is applied.
func New(ctx context.Context, opts Options) (*Stack, error) {
	s := &Stack{opts: opts, ns: Namespace(opts.RunID), serviceEnv: map[string]map[string]string{}}
	if s.ns == "sweep-" {
		return nil, sweep.BadInput("run_id", "%q needs at least one letter or digit", opts.RunID)
	}
	if opts.Lane != "" {
		s.ns = LaneNamespace(opts.RunID, opts.Lane)
	}
	if len(opts.Files) == 0 {
		return nil, sweep.BadInput("manifests", "no manifests; give the stack's Kubernetes manifests (a file or a directory)")
	}
	var err error
	if s.objs, err = ReadManifests(opts.Files); err != nil {
		return nil, sweep.BadInput("manifests", "%v", err)
	}
	if err := s.findTarget(); err != nil {
		return nil, err
	}
	l, err := opts.RunLabels()
	if err != nil {
		return nil, err
	}
	s.labels = map[string]string{sweep.LabelRun: l.ID}
	s.notes = map[string]string{}
	if l.Dir != "" {
		s.notes[AnnotationDir], s.notes[AnnotationHost] = l.Dir, l.Host
	}
	if s.c = opts.Client; s.c == nil {
		if s.c, err = Connect(ctx, opts.Env, opts.Context); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// findTarget finds the Deployment Options.Service names and its container.
func (s *Stack) findTarget() error {
	var deps []string
	for _, o := range s.objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		deps = append(deps, o.GetName())
		if o.GetName() != s.opts.Service {
			continue
		}
		var d appsv1.Deployment
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &d); err != nil {
			return sweep.BadInput("manifests", "%s: %v", o.Ref(), err)
		}
		s.target = &d
	}
	if s.target == nil {
		return sweep.BadInput("service", "%q is not a Deployment of the manifests; Deployments: %s",
			s.opts.Service, strings.Join(deps, ", "))
	}
	if r := s.target.Spec.Replicas; r != nil && *r != 1 {
		return sweep.BadInput("service", "Deployment %s has %d replicas; sweep measures one pod under each CPU limit: set replicas: 1", s.opts.Service, *r)
	}
	cs := s.target.Spec.Template.Spec.Containers
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
	}
	switch {
	case s.opts.Container != "" && !slices.Contains(names, s.opts.Container):
		return sweep.BadInput("container", "%q is not a container of Deployment %s; containers: %s",
			s.opts.Container, s.opts.Service, strings.Join(names, ", "))
	case s.opts.Container != "":
		s.container = s.opts.Container
	case len(cs) == 1:
		s.container = cs[0].Name
	default:
		return sweep.BadInput("container", "Deployment %s has %d containers (%s); name the target's",
			s.opts.Service, len(cs), strings.Join(names, ", "))
	}
	return nil
}

// Namespace is the run's namespace.
func (s *Stack) Namespace() string { return s.ns }

// Client is the stack's connection to the cluster.
func (s *Stack) Client() *Client { return s.c }

// Services lists the manifests' workloads (Deployments, StatefulSets and
// bare Pods) by name, in order.
func (s *Stack) Services() []string {
	var out []string
	for _, o := range s.objs {
		switch o.GetKind() {
		case "Deployment", "StatefulSet", "Pod":
			out = append(out, o.GetName())
		}
	}
	return out
}

// Project is the stack's name, sweep.ProjectName of the run id.
func (s *Stack) Project() string { return sweep.ProjectName(s.opts.RunID) }

// Down deletes the run's namespace and waits until it is gone (the
// namespace's deletion removes everything applied into it).
func (s *Stack) Down(ctx context.Context) error {
	return DeleteNamespace(ctx, s.c, s.ns, sweep.DownTimeout)
}

// DeleteNamespace deletes namespace ns and waits up to timeout until it
// is gone; one already gone is no error.
func DeleteNamespace(ctx context.Context, c *Client, ns string, timeout time.Duration) error {
	fg := metav1.DeletePropagationForeground
	err := c.Core.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{PropagationPolicy: &fg})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete namespace %s: %w", ns, err)
	}
	err = poll(ctx, timeout, func() (bool, error) {
		_, err := c.Core.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return fmt.Errorf("namespace %s not gone within %s: %w", ns, timeout, err)
	}
	return nil
}

// Labels are the labels of everything the stack creates (sweep.run).
func (s *Stack) Labels() map[string]string { return merge(nil, s.labels) }

// TargetContainer reads manifests files and returns the container of
// Deployment service that a run targets: container when given (it must
// be one of the Deployment's), else the Deployment's only container.
// What is wrong is bad input, as for New.
func TargetContainer(files []string, service, container string) (string, error) {
	s := &Stack{opts: Options{StackOptions: sweep.StackOptions{Files: files, Service: service}, Container: container}}
	var err error
	if s.objs, err = ReadManifests(files); err != nil {
		return "", sweep.BadInput("manifests", "%v", err)
	}
	if err := s.findTarget(); err != nil {
		return "", err
	}
	return s.container, nil
}

// Containers reads manifests files and returns the containers of
// Deployment name; one not in them is bad input of {pool_env}.
func Containers(files []string, name string) ([]string, error) {
	objs, err := ReadManifests(files)
	if err != nil {
		return nil, sweep.BadInput("manifests", "%v", err)
	}
	for _, o := range objs {
		if o.GetKind() != "Deployment" || o.GetName() != name {
			continue
		}
		cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		var out []string
		for _, c := range cs {
			if m, ok := c.(map[string]any); ok {
				if n, _ := m["name"].(string); n != "" {
					out = append(out, n)
				}
			}
		}
		return out, nil
	}
	return nil, sweep.BadInput("pool_env", "%q is not a Deployment of the manifests", name)
}
