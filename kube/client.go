// Package kube is sweep's Kubernetes backend: the user's stack from plain
// manifests (what `helm template` or `kustomize build` prints) applied into
// a namespace of the run's own, the target a Deployment whose container a
// cell gives a CPU limit (and an equal request) and the swept variables,
// rolled out with the Recreate strategy so two versions never share CPU.
// It talks to the cluster only through client-go, as any client would: the
// kubeconfig the environment names, no kubectl.
package kube

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/sweep-tool/sweep/sweep"
)

// ErrCluster means no Kubernetes cluster answers at the kubeconfig's
// server (no kubeconfig, a context it lacks, the API server down,
// credentials refused).
var ErrCluster = errors.New("kubernetes cluster unreachable")

// Client is a connection to one cluster: the typed and the dynamic
// clients over one rest.Config.
type Client struct {
	Core   kubernetes.Interface
	Dyn    dynamic.Interface
	Config *rest.Config
	// Context is the kubeconfig context in use; Server the API server's
	// URL.
	Context, Server string
}

// Kubeconfigs are the kubeconfig files env names, in kubectl's order:
// KUBECONFIG's list when set, else $HOME/.kube/config.
func Kubeconfigs(env sweep.Env) []string {
	if v := env.Get("KUBECONFIG"); v != "" {
		var out []string
		for _, p := range filepath.SplitList(v) {
			if p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	if home := env.Get("HOME"); home != "" {
		return []string{filepath.Join(home, ".kube", "config")}
	}
	return nil
}

// Connect loads the kubeconfig env names (Kubeconfigs), picks
// kubeContext (empty: the current context) and asks the API server for
// its version within 10 s. Every failure is ErrCluster, wrapped with what
// failed.
func Connect(ctx context.Context, env sweep.Env, kubeContext string) (*Client, error) {
	files := Kubeconfigs(env)
	found := false
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("%w: no kubeconfig at %s: point KUBECONFIG at the cluster's kubeconfig", ErrCluster, strings.Join(append(files, "(none named)")[:max(1, len(files))], ":"))
	}
	rules := &clientcmd.ClientConfigLoadingRules{Precedence: files}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: kubeContext})
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, fmt.Errorf("%w: kubeconfig %s: %v", ErrCluster, strings.Join(files, ":"), err)
	}
	name := kubeContext
	if name == "" {
		name = raw.CurrentContext
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		if len(files) == 0 {
			return nil, fmt.Errorf("%w: no kubeconfig (set KUBECONFIG or HOME)", ErrCluster)
		}
		return nil, fmt.Errorf("%w: kubeconfig %s, context %q: %v", ErrCluster, strings.Join(files, ":"), name, err)
	}
	cfg.UserAgent = "sweep"
	// the cell's reads and watches are few; client-go's default of 5 QPS
	// would pace a rollout's polling
	cfg.QPS, cfg.Burst = 50, 100
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCluster, err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCluster, err)
	}
	c := &Client{Core: core, Dyn: dyn, Config: cfg, Context: name, Server: cfg.Host}
	if err := c.Ping(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Ping asks the API server for its version within 10 s: ErrCluster when
// it does not answer.
func (c *Client) Ping(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res := c.Core.Discovery().RESTClient().Get().AbsPath("/version").Do(pctx)
	if err := res.Error(); err != nil {
		return fmt.Errorf("%w: %s (context %q): %w", ErrCluster, c.Server, c.Context, err)
	}
	return nil
}
