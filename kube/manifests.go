package kube

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Object is one manifest as sweep applies it: the object as the user
// wrote it (its namespace replaced by the run's), where it came from, and
// the API resource it is created through.
type Object struct {
	*unstructured.Unstructured
	// Source is the file it was read from and the document's index in
	// it (from 1).
	Source string
	Doc    int
	// Resource is its API resource (apps/v1 deployments, ...).
	Resource schema.GroupVersionResource
}

// Ref names an object as kubectl does, kind/name, with where it came
// from: "Deployment/app (app.yaml #2)".
func (o Object) Ref() string {
	return fmt.Sprintf("%s/%s (%s #%d)", o.GetKind(), o.GetName(), o.Source, o.Doc)
}

// Kinds sweep runs inside a run's namespace and removes with it, each with
// its API resource. Anything else (cluster-scoped objects, custom
// resources, DaemonSets that land on every node, webhooks) is refused
// before anything is applied: sweep could neither keep it to the run's
// namespace nor be sure the namespace's deletion removes it.
var namespaced = map[schema.GroupVersionKind]string{
	{Version: "v1", Kind: "ConfigMap"}:                                       "configmaps",
	{Version: "v1", Kind: "Secret"}:                                          "secrets",
	{Version: "v1", Kind: "Service"}:                                         "services",
	{Version: "v1", Kind: "ServiceAccount"}:                                  "serviceaccounts",
	{Version: "v1", Kind: "PersistentVolumeClaim"}:                           "persistentvolumeclaims",
	{Version: "v1", Kind: "Pod"}:                                             "pods",
	{Group: "apps", Version: "v1", Kind: "Deployment"}:                       "deployments",
	{Group: "apps", Version: "v1", Kind: "StatefulSet"}:                      "statefulsets",
	{Group: "batch", Version: "v1", Kind: "Job"}:                             "jobs",
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"}:        "roles",
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"}: "rolebindings",
	{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"}:            "poddisruptionbudgets",
	{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"}:       "networkpolicies",
	{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"}:        "endpointslices",
	{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}:             "ingresses",
}

// ErrManifest marks a manifest sweep cannot read or will not apply.
var ErrManifest = errors.New("manifest refused")

// ManifestError is a manifest refused, naming the object (or the file
// when no object could be read) and why.
type ManifestError struct {
	Ref    string
	Reason string
}

func (e *ManifestError) Error() string { return e.Ref + ": " + e.Reason }

// Unwrap makes every ManifestError an ErrManifest.
func (e *ManifestError) Unwrap() error { return ErrManifest }

// ReadManifests reads every object of paths: files of multi-document YAML
// or JSON, and directories, whose *.yaml, *.yml and *.json files are read
// in name order (not recursively, as kubectl apply -f DIR). Lists (kind
// List) are opened up. Each object's kind must be one sweep keeps to a
// namespace; an object that names a namespace gets the run's instead, and
// HorizontalPodAutoscalers are refused (they would change the replicas a
// cell measures), as is an object whose kind/name comes twice.
func ReadManifests(paths []string) ([]Object, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, &ManifestError{Ref: p, Reason: "cannot read it: " + unwrapPath(err)}
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, &ManifestError{Ref: p, Reason: "cannot list it: " + unwrapPath(err)}
		}
		var in []string
		for _, e := range ents {
			switch strings.ToLower(filepath.Ext(e.Name())) {
			case ".yaml", ".yml", ".json":
				if !e.IsDir() {
					in = append(in, filepath.Join(p, e.Name()))
				}
			}
		}
		if len(in) == 0 {
			return nil, &ManifestError{Ref: p, Reason: "the directory holds no .yaml, .yml or .json file"}
		}
		sort.Strings(in)
		files = append(files, in...)
	}
	var out []Object
	seen := map[string]string{}
	for _, f := range files {
		objs, err := readFile(f)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			key := o.GetKind() + "/" + o.GetName()
			if prev, ok := seen[key]; ok {
				return nil, &ManifestError{Ref: o.Ref(), Reason: "the same object as " + prev}
			}
			seen[key] = o.Ref()
			out = append(out, o)
		}
	}
	if len(out) == 0 {
		return nil, &ManifestError{Ref: strings.Join(paths, ", "), Reason: "no object in the manifests"}
	}
	return out, nil
}

func unwrapPath(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// readFile decodes one file's documents.
func readFile(path string) ([]Object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &ManifestError{Ref: path, Reason: "cannot read it: " + unwrapPath(err)}
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []Object
	for doc := 1; ; doc++ {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, &ManifestError{Ref: fmt.Sprintf("%s #%d", path, doc), Reason: "not YAML or JSON of an object: " + err.Error()}
		}
		if len(m) == 0 {
			continue // an empty document (--- at the end, comments only)
		}
		u := &unstructured.Unstructured{Object: m}
		items := []*unstructured.Unstructured{u}
		if u.IsList() {
			l, err := u.ToList()
			if err != nil {
				return nil, &ManifestError{Ref: fmt.Sprintf("%s #%d", path, doc), Reason: "a List whose items cannot be read: " + err.Error()}
			}
			items = items[:0]
			for i := range l.Items {
				items = append(items, &l.Items[i])
			}
		}
		for _, it := range items {
			o, err := object(it, path, doc)
			if err != nil {
				return nil, err
			}
			out = append(out, o)
		}
	}
}

// object checks one decoded object and finds its resource.
func object(u *unstructured.Unstructured, path string, doc int) (Object, error) {
	o := Object{Unstructured: u, Source: path, Doc: doc}
	gvk := u.GroupVersionKind()
	switch {
	case gvk.Kind == "" || gvk.Version == "":
		return o, &ManifestError{Ref: fmt.Sprintf("%s #%d", path, doc), Reason: "no apiVersion and kind"}
	case u.GetName() == "":
		if u.GetGenerateName() != "" {
			return o, &ManifestError{Ref: o.Ref(), Reason: "generateName is not supported: sweep applies each object by its name, once per run"}
		}
		return o, &ManifestError{Ref: o.Ref(), Reason: "no metadata.name"}
	}
	res, ok := namespaced[gvk]
	switch {
	case gvk.Kind == "HorizontalPodAutoscaler":
		return o, &ManifestError{Ref: o.Ref(), Reason: "an autoscaler would change the replicas a cell measures; remove it from the manifests for the sweep"}
	case !ok:
		return o, &ManifestError{Ref: o.Ref(), Reason: fmt.Sprintf("kind %s (%s) is not one sweep can keep to the run's namespace and remove with it; it applies only %s", gvk.Kind, gvk.GroupVersion(), Supported())}
	}
	o.Resource = gvk.GroupVersion().WithResource(res)
	return o, nil
}

// Supported lists the kinds sweep applies, for messages.
func Supported() string {
	var ks []string
	for gvk := range namespaced {
		ks = append(ks, gvk.Kind)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}
