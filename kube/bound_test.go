package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/sweep-tool/sweep/internal/boundtest"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// apiServer is a fake Kubernetes API server of one node that runs what
// is applied: each apply of a Deployment rolls out a new pod of its
// template, running and ready at once. A request that wedge (when set)
// picks is accepted and never answered: the handler waits until the
// client gives up on it.
type apiServer struct {
	wedge atomic.Pointer[func(r *http.Request) bool]
	quit  chan struct{} // closed at the test's end: wedged handlers return

	mu      sync.Mutex
	ns      bool                          // the run's namespace exists
	deploys map[string]*appsv1.Deployment // applied, by name
	applies map[string]int                // applies of each Deployment
}

// newAPIServer serves a fake API server until the test ends and returns
// a client of it.
func newAPIServer(t *testing.T) (*apiServer, *Client) {
	t.Helper()
	a := &apiServer{quit: make(chan struct{}), deploys: map[string]*appsv1.Deployment{}, applies: map[string]int{}}
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(a.quit) })                     // before Close, which waits for the handlers
	cfg := &rest.Config{Host: srv.URL, QPS: 50, Burst: 100, // as Connect's
		ContentConfig: rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"}}
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a, &Client{Core: core, Dyn: dyn, Config: cfg, Server: srv.URL}
}

// wedgeWhen makes every request f picks never answer.
func (a *apiServer) wedgeWhen(f func(r *http.Request) bool) { a.wedge.Store(&f) }

func (a *apiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f := a.wedge.Load(); f != nil && (*f)(r) {
		select {
		case <-r.Context().Done():
		case <-a.quit:
		}
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	p := strings.TrimPrefix(r.URL.Path, "/api/v1/namespaces/sweep-bound")
	switch {
	case r.URL.Path == "/version":
		reply(w, map[string]string{"gitVersion": "v1.99.0"})
	case r.URL.Path == "/api/v1/nodes":
		cpu := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")}
		reply(w, &corev1.NodeList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "NodeList"},
			Items: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node1"}, Status: corev1.NodeStatus{Allocatable: cpu, Capacity: cpu}}}})
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/namespaces":
		a.ns = true
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.Copy(w, r.Body)
	case p == "" && r.Method == http.MethodGet && a.ns:
		reply(w, &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: "sweep-bound", Labels: map[string]string{sweep.LabelRun: "bound"}}})
	case p == "/serviceaccounts/default":
		reply(w, &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}})
	case r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/apis/apps/v1/namespaces/sweep-bound/deployments/"):
		a.apply(w, r)
	case r.Method == http.MethodPatch: // other kinds are taken as applied
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, r.Body)
	case p == "/services/app":
		reply(w, &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Name: "app"},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"run": "app"}, Ports: []corev1.ServicePort{{Port: 8080}}}})
	case strings.HasPrefix(r.URL.Path, "/apis/apps/v1/namespaces/sweep-bound/deployments/"):
		a.deployment(w, strings.TrimPrefix(r.URL.Path, "/apis/apps/v1/namespaces/sweep-bound/deployments/"))
	case p == "/pods" && r.URL.Query().Get("watch") == "true":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		a.mu.Unlock() // nothing changes: no event until the client ends the watch
		select {
		case <-r.Context().Done():
		case <-a.quit:
		}
		a.mu.Lock()
	case p == "/pods":
		a.pods(w, r.URL.Query().Get("labelSelector"))
	case strings.HasSuffix(p, "/log"):
		_, _ = io.WriteString(w, "")
	case strings.HasPrefix(p, "/services/app:8080/proxy"):
		_, _ = io.WriteString(w, "ok")
	default:
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`, http.StatusNotFound)
	}
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// apply keeps the Deployment applied, rolled out at its next generation.
func (a *apiServer) apply(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var d appsv1.Deployment
	if err == nil {
		err = json.Unmarshal(body, &d)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.applies[d.Name]++
	d.Generation = int64(a.applies[d.Name])
	a.deploys[d.Name] = &d
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// deployment is Deployment name, rolled out.
func (a *apiServer) deployment(w http.ResponseWriter, name string) {
	d, ok := a.deploys[name]
	if !ok {
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`, http.StatusNotFound)
		return
	}
	out := d.DeepCopy()
	out.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}
	out.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 1, UpdatedReplicas: 1,
		ReadyReplicas: 1, AvailableReplicas: 1}
	reply(w, out)
}

// pods lists the one running pod of each Deployment's latest rollout
// that the selector picks.
func (a *apiServer) pods(w http.ResponseWriter, selector string) {
	sel, err := labels.Parse(selector)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	list := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for name, d := range a.deploys {
		p := corev1.Pod{ObjectMeta: d.Spec.Template.ObjectMeta, Spec: d.Spec.Template.Spec}
		p.Name = fmt.Sprintf("%s-%d", name, d.Generation)
		p.Spec.NodeName = "node1"
		started := metav1.NewTime(time.Unix(d.Generation, 0))
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
		for _, c := range p.Spec.Containers {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: c.Name, Ready: true,
				ContainerID: "containerd://" + p.Name, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}})
		}
		if sel.Matches(labels.Set(p.Labels)) {
			list.Items = append(list.Items, p)
		}
	}
	reply(w, list)
}

// manifests of app (the target, behind Service app:8080) and db.
const manifests = `apiVersion: apps/v1
kind: Deployment
metadata: {name: db}
spec:
  replicas: 1
  selector: {matchLabels: {run: db}}
  template:
    metadata: {labels: {run: db}}
    spec: {containers: [{name: db, image: db}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  replicas: 1
  selector: {matchLabels: {run: app}}
  template:
    metadata: {labels: {run: app}}
    spec: {containers: [{name: app, image: app}]}
---
apiVersion: v1
kind: Service
metadata: {name: app}
spec:
  selector: {run: app}
  ports: [{port: 8080}]
`

