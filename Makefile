# sweep — run `make help` for the targets.
SHELL := /bin/bash
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
GO ?= go
DEMO_ARGS ?=
EXAMPLE_ARGS ?=
# Test timeout per package. cmd/sweep's Docker end-to-end tests took 645 s
# of a 15 m timeout in CI on 2026-12-01 (511 s a stop earlier): 20 m leaves
# room for a loaded host without letting a hung test run on for long.
TEST_TIMEOUT ?= 20m

.PHONY: help build test test-long test-examples test-strategies test-drift test-compose-v1 unit lint docs fmt demo demo-images cli-compare bench-driver bench-strategy bench-noise bench-backends bench-interleave example-node example-php example-jvm example-orders study-infra study-infra-runs mutation mutation-survivors mutation-sample swarm-up swarm-down k8s-build k8s-up k8s-down k8s-load k8s-k6 k8s-smoke clean

help: ## list the targets
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

build: ## build bin/sweep with the version stamped in
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/sweep ./cmd/sweep

test: demo-images ## unit and integration tests (Docker tests skip without an engine; SWEEP_REQUIRE_DOCKER=1 fails instead)
	$(GO) test -race -count=1 -p 1 -timeout $(TEST_TIMEOUT) ./...

# The long end-to-end tests, in two parts: the example stacks, and the
# drift fault test, whose verdict needs a host that is not busy with
# anything else (CI runs it after its background Kubernetes build is done).
EXAMPLE_TESTS := ^(TestNodeExample|TestPHPExample|TestJVMExample|TestOrdersExample)$$
DRIFT_TESTS := ^TestDriftFlaggedAndRerun$$
STRATEGY_TESTS := ^(TestHalvingRunEndToEnd|TestSweepRunStopsWhenSteady|TestInterleavedFaults|TestInterleavedHalvingOnDemo|TestSwarmInterleavedEndToEnd|TestSwarmInterleavedTargetKilled)$$
LONG_RUN = SWEEP_LONG_TESTS=1 $(GO) test -race -count=1 -p 1 -timeout $(TEST_TIMEOUT) -run '$(1)' -v ./cmd/sweep/ 2>&1 | \
	  grep -E '^(=== RUN|--- |PASS|FAIL|ok|panic|\s+[a-z_0-9]+_test\.go:[0-9]+)'; exit $${PIPESTATUS[0]}
test-long: test-examples test-strategies test-drift ## the long end-to-end tests make test skips (the example stacks, the strategies, the drift fault; about 13 min): SWEEP_LONG_TESTS=1

test-examples: demo-images ## the example stacks end to end (Node.js, PHP behind PgBouncer, JVM, the order service with its scenario; about 6 min)
	$(call LONG_RUN,$(EXAMPLE_TESTS))

test-strategies: demo-images ## the strategies' and the interleaved schedule's end-to-end runs on the demo (halving, stopping when steady, interleaved faults, halving on interleaved rounds; interleaved on the swarm fixture, which skip without make swarm-up; about 7 min)
	$(call LONG_RUN,$(STRATEGY_TESTS))

test-drift: demo-images ## the drift fault test: a CPU hog beside a run (about 3 min; needs a host doing nothing else, and fails saying so when it was not)
	$(call LONG_RUN,$(DRIFT_TESTS))

test-compose-v1: demo-images ## the compose package's Docker tests, one end-to-end sweep and the baseline sweep with its compose export under docker-compose v1
	SWEEP_COMPOSE_CLI=v1 $(GO) test -race -count=1 -p 1 -timeout $(TEST_TIMEOUT) ./compose/
	set -o pipefail; SWEEP_COMPOSE_CLI=v1 $(GO) test -race -count=1 -p 1 -timeout $(TEST_TIMEOUT) \
	  -run 'TestSweepRunEndToEnd$$|TestBaselineSweepAndExport$$' -v ./cmd/sweep/ | \
	  grep -E '^(=== RUN|--- |PASS|FAIL|ok|\s+(integration|action_e2e)_test.go)'

unit: ## unit tests only: tests that need Docker or PostgreSQL skip under -short (about 25 s)
	$(GO) test -short -count=1 ./...

lint: ## go vet, gofmt, go.mod/go.sum tidy (go mod tidy -diff; asks the module proxy only when the cache lacks a module), and the links of README.md and docs/ (no network)
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi
	@GOPROXY=off $(GO) mod tidy -diff >/dev/null 2>&1 || $(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }
	$(GO) test -count=1 -run '^TestLinks$$' ./internal/doccheck/

docs: ## regenerate the CLI reference (docs/reference/cli) from the commands with cobra's doc generator; a test fails while it is stale
	$(GO) test -count=1 -run '^TestCLIReference$$' ./cmd/sweep/ -update

fmt: ## gofmt the tree
	gofmt -w $$(git ls-files '*.go')

