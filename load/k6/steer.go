package k6

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sweep-tool/sweep/sweep"
)

// CheckLoad checks, before anything starts, that k6 can run req's load
// with the user's script: k6 must load it (else an error wrapping
// ErrScript with k6's message) and the script's options must let sweep's
// load run (else ErrClash). The notice names the script's own options
// that sweep's load overrides ("" when none). The bundled script needs
// no check.
func (d *Driver) CheckLoad(ctx context.Context, req sweep.LoadRequest) (string, error) {
	env, err := ScriptEnv(req, d.opts.ExtraEnv)
	if err != nil {
		return "", err
	}
	_, overridden, err := d.plan(ctx, req, env)
	if err != nil || len(overridden) == 0 {
		return "", err
	}
	return fmt.Sprintf("the script's own %s give way to sweep's load (%s): k6's --vus and --duration win over them",
		strings.Join(overridden, ", "), describeLoad(req.Load, req.Duration)), nil
}

// plan inspects the user's script (once per distinct __ENV) and decides
// how req's load reaches it; the bundled script runs as is.
func (d *Driver) plan(ctx context.Context, req sweep.LoadRequest, env []string) (control, []string, error) {
	if d.opts.Script == nil {
		return asIs, nil, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	key := strings.Join(env, "\x00")
	opts, ok := d.inspected[key]
	if !ok {
		if _, err := d.opts.Script.Verify(); err != nil {
			return 0, nil, err
		}
		var err error
		if opts, err = Inspect(ctx, d.opts.Binary, d.opts.Script.Path, env); err != nil {
			return 0, nil, err
		}
		d.inspected[key] = opts
	}
	return planControl(opts, req.Load, req.Duration)
}

// steer sets what inv needs so that req's load is the one k6 runs:
// --vus and --duration, or a --config file with the arrival-rate
// scenario, written into the cell's directory.
func (d *Driver) steer(ctx context.Context, req sweep.LoadRequest, inv *Invocation) error {
	ctl, _, err := d.plan(ctx, req, inv.Env)
	if err != nil {
		return err
	}
	switch ctl {
	case byFlags:
		inv.VUs, inv.Duration = req.Load.VUs, req.Duration
	case byConfig:
		data, err := openConfig(req.Load, req.Duration)
		if err != nil {
			return err
		}
		inv.Config = filepath.Join(req.Dir, pick(req.Warmup, WarmupConfigFile, ConfigFile))
		if err := os.WriteFile(inv.Config, data, 0o644); err != nil {
			return fmt.Errorf("k6 config: %w", err)
		}
	}
	return nil
}
