package k8sfixture

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CPUQuota is a container's CPU limit as its cgroup holds it: quota per
// period in µs (v1's cpu.cfs_quota_us and cpu.cfs_period_us, v2's
// cpu.max), Quota -1 for none, and the directory it was read from.
type CPUQuota struct {
	Quota, Period int64
	Dir           string
}

// Cores is the limit in cores (0 for none).
func (q CPUQuota) Cores() float64 {
	if q.Quota < 0 || q.Period == 0 {
		return 0
	}
	return float64(q.Quota) / float64(q.Period)
}

// ContainerCPU reads the CPU limit of a container of the fixture from its
// cgroup on this machine (the fixture's nodes share its kernel): the
// directory named by the container's id (a pod status's containerID,
// with or without its containerd:// prefix) under root (/sys/fs/cgroup),
// cgroup v1 or v2.
func ContainerCPU(root, containerID string) (CPUQuota, error) {
	id := containerID
	if _, after, ok := strings.Cut(id, "://"); ok {
		id = after
	}
	if id == "" {
		return CPUQuota{}, errors.New("no container id")
	}
	var q CPUQuota
	found := errors.New("found")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil // a cgroup gone while walking
		}
		if !strings.HasSuffix(d.Name(), id) {
			return nil
		}
		if r, ok := readV1(p); ok {
			q = r
			return found
		}
		if r, ok := readV2(p); ok {
			q = r
			return found
		}
		return nil
	})
	if errors.Is(err, found) {
		return q, nil
	}
	if err != nil {
		return CPUQuota{}, err
	}
	return CPUQuota{}, fmt.Errorf("no cgroup with a CPU limit for container %s under %s", id, root)
}

func readV1(dir string) (CPUQuota, bool) {
	q, err1 := readInt(filepath.Join(dir, "cpu.cfs_quota_us"))
	p, err2 := readInt(filepath.Join(dir, "cpu.cfs_period_us"))
	return CPUQuota{Quota: q, Period: p, Dir: dir}, err1 == nil && err2 == nil
}

func readV2(dir string) (CPUQuota, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
	if err != nil {
		return CPUQuota{}, false
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return CPUQuota{}, false
	}
	q := int64(-1)
	if f[0] != "max" {
		if q, err = strconv.ParseInt(f[0], 10, 64); err != nil {
			return CPUQuota{}, false
		}
	}
	p, err := strconv.ParseInt(f[1], 10, 64)
	return CPUQuota{Quota: q, Period: p, Dir: dir}, err == nil
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}