demo-images: ## build the demo's app and PostgreSQL images locally (tagged by content, not rebuilt)
	bash compose/demo/images.sh

demo: demo-images build ## run a small sweep against the demo stack and print the matrices (DEMO_ARGS appended)
	./bin/sweep run --config compose/demo/sweep.yaml $(DEMO_ARGS)

bench-driver: ## built-in load driver vs wrk/hey: requests/s and generator CPU µs per request
	$(GO) run ./bench/driver

bench-strategy: demo-images build ## the same 12-cell demo grid with --strategy grid and --strategy halving: wall times, ratio, each profile's pick and agreement, and the replay's prediction of both (about 15 min; BENCH_ARGS appended, e.g. -busy 1)
	$(GO) run ./bench/strategy $(BENCH_ARGS)

bench-noise: demo-images build ## two runs of the same 20-cell demo grid with the control cell: each profile's pick in the other run's set, the measured noise, sweep replay's picks outside the set, the control's cost (about 14 min; BENCH_ARGS appended)
	$(GO) run ./bench/noise $(BENCH_ARGS)

# CPU 1 and 1.5, not bench-noise's 1 and 2: the app's pod runs on node 1,
# whose allocatable CPU is the host's 2, and a 2-CPU request does not fit
# beside CoreDNS's 50m when CoreDNS is scheduled there (it was, 2026-12-04).
bench-backends: demo-images build ## bench-noise's grid at CPU 1 and 1.5 on Compose (run a) and on Kubernetes (run b; needs make k8s-up, as root) in one invocation: each run's backend and pick per profile, whether it lies in the other run's set, the noise each measured (about 14 min; BENCH_ARGS appended)
	$(GO) run ./bench/noise -backends compose,kubernetes -cpus 1,1.5 $(BENCH_ARGS)

# Issue 39's bench: HOG=0 runs it without the hog, SMOKE=1 at a tiny
# scale (two cells, 4 s; 5-6 minutes on a busy host) to check the bench itself.
bench-interleave: demo-images build ## two sequential and two interleaved runs of one 12-cell demo grid at the wall time sweep plan prices alike, a CPU hog pinned beside the stack on and off every 40 s: each profile's pick in the other run's set, set sizes, wall times, as a Markdown table and <out>/bench.json (sweep plan prices it at 38m24s, allow up to an hour on a busy host; HOG=0 without the hog, SMOKE=1 a 6-minute check; BENCH_ARGS appended)
	$(GO) run ./bench/interleave -hog=$(if $(filter 0,$(HOG)),false,true) $(if $(filter 1,$(SMOKE)),-smoke) $(BENCH_ARGS)

bench-overhead: ## per-cell overhead vs compose, cells alternated in one run: BACKENDS=compose,swarm (make swarm-up) or compose,kubernetes,kubernetes-in-place (make k8s-up; CPUS=0.5,0.75)
	$(GO) run ./bench/overhead -backends $(or $(BACKENDS),compose,swarm) -cpus $(or $(CPUS),0.5,1)

bench-parallel: ## the demo's 4 cells on one swarm node, then on two side by side (needs make swarm-up); last line: parallel 2 / parallel 1 wall time
	$(GO) run ./bench/parallel

cli-compare: ## every command of .ci/cli-commands.txt with the sweep of BASE=<rev> and of the work tree: what differs in exit code, output or files written (for refactors that keep output byte for byte)
	./.ci/cli-compare $(BASE)

mutation: ## mutation-test the core packages with their unit tests (gremlins v0.6.0, niced, 1 worker: an hour or more per package on 2 shared cores) and print each efficacy; PKGS="sweep results" narrows
	./.ci/mutation $(PKGS)

mutation-survivors: ## re-test the mutants a make mutation log left alive against today's tests (SNAP=<commit the log was made at> PKG=<package dir> LOG=<its .log>)
	./.ci/mutation-survivors $(SNAP) $(PKG) $(LOG)

MUTATION_SAMPLE_OUT ?= /tmp/sweep-mutation-sample
mutation-sample: ## estimate one package's efficacy from a random sample of its mutants, with a 95 % interval, when the full run would take hours (PKG=<package dir> N=150 SEED=1; tests HEAD, so commit first)
	MUTATION_DRY_RUN=1 MUTATION_OUT=$(MUTATION_SAMPLE_OUT) ./.ci/mutation $(PKG)
	./.ci/mutation-survivors --sample $(or $(N),150) --seed $(or $(SEED),1) $$(git rev-parse HEAD) $(PKG) $(MUTATION_SAMPLE_OUT)/$(subst /,-,$(PKG)).log

swarm-up: demo-images ## start the multi-node Swarm test fixture (root; SWARM_NODES=3); ends with export DOCKER_HOST=...
	@bash internal/swarmfixture/fixture.sh up

swarm-down: ## stop the Swarm test fixture by its pidfiles and remove all it made (safe when nothing is up)
	@bash internal/swarmfixture/fixture.sh down

