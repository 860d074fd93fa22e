package kube

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/sweep"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// deployment is testdata/app.yaml: one Deployment, app.
var deployment = func() string {
	b, err := os.ReadFile("testdata/app.yaml")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func TestReadManifests(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.yaml", deployment+"---\n# only a comment\n---\napiVersion: v1\nkind: Service\nmetadata: {name: app}\nspec: {ports: [{port: 80}]}\n")
	write(t, dir, "b.json", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}]}`)
	write(t, dir, "notes.txt", "not a manifest")
	objs, err := ReadManifests([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, o := range objs {
		refs = append(refs, o.GetKind()+"/"+o.GetName()+" "+o.Resource.Resource)
	}
	if got := strings.Join(refs, ", "); got != "Deployment/app deployments, Service/app services, ConfigMap/c configmaps" {
		t.Errorf("read %s", got)
	}
	if objs[1].Doc != 3 || filepath.Base(objs[1].Source) != "a.yaml" {
		t.Errorf("the Service's source: %s #%d", objs[1].Source, objs[1].Doc)
	}
}

func TestReadManifestsRefuses(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"cluster-scoped", "apiVersion: v1\nkind: Namespace\nmetadata: {name: other}\n", "Namespace/other (x.yaml #1): kind Namespace (v1) is not one sweep can keep"},
		{"custom", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n", "Widget/w (x.yaml #1): kind Widget (example.com/v1)"},
		{"daemonset", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\n", "DaemonSet/d"},
		{"autoscaler", "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\n", "an autoscaler would change the replicas"},
		{"twice", deployment + "---\n" + deployment, "Deployment/app (x.yaml #2): the same object as Deployment/app (x.yaml #1)"},
		{"no name", "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: c-}\n", "generateName is not supported"},
		{"no kind", "metadata: {name: x}\n", "x.yaml #1: no apiVersion and kind"},
		{"empty", "# nothing\n", "no object in the manifests"},
		{"broken", "apiVersion: v1\nkind: [\n", "not YAML or JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := ReadManifests([]string{write(t, dir, "x.yaml", tc.text)})
			if !errors.Is(err, ErrManifest) || !strings.Contains(strings.ReplaceAll(err.Error(), dir+"/", ""), tc.want) {
				t.Errorf("err = %v, want ErrManifest with %q", err, tc.want)
			}
		})
	}
	if _, err := ReadManifests([]string{"/nonexistent/m.yaml"}); !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := ReadManifests([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "holds no .yaml") {
		t.Errorf("empty directory: %v", err)
	}
}

func TestNamespace(t *testing.T) {
	for id, want := range map[string]string{
		"20261203-161500":       "sweep-20261203161500",
		"My_Run.2":              "sweep-myrun2",
		strings.Repeat("a", 80): "sweep-" + strings.Repeat("a", 57),
	} {
		if got := Namespace(id); got != want {
			t.Errorf("Namespace(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestNewChecksTarget(t *testing.T) {
	dir := t.TempDir()
	two := deployment + "      - {name: side, image: side:1}\n"
	for _, tc := range []struct{ text, service, container, field, want string }{
		{deployment, "web", "", "service", `"web" is not a Deployment of the manifests; Deployments: app`},
		{deployment, "app", "side", "container", `"side" is not a container of Deployment app; containers: app`},
		{strings.Replace(deployment, "replicas: 1", "replicas: 3", 1), "app", "", "service", "has 3 replicas"},
		{two, "app", "", "container", "has 2 containers (app, side)"},
		{"apiVersion: v1\nkind: Namespace\nmetadata: {name: other}\n", "app", "", "manifests", "kind Namespace"},
	} {
		_, err := New(t.Context(), Options{StackOptions: sweep.StackOptions{
			Files: []string{write(t, dir, "m.yaml", tc.text)}, Service: tc.service, RunID: "r1"}, Container: tc.container})
		var bad *sweep.BadInputError
		if !errors.As(err, &bad) || bad.Field != tc.field || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%s, %s) = %v, want bad input of %s with %q", tc.service, tc.container, err, tc.field, tc.want)
		}
	}
}

func TestTargetFor(t *testing.T) {
	dir := t.TempDir()
	s := &Stack{opts: Options{StackOptions: sweep.StackOptions{Service: "app"}}}
	var err error
	if s.objs, err = ReadManifests([]string{write(t, dir, "m.yaml", deployment)}); err != nil {
		t.Fatal(err)
	}
	if err := s.findTarget(); err != nil {
		t.Fatal(err)
	}
	cfg := sweep.TargetConfig{CPUs: 1.5, Memory: "256m", Env: map[string]string{"BOX_WEB_THREAD": "6", "BOX_DB_POOL_MAXIMUM_POOL_SIZE": "9"},
		Labels: map[string]string{"sweep.cell": "cpu_1.5__web_6__db_9"}}
	d, err := s.targetFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := d.Spec.Template.Spec.Containers[0]
	lim, req := c.Resources.Limits, c.Resources.Requests
	if lim.Cpu().String() != "1500m" || req.Cpu().String() != "1500m" || lim.Memory().Value() != 256<<20 || req.Memory().Value() != 256<<20 {
		t.Errorf("resources %v / %v", lim, req)
	}
	var env []string
	for _, e := range c.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	if got := strings.Join(env, " "); got != "BOX_WEB_THREAD=6 KEEP=k BOX_DB_POOL_MAXIMUM_POOL_SIZE=9" {
		t.Errorf("env %s", got)
	}
	if d.Spec.Strategy.Type != "Recreate" || d.Spec.Template.Annotations["sweep.cell"] != "cpu_1.5__web_6__db_9" {
		t.Errorf("strategy %v, annotations %v", d.Spec.Strategy, d.Spec.Template.Annotations)
	}
	again, _ := s.targetFor(cfg)
	if again.Spec.Template.Annotations[AnnotationApply] == d.Spec.Template.Annotations[AnnotationApply] {
		t.Error("the same cell twice gives the same pod template: the second Apply would not roll out a new pod")
	}
	if s.target.Spec.Template.Spec.Containers[0].Resources.Limits != nil {
		t.Error("targetFor changed the manifest's Deployment")
	}
}

func TestSetEnvList(t *testing.T) {
	in := []any{map[string]any{"name": "A", "value": "1"}, map[string]any{"name": "B", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "s", "key": "k"}}}}
	out := setEnvList(in, map[string]string{"B": "2", "C": "3"})
	var got []string
	for _, e := range out {
		m := e.(map[string]any)
		got = append(got, m["name"].(string)+"="+func() string { v, _ := m["value"].(string); return v }())
		if m["name"] == "B" && m["valueFrom"] != nil {
			t.Error("B keeps its valueFrom beside the value set")
		}
	}
	if strings.Join(got, " ") != "A=1 B=2 C=3" {
		t.Errorf("env %v", got)
	}
}
