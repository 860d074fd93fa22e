package sweep

// What the backends that implement Targets share.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// StartEach starts one target per cfg with start, in cfgs' order; when
// one fails it takes down those started before it (within a minute, ctx
// cancelled or not) and returns the error: Targets.StartTargets's loop.
func StartEach(ctx context.Context, cfgs []TargetConfig, start func(TargetConfig) (Target, error)) ([]Target, error) {
	var out []Target
	for _, cfg := range cfgs {
		t, err := start(cfg)
		if err != nil {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			for _, made := range out {
				_ = made.Down(rctx)
			}
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// TargetBase is the base URL (StackOptions.URL) whose port a target of
// an interleaved group replaces with its own; bad input of url when it
// is none.
func TargetBase(raw string) (*url.URL, error) {
	base, err := url.Parse(raw)
	if err != nil || base.Host == "" {
		return nil, BadInput("url", "%q is not a base URL to give each target a port of", raw)
	}
	return base, nil
}

// URLPort is the port u reaches: its own, else its scheme's (80 for
// http, 443 for https; "" for another scheme).
func URLPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	return map[string]string{"http": "80", "https": "443"}[u.Scheme]
}

// TargetURLs are base and ready (a URL of the target, "" for none) at
// port on base's host: where the load and the ready check reach a
// target of an interleaved group that publishes a port of its own. A
// ready URL that does not parse gives "".
func TargetURLs(base *url.URL, ready, port string) (string, string) {
	u := *base
	u.Host = net.JoinHostPort(base.Hostname(), port)
	if ready == "" {
		return u.String(), ""
	}
	r, err := url.Parse(ready)
	if err != nil {
		return u.String(), ""
	}
	r.Host = u.Host
	return u.String(), r.String()
}

// CheckTargetsMemory refuses, as bad input of memory, a group whose
// targets' memory limits (each cfg's, else def, the target's own; 0:
// none) add up to more than total bytes, the memory of where (the
// engine, a node) they start: started at once, they would be OOM-killed
// or swap. A target without a limit leaves nothing to add up. log
// (sweep.log), when set, is told the outcome.
func CheckTargetsMemory(cfgs []TargetConfig, def, total int64, where string, log io.Writer, service string) error {
	limits := make([]int64, len(cfgs))
	for i, cfg := range cfgs {
		limits[i] = def
		if cfg.Memory != "" {
			var err error
			if limits[i], err = MemoryBytes(cfg.Memory); err != nil {
				return err
			}
		}
	}
	fits, why := memoryFits(limits, total, where)
	if log != nil {
		fmt.Fprintf(log, "%s targets' memory: %s\n", service, why)
	}
	if !fits {
		return BadInput("memory", "%s; give the targets smaller limits ({memory}) or fewer cells per CPU limit", why)
	}
	return nil
}

// memoryFits says whether targets of these memory limits (0: none) fit
// into total bytes of where together, and why.
func memoryFits(limits []int64, total int64, where string) (bool, string) {
	var sum int64
	for _, l := range limits {
		if l <= 0 {
			return true, fmt.Sprintf("not checked: a target has no memory limit (%s has %d MiB)", where, total>>20)
		}
		sum += l
	}
	if total > 0 && sum > total {
		return false, fmt.Sprintf("%d targets started at once have memory limits of %d MiB together, more than the %d MiB of %s",
			len(limits), sum>>20, total>>20, where)
	}
	return true, fmt.Sprintf("%d targets' limits of %d MiB together fit into the %d MiB of %s", len(limits), sum>>20, total>>20, where)
}

// TargetName is name (a target's, made of the stack's, the service's and
// the cell's names) as the name of an object a platform names like a
// DNS label: runs of other characters than letters and digits made sep,
// none at either end, at most max characters; lower case with lower.
// Where that changed name, or it was too long, it is cut to leave room
// and ended with sep and a hash of key (the cell id), so two cells never
// meet in one name.
func TargetName(name, key, sep string, max int, lower bool) string {
	safe := strings.Trim(notNameChar.ReplaceAllString(name, sep), sep)
	if lower {
		safe = strings.ToLower(safe)
	}
	if safe == name && len(name) <= max {
		return name
	}
	sum := sha256.Sum256([]byte(key))
	return strings.TrimRight(safe[:min(len(safe), max-9)], sep) + sep + hex.EncodeToString(sum[:4])
}

// notNameChar is a run of characters a target's name cannot hold.
var notNameChar = regexp.MustCompile(`[^a-zA-Z0-9]+`)
