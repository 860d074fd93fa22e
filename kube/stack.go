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

// New reads the manifests and checks them, the target Deployment and its
// container, then connects to the cluster. Nothing is applied.
func New(ctx context.Context, opts Options) (*Stack, error) {
	s := &Stack{opts: opts, ns: Namespace(opts.RunID), serviceEnv: map[string]map[string]string{}}
	if s.ns == "sweep-" {
		return nil, sweep.BadInput("run_id", "%q needs at least one letter or digit", opts.RunID)
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

// ensureNamespace creates the run's namespace with its labels; one that
// exists must carry this run's label (a resumed run), else nothing is
// touched.
// apply applies one object into the namespace with the run's labels.
// StartDeps creates the namespace and applies every object but the target
// Deployment, Deployments among them with cfg.ServiceEnv, and waits until
// their Deployments and StatefulSets are rolled out and ready.
// withServiceEnv is o with env set on every container of its pod
// template (nil: o unchanged).
// setEnvList is a container's env list (as decoded YAML) with env's
// variables set, in place where they were, the others after in name order.
// Apply rolls the target out with cfg: the container's CPU limit and an
// equal request (so its CPU is its own, not shared above the request),
// the memory limit and request where cfg has one, the swept variables,
// the Recreate strategy (the old pod is gone before the new one starts),
// and cfg's labels as pod annotations. Other Deployments whose variables
// differ from the last Apply's are applied again with theirs.
// recreate applies u (a dependency with new variables) with the Recreate
// strategy when it is a Deployment, and waits for its rollout.
// targetFor is the target Deployment as cfg sets it.
// setEnv sets name to value in env, in place when it is there.
// WaitReady waits until the target's rollout is complete: the Deployment's
// newest generation observed, its one replica updated, ready and
// available, and no other pod of it left (terminating ones included). On
// timeout the error is sweep.ErrNotReady with what the pod waits for.
// waitWorkload waits for a Deployment's or StatefulSet's rollout, or a
// bare Pod's readiness; other kinds need no wait.
// waitDeployment polls Deployment name until its rollout is complete.
// podsOf lists Deployment d's pods, terminating ones included.
// podTrouble says why the pods of workload name are not ready, from their
// status: waiting reasons, last terminations, unready conditions.
// describePod says in one line where a pod stands.
// poll calls f every 250 ms until it says done, fails, or ctx ends
// (timeout > 0 bounds it further).
// targetPod is the target's one running pod, not terminating.
// ReadBack reads the target as the cluster runs it: the CPU and memory
// limits and the swept variables from the running pod's spec, checked
// against the resources the kubelet reports it applied
// (status.containerStatuses[].resources, where the cluster reports them),
// the container's id and start, and the node the pod runs on.
// Logs returns the last n lines of the target container's log.
// Down deletes the run's namespace and waits until it is gone (the
// namespace's deletion removes everything applied into it).
func (s *Stack) Down(ctx context.Context) error {
	return DeleteNamespace(ctx, s.c, s.ns, 2*time.Minute)
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

// NCPU is the most CPUs any schedulable node can give a pod (its
// allocatable CPU, whole cores): a cell's limit above it cannot be
// scheduled.
// Info tells the cluster's facts: the target node's CPUs and container
// runtime, the API server's version, and each workload's image.
// Containers maps the running workloads to their pods' containers'
// ids: the samplers of a Docker engine cannot read them (the kubelet's
// metrics serve a Kubernetes stack), so it is empty.
// workloadOf names the workload that owns a pod: its Deployment (through
// the ReplicaSet's name), StatefulSet or the pod itself.
// Labels are the labels of everything the stack creates (sweep.run).
func (s *Stack) Labels() map[string]string { return merge(nil, s.labels) }

// ProbeURL sends one GET to url as a pod of the run's namespace would:
// its host must be a Service of the namespace (name, name.namespace or
// name.namespace.svc[.cluster.local]), asked through the API server's
// service proxy at the URL's port and path. Any HTTP answer of the
// target is nil; a host that is no Service of the run, or a Service that
// does not answer, is a *sweep.ProbeError.

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