// newStack is the Kubernetes stack of manifests over c.
func newStack(t *testing.T, c *Client) *Stack {
	t.Helper()
	file := filepath.Join(t.TempDir(), "stack.yaml")
	if err := os.WriteFile(file, []byte(manifests), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(t.Context(), Options{StackOptions: sweep.StackOptions{Files: []string{file}, Service: "app",
		RunID: "bound", SweptEnv: []string{"W", "P", "N"}}, Client: c})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStackCallsEndWithTheirContext: whichever call of a Kubernetes stack
// (and of its port-forward, load Job and samplers) meets an API server
// that accepts it and never answers, the call returns soon after its
// context ends, with an error naming what it was doing.
func TestStackCallsEndWithTheirContext(t *testing.T) {
	t.Parallel()
	cfg := sweep.TargetConfig{CPUs: 1, Env: map[string]string{"W": "1", "P": "2", "N": "c"}}
	every := func(*http.Request) bool { return true }
	for _, tc := range []struct {
		name, want string
		wedge      func(r *http.Request) bool
		call       func(ctx context.Context, t *testing.T, s *Stack) error
	}{
		{"connect", "kubernetes cluster unreachable", every, func(ctx context.Context, t *testing.T, s *Stack) error {
			_, err := Connect(ctx, sweep.Env{"KUBECONFIG=" + kubeconfig(t, s.c.Server)}, "")
			return err
		}},
		{"start dependencies", "namespace sweep-bound", every, func(ctx context.Context, _ *testing.T, s *Stack) error {
			return s.StartDeps(ctx, cfg, time.Hour)
		}},
		{"apply", "apply ", every, func(ctx context.Context, _ *testing.T, s *Stack) error { return s.Apply(ctx, cfg) }},
		{"ready wait", "wait for deployment app", every, func(ctx context.Context, _ *testing.T, s *Stack) error {
			return s.WaitReady(ctx, time.Hour)
		}},
		{"read back", "deployment app", every, func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := s.ReadBack(ctx)
			return err
		}},
		{"logs", "deployment app", every, func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := s.Logs(ctx, 10)
			return err
		}},
		{"watch", "watch pods of sweep-bound", every, func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := s.Watch(ctx)
			return err
		}},
		{"watch, its opening", "watch pods of sweep-bound", func(r *http.Request) bool { return r.URL.Query().Get("watch") == "true" },
			func(ctx context.Context, _ *testing.T, s *Stack) error {
				_, err := s.Watch(ctx)
				return err
			}},
		{"down", "delete namespace sweep-bound", every, func(ctx context.Context, _ *testing.T, s *Stack) error { return s.Down(ctx) }},
		{"facts", "deployment app", every, func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := s.Info(ctx)
			return err
		}},
		{"node CPUs", "nodes", every, func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := s.NCPU(ctx)
			return err
		}},
		{"URL probe", "service app", every, func(ctx context.Context, _ *testing.T, s *Stack) error {
			return s.ProbeURL(ctx, "http://app:8080")
		}},
		{"port-forward", "port-forward to app:8080", every, func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := s.Forward(ctx, "app", 8080)
			return err
		}},
		{"sampled counters", "deployment app", every, func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := s.Received(ctx)
			return err
		}},
		{"load job", "create load job", every, func(ctx context.Context, _ *testing.T, s *Stack) error {
			d, err := NewDriver(s.c, DriverOptions{Image: "sweep-drive", Namespace: s.ns})
			if err != nil {
				return err
			}
			_, err = d.Run(ctx, sweep.LoadRequest{BaseURL: "http://app:8080", Duration: time.Second,
				Load: results.LoadInfo{Model: "closed", VUs: 1}})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, c := newAPIServer(t)
			s := newStack(t, c)
			if err := s.StartDeps(t.Context(), cfg, time.Minute); err != nil {
				t.Fatal(err)
			}
			if err := s.Apply(t.Context(), cfg); err != nil {
				t.Fatal(err)
			}
			a.wedgeWhen(tc.wedge)
			boundtest.Call(t, tc.want, func(ctx context.Context) error { return tc.call(ctx, t, s) })
		})
	}
}

// kubeconfig writes a kubeconfig of the API server at server and
// returns its path.
func kubeconfig(t *testing.T, server string) string {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: %q}}]\n"+
		"users: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n", server)
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Error(err)
	}
	return path
}

// TestRunnerOverKubernetesBoundsAWedgedApply: the runner over a
// Kubernetes stack whose API server never answers the second cell's
// apply of the target fails that cell within the call timeout and stops
// at the failure limit, the first cell kept; a resume over an API server
// that answers goes on.
func TestRunnerOverKubernetesBoundsAWedgedApply(t *testing.T) {
	t.Parallel()
	// every answered call of the first cell and the resume, each a round
	// trip to the fake API server, must beat it too: 3 s is many times a
	// loaded host's stalls, boundtest's 200 ms not
	spec := boundtest.Spec("http://app:8080", 5*time.Second, 3*time.Second)
	dir := t.TempDir()
	a, c := newAPIServer(t)
	var targetApplies atomic.Int32
	a.wedgeWhen(func(r *http.Request) bool {
		return r.Method == http.MethodPatch && strings.HasSuffix(r.URL.Path, "/deployments/app") && targetApplies.Add(1) == 2
	})
	boundtest.WedgedApply(t, spec, newStack(t, c), dir)
	_, c = newAPIServer(t)
	boundtest.Resume(t, spec, newStack(t, c), dir)
}
