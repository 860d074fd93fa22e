package scaffold

import (
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/sweep"
)

// workload is a Deployment or StatefulSet of the manifests.
type workload struct {
	kind string
	name string
	pod  corev1.PodTemplateSpec
}

// fromManifests is the stack of the manifests as kube read them: each
// Deployment and StatefulSet a service, reached through the Services
// that select its pods.
func fromManifests(objs []kube.Object) (stack, error) {
	var loads []workload
	var svcs []corev1.Service
	for _, o := range objs {
		var err error
		switch o.GetKind() {
		case "Deployment":
			var d appsv1.Deployment
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &d)
			loads = append(loads, workload{kind: "Deployment", name: d.Name, pod: d.Spec.Template})
		case "StatefulSet":
			var d appsv1.StatefulSet
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &d)
			loads = append(loads, workload{kind: "StatefulSet", name: d.Name, pod: d.Spec.Template})
		case "Service":
			var s corev1.Service
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &s)
			svcs = append(svcs, s)
		}
		if err != nil {
			return stack{}, sweep.BadInput("manifests", "%s: %v", o.Ref(), err)
		}
	}
	st := stack{on: onKubernetes}
	for _, w := range loads {
		st.services = append(st.services, kubeService(w, svcs))
	}
	return st, nil
}

// kubeService is a workload as a service: its container with the most
// knob-like variables (the first on a tie), the Services selecting its
// pods.
func kubeService(w workload, svcs []corev1.Service) service {
	cs := w.pod.Spec.Containers
	best := 0
	for i, c := range cs {
		if knobCount(c.Env) > knobCount(cs[best].Env) {
			best = i
		}
	}
	s := service{kind: w.kind, name: w.name, containers: len(cs)}
	if len(cs) == 0 {
		return s
	}
	c := cs[best]
	s.container, s.image = c.Name, c.Image
	for _, e := range c.Env {
		s.env = append(s.env, envVar{name: e.Name, value: e.Value, known: e.ValueFrom == nil})
	}
	slices.SortFunc(s.env, func(a, b envVar) int { return strings.Compare(a.name, b.name) })
	if q, ok := c.Resources.Limits[corev1.ResourceCPU]; ok {
		s.cpus = float64(q.MilliValue()) / 1000
	}
	if p := c.ReadinessProbe; p != nil {
		s.health = "readiness probe"
		if p.HTTPGet != nil {
			s.probePath = p.HTTPGet.Path
		}
	}
	for _, svc := range svcs {
		if !selects(svc.Spec.Selector, w.pod.Labels) {
			continue
		}
		s.names = append(s.names, svc.Name)
		for _, p := range svc.Spec.Ports {
			if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
				continue
			}
			s.addrs = append(s.addrs, addr{host: svc.Name, port: int(p.Port), target: targetPort(p, c)})
		}
	}
	return s
}

// knobCount is how many of a container's variables look like web threads
// or a pool.
func knobCount(env []corev1.EnvVar) int {
	n := 0
	for _, e := range env {
		w, _ := webScore(e.Name)
		p, _ := poolScore(e.Name)
		if w+p > 0 {
			n++
		}
	}
	return n
}

// selects reports whether a Service's selector picks pods with labels.
func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// targetPort is the container port a Service port forwards to: its
// targetPort, by number or by the container port's name, else its port.
func targetPort(p corev1.ServicePort, c corev1.Container) int {
	t := p.TargetPort
	if t.IntValue() > 0 {
		return t.IntValue()
	}
	for _, cp := range c.Ports {
		if t.StrVal != "" && cp.Name == t.StrVal {
			return int(cp.ContainerPort)
		}
	}
	return int(p.Port)
}
