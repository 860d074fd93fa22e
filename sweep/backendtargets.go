package sweep

// What the backends that implement Targets share.

import (
	"context"
	"net"
	"net/url"
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
