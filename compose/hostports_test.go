package compose

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestHostPorts: the TCP ports the files publish on the host, in every
// form compose takes (host IP, range, long syntax, host mode), not a
// container port alone nor a UDP one; and a service on the host's network,
// which may listen anywhere; which ports go through a swarm's routing
// mesh (mode ingress, the default), and by which service.
func TestHostPorts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml string
		want       []uint16
		hostNet    string
		ingress    map[uint16]string
	}{
		{"forms", `services:
  db: {image: pg, ports: ["127.0.0.1:15432:5432", "9000-9002:9000-9002", "5433"]}
  app: {image: app, ports: [{target: 8080, published: "18080", mode: host}, "53:53/udp"]}
`, []uint16{9000, 9001, 9002, 15432, 18080}, "", map[uint16]string{9000: "db", 9001: "db", 9002: "db", 15432: "db"}},
		{"host network", `services:
  db: {image: pg, network_mode: host}
  app: {image: app, ports: ["18080:8080"]}
`, []uint16{18080}, "db", map[uint16]string{18080: "app"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "compose.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			base, err := ReadBase([]string{path}, "sweepr1", nil)
			if err != nil {
				t.Fatal(err)
			}
			got := base.HostPorts()
			if !slices.Equal(got.Published, tc.want) || got.HostNetwork != tc.hostNet || !maps.Equal(got.Ingress, tc.ingress) {
				t.Errorf("HostPorts = %+v, want %v, host network %q, ingress %v", got, tc.want, tc.hostNet, tc.ingress)
			}
			if got.Publishes(1) != (tc.hostNet != "") || !got.Publishes(18080) {
				t.Errorf("Publishes(1) = %v, Publishes(18080) = %v", got.Publishes(1), got.Publishes(18080))
			}
		})
	}
}
