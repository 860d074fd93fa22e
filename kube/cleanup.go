package kube

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sweep-tool/sweep/sweep"
)

// Leftovers lists, by run id, the runs whose namespaces on the cluster
// carry the sweep.run label (Containers counts their namespaces; the run's
// directory and host come from the namespace's annotations).
func Leftovers(ctx context.Context, c *Client) ([]sweep.Leftover, error) {
	list, err := c.Core.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: sweep.LabelRun})
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	labels := make([]map[string]string, len(list.Items))
	for i, ns := range list.Items {
		labels[i] = map[string]string{sweep.LabelRun: ns.Labels[sweep.LabelRun],
			sweep.LabelDir: ns.Annotations[AnnotationDir], sweep.LabelHost: ns.Annotations[AnnotationHost]}
	}
	return sweep.LeftoversOf(labels), nil
}

// CleanRuns deletes the namespaces of run id (of every run when empty)
// that are provably dead (sweep.LockDead: the run's directory is gone or
// its lock can be taken), or all of them with force, by sweep clean's
// rule (sweep.CleanEach), and waits until each is gone. A live run's
// namespace is never touched.
func CleanRuns(ctx context.Context, c *Client, id string, force bool) ([]sweep.CleanOutcome[[]string], error) {
	runs, err := Leftovers(ctx, c)
	if err != nil {
		return nil, err
	}
	if id != "" {
		runs = slices.DeleteFunc(runs, func(l sweep.Leftover) bool { return l.ID != id })
	}
	return sweep.CleanEach(runs, id != "", func(l sweep.Leftover) ([]string, error) {
		if !force {
			lock, err := sweep.LockDead(l.RunLabels)
			if err != nil {
				return nil, fmt.Errorf("run %s: %w", l.ID, err)
			}
			if lock != nil {
				defer lock.Release()
			}
		}
		list, err := c.Core.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: sweep.LabelRun + "=" + l.ID})
		if err != nil {
			return nil, fmt.Errorf("list namespaces: %w", err)
		}
		var gone []string
		for _, ns := range list.Items {
			if err := DeleteNamespace(ctx, c, ns.Name, sweep.DownTimeout); err != nil {
				return gone, err
			}
			gone = append(gone, ns.Name)
		}
		return gone, nil
	})
}