k8s-build: ## build the Kubernetes fixture's binaries from the Go module proxy into /var/cache/sweep-ci/k8s-<version> when missing (niced; ~25 min the first time)
	@bash internal/k8sfixture/build.sh

k8s-up: demo-images ## start the Kubernetes test fixture (root; K8S_NODES=2; builds what the cache lacks first); ends with export KUBECONFIG=...
	@bash internal/k8sfixture/fixture.sh up

k8s-down: ## stop the Kubernetes test fixture, remove all it made and check that nothing is left (safe when nothing is up)
	@bash internal/k8sfixture/fixture.sh down

k8s-load: ## load local Docker images into every node of the Kubernetes fixture: make k8s-load IMAGES="a:1 b:2"
	@bash internal/k8sfixture/fixture.sh load $(IMAGES)

k8s-k6: ## package the k6 on your PATH (a static binary; nothing builds k6 here) as the image sweep-k6:<hash> and load it into the Kubernetes fixture, for --k6-image
	@img="$$(SWEEP_IMAGES_ENV=$$(mktemp) bash compose/demo/images.sh k6 | cut -d= -f2)" && [ -n "$$img" ] && \
		bash internal/k8sfixture/fixture.sh load "$$img" && echo "--k6-image $$img"

k8s-smoke: ## check a running Kubernetes fixture end to end: nodes, the demo stack by Service name across nodes, CPU limit, pod replacement
	@bash internal/k8sfixture/smoke.sh

example-node: build ## build the Node.js example's images (examples/node/.env) and run a small sweep of it (EXAMPLE_ARGS appended)
	SWEEP_IMAGES_ENV=examples/node/.env bash compose/demo/images.sh pg node
	./bin/sweep run --config examples/node/sweep.yaml $(EXAMPLE_ARGS)

example-php: build ## build the PHP example's images (examples/php/.env) and run a small sweep of it, the pool in PgBouncer (EXAMPLE_ARGS appended)
	SWEEP_IMAGES_ENV=examples/php/.env bash compose/demo/images.sh pg pgbouncer php
	./bin/sweep run --config examples/php/sweep.yaml $(EXAMPLE_ARGS)

example-jvm: build ## build the JVM example's images (examples/jvm/.env) and run a small sweep of it, Jetty threads and a HikariCP pool (EXAMPLE_ARGS appended)
	SWEEP_IMAGES_ENV=examples/jvm/.env bash compose/demo/images.sh pg jvm
	./bin/sweep run --config examples/jvm/sweep.yaml $(EXAMPLE_ARGS)

example-orders: build ## build the order service example's images (examples/orders/.env) and run a small sweep of it with its own scenario file, its knobs ORDERS_WORKERS and ORDERS_DB_POOL (EXAMPLE_ARGS appended)
	SWEEP_IMAGES_ENV=examples/orders/.env bash compose/demo/images.sh pg orders
	./bin/sweep run --config examples/orders/sweep.yaml $(EXAMPLE_ARGS)

# The infrastructure study (PHP behind PgBouncer, Node.js, Go against one
# PostgreSQL), scaled down to a 2-core host: every stack at the same CPU
# limit, grid and SLO, each cell's safe limit searched in VUs (closed
# model) with short levels; the study ramped to 14 000 clients for ~5 min
# a level. STUDY_ARGS is appended to each run; a second make resumes.
STUDY_OUT ?= runs/study-infra
STUDY_ARGS ?=
STUDY_FLAGS = --find-limit --cpus 1 --web-mult 2,4 --db-mult 2 --driver builtin \
  --slo 'success>=99%,p99<=500ms' --start-level 4 --factor 2 --max-steps 9 \
  --warmup 2s --duration 6s $(STUDY_ARGS)
study-infra-runs: build
	SWEEP_IMAGES_ENV=examples/php/.env bash compose/demo/images.sh pg pgbouncer php
	SWEEP_IMAGES_ENV=examples/node/.env bash compose/demo/images.sh pg node
	bash compose/demo/images.sh app pg
	./bin/sweep run --config examples/php/sweep.yaml $(STUDY_FLAGS) --out $(STUDY_OUT)/php
	./bin/sweep run --config examples/node/sweep.yaml $(STUDY_FLAGS) --out $(STUDY_OUT)/node
	./bin/sweep run --config compose/demo/sweep.yaml $(STUDY_FLAGS) --out $(STUDY_OUT)/go

study-infra: study-infra-runs ## the infrastructure study reproduced: safe limits of the PHP+PgBouncer, Node.js and Go stacks at 1 CPU, one table (about 10-15 min; STUDY_OUT, STUDY_ARGS)
	./bin/sweep limits php=$(STUDY_OUT)/php node=$(STUDY_OUT)/node go=$(STUDY_OUT)/go

clean: ## remove build output and leftovers of crashed runs
	rm -rf bin
	-./bin/sweep clean 2>/dev/null || true
