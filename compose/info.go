package compose

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sync/errgroup"
)

// Facts describe the engine, the CLI and the stack for sweep.json.
type Facts struct {
	// EngineNCPU is the number of CPUs the engine reports.
	EngineNCPU int `json:"engine_ncpu"`
	// CPUModel is the engine host's CPU model, when the engine is local.
	CPUModel      string `json:"cpu_model,omitempty"`
	DockerVersion string `json:"docker_version"`
	// ComposeCLI is "docker compose" or the docker-compose path.
	ComposeCLI     string `json:"compose_cli"`
	ComposeVersion string `json:"compose_version"`
	// Images maps each service to the image ID it runs (after Apply).
	Images map[string]string `json:"images"`
	// ConfigSHA256 is the hash of `compose config` on the base files.
	ConfigSHA256 string `json:"config_sha256"`
}

// NCPU is the number of CPUs of the engine, to check --cpus against.
func (s *Stack) NCPU(ctx context.Context) (int, error) {
	info, err := s.eng.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("engine info: %w", err)
	}
	return info.NCPU, nil
}

// Info gathers the Facts. Call it after the first Apply so the images are
// present.
func (s *Stack) Info(ctx context.Context) (Facts, error) {
	info, err := s.eng.Info(ctx)
	if err != nil {
		return Facts{}, fmt.Errorf("engine info: %w", err)
	}
	f := Facts{EngineNCPU: info.NCPU, DockerVersion: info.ServerVersion, ComposeCLI: s.cli.String()}
	if local(os.Getenv("DOCKER_HOST")) {
		f.CPUModel = cpuModel("/proc/cpuinfo")
	}
	// The two CLI calls run side by side: docker-compose v1 takes seconds
	// to start.
	var version, config []byte
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		if version, err = run(gctx, s.cli.VersionArgv(), nil); err != nil {
			err = fmt.Errorf("compose version: %w", err)
		}
		return err
	})
	g.Go(func() (err error) {
		if config, err = run(gctx, s.cli.Argv(s.baseInvocation(), Config()...), nil); err != nil {
			err = fmt.Errorf("compose config: %w", err)
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return f, err
	}
	f.ComposeVersion = strings.TrimSpace(string(version))
	sum := sha256.Sum256(config)
	f.ConfigSHA256 = hex.EncodeToString(sum[:])
	f.Images, err = s.images(ctx)
	return f, err
}

// images maps each service to the ID of its image: ImageInspect of the
// image the files name, or the running container's image when the
// service is built without a name.
func (s *Stack) images(ctx context.Context) (map[string]string, error) {
	ids := map[string]string{}
	for _, name := range s.base.Services {
		if ref := s.base.Images[name]; ref != "" {
			if img, err := s.eng.ImageInspect(ctx, ref); err == nil {
				ids[name] = img.ID
				continue
			}
		}
		list, err := s.eng.ContainerList(ctx, containerOf(s.project, name))
		if err != nil {
			return ids, fmt.Errorf("image of %s: %w", name, err)
		}
		if len(list) > 0 {
			ids[name] = list[0].ImageID
		}
	}
	return ids, nil
}

// local reports whether DOCKER_HOST names this machine's engine.
func local(dockerHost string) bool {
	return dockerHost == "" || strings.HasPrefix(dockerHost, "unix://")
}

// cpuModel returns the first "model name" of a cpuinfo file, or "".
func cpuModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
