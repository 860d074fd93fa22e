package compose

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"

	"github.com/sweep-tool/sweep/sweep"
)

// pullTimeout bounds the pull of the images the engine lacks before a
// run starts (compose pull through the CLI, with the user's registry
// credentials); it is the engine call bound's default. recheckTimeout
// bounds the look at what is still missing once a pull failed (its
// deadline may have passed).
const (
	pullTimeout    = sweep.DefaultCallTimeout
	recheckTimeout = 10 * time.Second
)

// missingImages are the images of the stack's services that are neither
// on the engine nor built by compose (a service with build: is built by
// compose up): service → image.
func (s *Stack) missingImages(ctx context.Context) (map[string]string, error) {
	missing := map[string]string{}
	for _, name := range s.base.Services {
		ref := s.base.Images[name]
		if ref == "" || s.builds(name) {
			continue
		}
		_, err := s.eng.ImageInspect(ctx, ref)
		switch {
		case err == nil:
		case cerrdefs.IsNotFound(err):
			missing[name] = ref
		default:
			return nil, fmt.Errorf("image %s of service %s: %w", ref, name, err)
		}
	}
	return missing, nil
}

// builds says whether compose builds the service's image (build: in the
// files), so a missing image is compose's to make.
func (s *Stack) builds(service string) bool {
	if s.base.Model == nil {
		return false
	}
	svc, ok := s.base.Model.Services[service]
	return ok && svc.Build != nil
}

// checkImages makes sure, before anything starts, that every image the
// stack runs is on the engine: the ones it lacks are pulled as compose up
// would pull them (`compose pull SERVICE...`, the user's credentials), and
// an image that cannot be pulled is bad input naming it and how to make
// it — not a failure of every cell at its first compose up.
func (s *Stack) checkImages(ctx context.Context) error {
	missing, err := s.missingImages(ctx)
	if err != nil || len(missing) == 0 {
		return err
	}
	services := slices.Sorted(func(yield func(string) bool) {
		for svc := range missing {
			if !yield(svc) {
				return
			}
		}
	})
	ctx, cancel := context.WithTimeout(ctx, pullTimeout)
	defer cancel()
	_, err = run(ctx, s.cli.Argv(s.baseInvocation(), PullServices(services...)...), s.opts.Env, s.opts.Log)
	if err == nil {
		return nil
	}
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), recheckTimeout)
	defer rcancel()
	still, ierr := s.missingImages(rctx)
	if ierr != nil || len(still) == 0 {
		still = missing
	}
	return sweep.BadInput("compose", "%s not on this Docker Engine and cannot be pulled (%s): build or pull %s first "+
		"(sweep's demo and examples: make demo-images, make example-<name>)",
		imageList(still), s.base.redact(lastLine(err.Error())), pronoun(len(still)))
}

// PullServices pulls the images of the named services.
func PullServices(services ...string) []string { return append([]string{"pull"}, services...) }

// imageList names each missing image with its service, sorted.
func imageList(missing map[string]string) string {
	var parts []string
	for svc, ref := range missing {
		parts = append(parts, fmt.Sprintf("image %s (service %s)", ref, svc))
	}
	slices.Sort(parts)
	verb := "is"
	if len(parts) > 1 {
		verb = "are"
	}
	return strings.Join(parts, ", ") + " " + verb
}

func pronoun(n int) string {
	if n > 1 {
		return "them"
	}
	return "it"
}

// lastLine is the last non-empty line of compose's message: its own
// reason for the pull's failure (the argv and exit status come first).
func lastLine(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return msg
}
