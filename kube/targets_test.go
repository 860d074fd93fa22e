package kube

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/sweep-tool/sweep/sweep"
)

// dns1035 is what a Service's name must be.
var dns1035 = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// targetsStack is testdata/app.yaml with Services beside it: app (a
// NodePort selecting the target), other (selecting other pods).
func targetsStack(t *testing.T) *Stack {
	t.Helper()
	file := write(t, t.TempDir(), "stack.yaml", deployment+`---
apiVersion: v1
kind: Service
metadata: {name: app, labels: {tier: web}}
spec:
  type: NodePort
  selector: {app: app}
  clusterIP: 10.0.0.7
  ports: [{port: 8080, targetPort: 8080, nodePort: 30080}]
---
apiVersion: v1
kind: Service
metadata: {name: other}
spec:
  selector: {app: other}
  ports: [{port: 80}]
`)
	s, err := New(t.Context(), Options{StackOptions: sweep.StackOptions{Files: []string{file}, Service: "app", RunID: "t1"}, Client: &Client{}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTargetService: each target's Service is a ClusterIP copy of the
// Service the URL names, under the target's name, selecting the target's
// pod alone; a URL whose host is no Service of the manifests, or one that
// does not select the target's pods, is bad input of url.
func TestTargetService(t *testing.T) {
	s := targetsStack(t)
	for _, raw := range []string{"http://app:8080", "http://app.sweep-t1.svc:8080/"} {
		u, _ := url.Parse(raw)
		svc, err := s.urlService(u)
		if err != nil || svc.GetName() != "app" {
			t.Fatalf("urlService(%s) = %s, %v", raw, svc.GetName(), err)
		}
	}
	for raw, want := range map[string]string{"http://db:5432": "is not a Service of the manifests", "http://other:80": "does not select the pods"} {
		u, _ := url.Parse(raw)
		_, err := s.urlService(u)
		var bad *sweep.BadInputError
		if !errors.As(err, &bad) || bad.Field != "url" || !strings.Contains(err.Error(), want) {
			t.Errorf("urlService(%s) = %v, want bad input of url saying %q", raw, err, want)
		}
	}
	u, _ := url.Parse("http://app:8080")
	svc, _ := s.urlService(u)
	name := sweep.TargetName("app-cpu_0.5__web_2__db_4", "cpu_0.5__web_2__db_4", "-", maxName, true)
	if !dns1035.MatchString(name) || len(name) > maxName || !strings.HasPrefix(name, "app-cpu-0-5-web-2-db-4-") {
		t.Errorf("target name %q: want app-cpu-0-5-web-2-db-4-<hash>, a DNS-1035 label", name)
	}
	c := copyService(svc, name, map[string]string{sweep.LabelTarget: name})
	sel, _, _ := unstructured.NestedStringMap(c.Object, "spec", "selector")
	typ, _, _ := unstructured.NestedString(c.Object, "spec", "type")
	ports, _, _ := unstructured.NestedSlice(c.Object, "spec", "ports")
	_, hasIP, _ := unstructured.NestedString(c.Object, "spec", "clusterIP")
	if c.GetName() != name || len(sel) != 2 || sel["app"] != "app" || sel[sweep.LabelTarget] != name || typ != "ClusterIP" || hasIP ||
		len(ports) != 1 || ports[0].(map[string]any)["nodePort"] != nil || c.GetLabels()["tier"] != "web" {
		t.Errorf("the target's Service: %v", c.Object)
	}
	if orig, _, _ := unstructured.NestedStringMap(svc.Object, "spec", "selector"); len(orig) != 1 {
		t.Errorf("the manifests' Service changed: selector %v", orig)
	}
	if a, b := sweep.TargetName("app-a.b", "a.b", "-", maxName, true), sweep.TargetName("app-a-b", "a-b", "-", maxName, true); a == b {
		t.Errorf("two cells, one name %s", a)
	}
	long := sweep.TargetName("app-"+strings.Repeat("X", 80), strings.Repeat("X", 80), "-", maxName, true)
	if !dns1035.MatchString(long) || len(long) > maxName {
		t.Errorf("a long cell's name %q", long)
	}
}
