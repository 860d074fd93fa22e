package kube

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/sweep-tool/sweep/sweep"
)

// usageAPI is a fake API server for one target pod, app-1 on node1, whose
// kubelet's summary samples the container's CPU every second of a clock
// the test moves (half a core used) and whose cAdvisor refreshes the CFS
// counters every refresh of it (10 periods a second, 1 throttled), each
// series stamped with its sample's time. It counts the requests by what
// they ask.
type usageAPI struct {
	t0      time.Time
	refresh time.Duration

	mu    sync.Mutex
	now   time.Duration // the kubelet's clock, from t0
	calls map[string]int
}

// cadvisor is the time of cAdvisor's latest sample and its counters.
func (a *usageAPI) cadvisor() (at time.Duration, periods, throttled uint64) {
	at = a.now / a.refresh * a.refresh
	return at, uint64(at.Seconds() * 10), uint64(at.Seconds())
}

func (a *usageAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch p := r.URL.Path; {
	case p == "/apis/apps/v1/namespaces/sweep-u/deployments/app":
		a.calls["deployment"]++
		reply(w, &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: "app"},
			Spec:       appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"run": "app"}}}})
	case p == "/api/v1/namespaces/sweep-u/pods":
		a.calls["pods"]++
		reply(w, &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, Items: []corev1.Pod{{
			ObjectMeta: metav1.ObjectMeta{Name: "app-1", Namespace: "sweep-u"},
			Spec:       corev1.PodSpec{NodeName: "node1"},
			Status: corev1.PodStatus{Phase: corev1.PodRunning,
				ContainerStatuses: []corev1.ContainerStatus{{Name: "app", ContainerID: "containerd://c0ffee"}}},
		}}})
	case p == "/api/v1/nodes/node1/proxy/stats/summary":
		a.calls["summary"]++
		fmt.Fprintf(w, `{"pods":[{"podRef":{"name":"app-1","namespace":"sweep-u"},"containers":[{"name":"app",`+
			`"cpu":{"time":%q,"usageCoreNanoSeconds":%d},"memory":{"workingSetBytes":1000}}]}]}`,
			a.t0.Add(a.now).Format(time.RFC3339Nano), a.now.Nanoseconds()/2)
	case p == "/api/v1/nodes/node1/proxy/metrics/cadvisor":
		a.calls["cadvisor"]++
		at, periods, throttled := a.cadvisor()
		ms := a.t0.Add(at).UnixMilli()
		id := `id="/kubepods/burstable/pod1/c0ffee"`
		fmt.Fprintf(w, "# TYPE container_cpu_cfs_periods_total counter\ncontainer_cpu_cfs_periods_total{%s} %d %d\n", id, periods, ms)
		fmt.Fprintf(w, "# TYPE container_cpu_cfs_throttled_periods_total counter\ncontainer_cpu_cfs_throttled_periods_total{%s} %d %d\n", id, throttled, ms)
		fmt.Fprintf(w, "# TYPE container_cpu_cfs_throttled_seconds_total counter\ncontainer_cpu_cfs_throttled_seconds_total{%s} %g %d\n", id, float64(throttled)/100, ms)
	default:
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`, http.StatusNotFound)
	}
}

// TestTargetUsageCallsPerSecond reads the target's Usage every second of
// a 30 s phase, as the Monitor does, and counts the API server's calls:
// the pod is looked up once for the phase (a Deployment and a pod list),
// the kubelet's summary read every second, and its cAdvisor metrics only
// when cAdvisor may have new CFS counters (cfsEvery after the last ones
// were sampled, then every second until they come) and at the phase's
// last reading: about 1.1 calls a second, where looking the pod up and
// reading both every second made 4. Every reading still carries the CPU
// of its second and, with cAdvisor refreshing every 10 s and, late,
// every 12 s, the CFS counters cAdvisor holds at that second; the last
// one those of its time.
func TestTargetUsageCallsPerSecond(t *testing.T) {
	for _, refresh := range []time.Duration{10 * time.Second, 12 * time.Second} {
		t.Run(refresh.String(), func(t *testing.T) {
			a := &usageAPI{t0: time.Date(2026, 12, 5, 6, 0, 0, 0, time.UTC), refresh: refresh, calls: map[string]int{}}
			srv := httptest.NewServer(a)
			t.Cleanup(srv.Close)
			core, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: 50, Burst: 100})
			if err != nil {
				t.Fatal(err)
			}
			s := &Stack{opts: Options{StackOptions: sweep.StackOptions{Service: "app"}}, ns: "sweep-u", container: "app",
				c: &Client{Core: core}}
			const seconds = 30
			read, err := s.TargetUsage(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for sec := range seconds {
				a.mu.Lock()
				a.now = time.Duration(sec) * time.Second
				_, periods, throttled := a.cadvisor()
				a.mu.Unlock()
				u, err := read(t.Context(), false)
				if err != nil {
					t.Fatalf("second %d: %v", sec, err)
				}
				if want := a.t0.Add(time.Duration(sec) * time.Second); !u.At.Equal(want) || u.CPUSeconds != float64(sec)/2 || u.MemBytes != 1000 {
					t.Errorf("second %d: at %s, %g CPU s, %d B; want at %s, %g s, 1000 B", sec, u.At, u.CPUSeconds, u.MemBytes, want, float64(sec)/2)
				}
				if u.Periods != periods || u.ThrottledPeriods != throttled || u.ThrottledSeconds != float64(throttled)/100 {
					t.Errorf("second %d: CFS %d periods, %d throttled (%g s); cAdvisor holds %d, %d", sec, u.Periods, u.ThrottledPeriods, u.ThrottledSeconds, periods, throttled)
				}
			}
			// the phase's last reading, 3 s after cAdvisor's latest refresh
			// here, reads the CFS counters of now
			a.mu.Lock()
			a.now, a.refresh = seconds*time.Second, time.Second
			_, periods, _ := a.cadvisor()
			a.mu.Unlock()
			if u, err := read(t.Context(), true); err != nil || u.Periods != periods {
				t.Errorf("the phase's last reading: %d periods (%v); cAdvisor holds %d", u.Periods, err, periods)
			}
			a.calls["summary"]--
			a.calls["cadvisor"]--
			total := 0
			for _, n := range a.calls {
				total += n
			}
			per := float64(total) / seconds
			t.Logf("cAdvisor every %s: %v, %.2f calls a second", refresh, a.calls, per)
			if a.calls["deployment"] != 1 || a.calls["pods"] != 1 || a.calls["summary"] != seconds {
				t.Errorf("calls %v; want the pod looked up once (a deployment, a pod list) and a summary each second", a.calls)
			}
			// once at the start, then for each refresh from cfsEvery after
			// the last sample until the new one
			r := int(refresh / time.Second)
			if most := 1 + seconds/r*(1+r-int(cfsEvery/time.Second)); a.calls["cadvisor"] > most {
				t.Errorf("cAdvisor metrics read %d times in %d s, refreshed every %s; want at most %d", a.calls["cadvisor"], seconds, refresh, most)
			}
			if per > 1.5 {
				t.Errorf("%.2f API calls a second of the phase; want at most 1.5", per)
			}
		})
	}
}
