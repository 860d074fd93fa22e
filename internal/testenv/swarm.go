package testenv

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/internal/swarmfixture"
)

// SwarmFixture is the running multi-node swarm test fixture (make
// swarm-up) as a test sees it: where its nodes are, and a client for its
// manager.
type SwarmFixture struct {
	swarmfixture.State
	// Manager is a client for the manager's engine: services, tasks and
	// nodes are asked there.
	Manager *client.Client
}

// Swarm returns the swarm test fixture, read from its state file
// (SWEEP_SWARM_DIR or /var/lib/sweep-swarm) and checked: the manager
// answers and is an active swarm manager. When the fixture is not up it
// skips the test with the reason, or fails it under SWEEP_REQUIRE_SWARM=1,
// which .ci/run sets once it has started the fixture.
func Swarm(t testing.TB) *SwarmFixture {
	t.Helper()
	SkipShort(t)
	st, err := swarmfixture.Load(swarmfixture.Dir())
	if err != nil {
		absentSwarm(t, err.Error())
	}
	sw := &SwarmFixture{State: st, Manager: dockerAt(t, st.ManagerHost)}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	info, err := sw.Manager.Info(ctx)
	if err != nil {
		absentSwarm(t, "the swarm fixture's manager does not answer at "+st.ManagerHost+": "+err.Error())
	}
	if info.Swarm.LocalNodeState != swarm.LocalNodeStateActive || !info.Swarm.ControlAvailable {
		absentSwarm(t, "the swarm fixture's node at "+st.ManagerHost+" is not an active manager (state "+string(info.Swarm.LocalNodeState)+")")
	}
	return sw
}

// AppAndDB returns the fixture's app and db nodes, skipping the test when
// it has no such roles (a fixture of fewer than two nodes).
func (sw *SwarmFixture) AppAndDB(t testing.TB) (app, db swarmfixture.Node) {
	t.Helper()
	app, okA := sw.ByRole("app")
	db, okD := sw.ByRole("db")
	if !okA || !okD {
		t.Skip("the fixture has no app and db roles (SWARM_NODES >= 2)")
	}
	return app, db
}

// Client returns a client for node's own engine (its containers, images
// and logs), closed when the test ends.
func (sw *SwarmFixture) Client(t testing.TB, node swarmfixture.Node) *client.Client {
	t.Helper()
	return dockerAt(t, node.Host)
}

// dockerAt returns a client for the engine at host, closed when the test
// ends.
func dockerAt(t testing.TB, host string) *client.Client {
	t.Helper()
	cli, err := client.NewClientWithOpts(client.WithHost(host), client.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatalf("docker client for %s: %v", host, err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

// absentSwarm skips t with reason, or fails it when SWEEP_REQUIRE_SWARM=1.
func absentSwarm(t testing.TB, reason string) {
	t.Helper()
	absentUnless(t, "SWEEP_REQUIRE_SWARM", reason+" (make swarm-up starts it)")
}

// LoadImage copies image ref from the engine src to the engines of nodes
// (docker save | docker load through the API: there is no registry),
// skipping the nodes that hold the same image id under ref already.
func (sw *SwarmFixture) LoadImage(t testing.TB, src *client.Client, ref string, nodes ...swarmfixture.Node) {
	t.Helper()
	want, err := src.ImageInspect(t.Context(), ref)
	if err != nil {
		t.Fatalf("inspect %s: %v", ref, err)
	}
	for _, n := range nodes {
		cli := sw.Client(t, n)
		if have, err := cli.ImageInspect(t.Context(), ref); err == nil && have.ID == want.ID {
			continue
		}
		rc, err := src.ImageSave(t.Context(), []string{ref})
		if err != nil {
			t.Fatalf("save %s: %v", ref, err)
		}
		resp, err := cli.ImageLoad(t.Context(), rc, client.ImageLoadWithQuiet(true))
		rc.Close()
		if err != nil {
			t.Fatalf("load %s into node %d: %v", ref, n.Index, err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("load %s into node %d: %v", ref, n.Index, err)
		}
	}
}

// NodeImage returns a tag of repository repo on node's engine (one of the
// demo's images, which make swarm-up loads into every node), or skips the
// test when the node has none.
func (sw *SwarmFixture) NodeImage(t testing.TB, node swarmfixture.Node, repo string) string {
	t.Helper()
	list, err := sw.Client(t, node).ImageList(t.Context(), image.ListOptions{Filters: filters.NewArgs(filters.Arg("reference", repo))})
	if err != nil {
		t.Fatalf("images of node %d: %v", node.Index, err)
	}
	for _, img := range list {
		for _, tag := range img.RepoTags {
			if strings.HasPrefix(tag, repo+":") {
				return tag
			}
		}
	}
	absentSwarm(t, "node "+node.ID+" has no "+repo+" image (make swarm-up loads the demo's images)")
	return ""
}

// Node returns the fixture's node with the role label role, or skips the
// test when there is none.
func (sw *SwarmFixture) Node(t testing.TB, role string) swarmfixture.Node {
	t.Helper()
	n, ok := sw.ByRole(role)
	if !ok {
		absentSwarm(t, "the swarm fixture has no node with role "+role+" (SWARM_NODES=3 gives load, db and app)")
	}
	return n
}
