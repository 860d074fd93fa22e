package kube

import (
	"bytes"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/load/remote"
	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// statusFile is a user's scenario whose operation names are its own.
const statusFile = `scenarios:
  - name: status
    flow:
      - get: {url: "/v2/status?probe={{ $vu }}", expect: 200, name: probe status}
      - delete: {url: /v2/sessions/current, expect: 204, name: end session}
`

// statusServer answers statusFile's requests.
func statusServer(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/status", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"ok": true}`)) })
	mux.HandleFunc("DELETE /v2/sessions/current", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func statusScript(t *testing.T) *scenario.Script {
	t.Helper()
	s, err := scenario.Parse("/home/user/status.yaml", []byte(statusFile))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// farEnd is a fake API server whose load Jobs run: creating a Job starts
// its pod on node2, where `sweep drive`'s Serve runs the request from the
// pod's environment; the pod's log is what Serve printed.
func farEnd(t *testing.T) *fake.Clientset {
	t.Helper()
	cs := fake.NewClientset()
	var log []byte
	cs.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		job := a.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
		spec := job.Spec.Template.Spec
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: job.Name + "-x1", Namespace: job.Namespace,
				Labels: map[string]string{"batch.kubernetes.io/job-name": job.Name}},
			Spec:   corev1.PodSpec{NodeName: "node2", Containers: spec.Containers},
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		}
		if err := cs.Tracker().Add(pod); err != nil {
			return true, nil, err
		}
		getenv := func(name string) string {
			for _, e := range spec.Containers[0].Env {
				if e.Name == name {
					return e.Value
				}
			}
			return ""
		}
		var out bytes.Buffer
		if req, err := remote.ReadRequest("", getenv, strings.NewReader("")); err != nil {
			t.Errorf("the pod's request: %v", err)
		} else if err := remote.Serve(t.Context(), req, nil, &out); err != nil {
			t.Errorf("the far end: %v", err)
		}
		log = out.Bytes()
		return false, nil, nil // the tracker keeps the Job
	})
	cs.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "log" {
			return false, nil, nil
		}
		return true, &runtime.Unknown{Raw: log}, nil
	})
	return cs
}

func testLoadDriver(t *testing.T, cs *fake.Clientset, opts builtin.Options) *Driver {
	t.Helper()
	d, err := NewDriver(&Client{Core: cs}, DriverOptions{Image: "sweep-drive:abc", Namespace: "sweep-r1",
		Labels: map[string]string{sweep.LabelRun: "r1"}, Builtin: opts})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLoadJobRunsTheUsersScenario(t *testing.T) {
	t.Parallel()
	cs := farEnd(t)
	req := sweep.LoadRequest{BaseURL: statusServer(t), Load: results.LoadInfo{Model: "closed", VUs: 2}, Duration: time.Second}
	m, err := testLoadDriver(t, cs, builtin.Options{Script: statusScript(t)}).Run(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	ops := slices.Sorted(maps.Keys(m.Ops))
	if want := []string{"end session", "probe status"}; !slices.Equal(ops, want) || m.Requests == 0 || m.ErrorRate != 0 {
		t.Errorf("measurement: operations %q, %d requests, error rate %v; want %q without errors", ops, m.Requests, m.ErrorRate, want)
	}
	if m.LoadNode == nil || m.LoadNode.ID != "node2" {
		t.Errorf("load node %+v, want node2", m.LoadNode)
	}
	jobs, err := cs.BatchV1().Jobs("sweep-r1").List(t.Context(), metav1.ListOptions{})
	if err != nil || len(jobs.Items) != 0 {
		t.Errorf("jobs left: %v, %v", jobs, err)
	}
	created := jobsCreated(cs)
	if len(created) != 1 || created[0].Labels[sweep.LabelRun] != "r1" || created[0].Labels[LabelLoad] != "measure" {
		t.Fatalf("created jobs %+v, want one labelled with the run's labels", created)
	}
}

// jobsCreated are the Jobs cs was asked to create.
func jobsCreated(cs *fake.Clientset) []*batchv1.Job {
	var jobs []*batchv1.Job
	for _, a := range cs.Actions() {
		if c, ok := a.(k8stesting.CreateAction); ok && a.GetResource().Resource == "jobs" {
			jobs = append(jobs, c.GetObject().(*batchv1.Job))
		}
	}
	return jobs
}

func TestLoadJobRefusesARequestTooLarge(t *testing.T) {
	t.Parallel()
	cs := farEnd(t)
	req := sweep.LoadRequest{BaseURL: "http://app:8080/" + strings.Repeat("a", remote.MaxRequestSize),
		Load: results.LoadInfo{Model: "closed", VUs: 1}, Duration: time.Second}
	_, err := testLoadDriver(t, cs, builtin.Options{Script: statusScript(t)}).Run(t.Context(), req)
	if !errors.Is(err, remote.ErrRequestTooLarge) || len(jobsCreated(cs)) != 0 {
		t.Fatalf("err = %v with %d jobs created, want ErrRequestTooLarge and none", err, len(jobsCreated(cs)))
	}
	body := "scenarios:\n  - flow:\n      - post: {url: /, body: \"" + strings.Repeat("x", remote.MaxRequestSize) + "\"}\n"
	s, err := scenario.Parse("big.yaml", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewDriver(&Client{Core: cs}, DriverOptions{Image: "sweep-drive:abc", Builtin: builtin.Options{Script: s}})
	if !errors.Is(err, remote.ErrRequestTooLarge) {
		t.Fatalf("NewDriver with a scenario too large: err = %v, want ErrRequestTooLarge", err)
	}
}
