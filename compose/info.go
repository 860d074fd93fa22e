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

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/sweep"
)

// NCPU is the number of CPUs of the engine, to check --cpus against.
func (s *Stack) NCPU(ctx context.Context) (int, error) {
	info, err := s.eng.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("engine info: %w", err)
	}
	return info.NCPU, nil
}

// Info gathers the facts sweep.json records: the engine's CPUs and
// version, the compose CLI and its version, the images and a hash of
// `compose config`. Call it after the first Apply so the images are
// present.
func (s *Stack) Info(ctx context.Context) (sweep.StackFacts, error) {
	info, err := s.eng.Info(ctx)
	if err != nil {
		return sweep.StackFacts{}, fmt.Errorf("engine info: %w", err)
	}
	f := sweep.StackFacts{NCPU: info.NCPU, RuntimeVersion: info.ServerVersion, Tool: s.cli.String()}
	if engine.Local(s.opts.Env) {
		f.CPUModel = cpuModel("/proc/cpuinfo")
	}
	// The two CLI calls run side by side: docker-compose v1 takes seconds
	// to start.
	var version, config []byte
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		if version, err = run(gctx, s.cli.VersionArgv(), s.opts.Env, nil); err != nil {
			err = fmt.Errorf("compose version: %w", err)
		}
		return err
	})
	g.Go(func() (err error) {
		if config, err = run(gctx, s.cli.Argv(s.baseInvocation(), Config()...), s.opts.Env, nil); err != nil {
			err = fmt.Errorf("compose config: %w", err)
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return f, err
	}
	f.ToolVersion = strings.TrimSpace(string(version))
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
