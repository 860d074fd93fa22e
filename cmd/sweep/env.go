package main

import (
	"context"

	"github.com/sweep-tool/sweep/sweep"
)

// envKey keys the process environment that main read once, at the edge,
// in the context every command runs with: the commands hand it to the
// library (session.Options.Env, the engine, the compose files'
// interpolation), which never reads the environment itself.
type envKey struct{}

// withEnv is ctx carrying env.
func withEnv(ctx context.Context, env sweep.Env) context.Context {
	return context.WithValue(ctx, envKey{}, env)
}

// envOf is the environment ctx carries (nil: none was given, or a command
// run without a context: as if empty).
func envOf(ctx context.Context) sweep.Env {
	if ctx == nil {
		return nil
	}
	env, _ := ctx.Value(envKey{}).(sweep.Env)
	return env
}
