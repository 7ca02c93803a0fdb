# The single entry point for developers and CI. The README's two commands:
#   make dev    install what is missing, start the local stack, serve the API
#   make test   every test (go vet + go test -race), as CI runs it
SHELL := /bin/bash
GO    ?= go

## -trimpath for every go command make runs (go test, go vet, go build,
## staticcheck's go list, and the go builds tests start): without it Go's
## build cache keys each package of this repository by its directory, so a
## fresh clone at another path (CI's) compiled every package again and
## staticcheck, whose cache keys are Go's build IDs, analysed everything
## again: about 125 s of CPU for the race test binaries and 150 s for
## staticcheck, measured on a warm machine (docs/DEVELOPING.md).
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)

.PHONY: dev test checks test-go test-infra deps vet lint docs generate fuzz help build synth bench opctl screenshots

help:
	@echo "make dev     start DynamoDB Local + the API at http://127.0.0.1:$${PORT:-3000} (VERBOSE=1: log every stream, queue and S3 record)"
	@echo "make test    go vet, staticcheck and every test (one DynamoDB Local, MinIO and stripe-mock for all)"
	@echo "make docs    regenerate README tables and docs/API.md from their sources of truth"
	@echo "make screenshots  rewrite docs/screenshots and docs/dashboard-screenshots: each page at 390x844 and 1280x800 (headless Chromium)"
	@echo "make generate  regenerate the pages' Go code (x_templ.go) from their templ sources (x.templ)"
	@echo "make opctl   build the operator CLI as ./opctl (git-ignored)"
	@echo "make fuzz    run each fuzz target for FUZZTIME (default 30s): takes targets x FUZZTIME; it prints the count"
	@echo "make build   cross-compile every function for Lambda (linux/arm64) into build/"
	@echo "make synth   build, then write the CloudFormation template to infra/cdk.out (CDK_ENV=dev|prod)"
	@echo "make bench   benchmarks: cold start, DynamoDB cost, load, handler overhead -> docs/BENCHMARKS.md"

## deps: tools the project needs, installed into git-ignored .cache/
## timed runs a shell command and prints how long it took (the phases of
## make test, which .ci/run shows), keeping its exit status.
timed = start=$$(date +%s); $(1); rc=$$?; echo "make $@: $$(( $$(date +%s) - start ))s (exit $$rc)"; exit $$rc

deps:
	@$(call timed,scripts/bootstrap.sh)

## dev: build the stack's program into .cache/bin and run it directly, not
## with `go run`, which exits 1 when interrupted whatever its child does
## (make then printed "Error 1" on Ctrl-C). The shell ignores SIGINT so that
## it stays to hand make the program's status; the program still gets
## Ctrl-C (Go re-enables an ignored SIGINT it asks for), stops everything
## and exits 0. Stopped by a signal to its pid (.local/dev.json), make dev
## exits 0; stopped by Ctrl-C, make itself also got SIGINT and ends by it,
## as GNU make always does (status 130, no error line).
dev: deps
	@$(GO) build -o .cache/bin/devstack ./scripts/devstack
	@trap '' INT; .cache/bin/devstack

vet:
	@echo '$(GO) vet ./...'; $(call timed,$(GO) vet ./...)

## lint: staticcheck, pinned by scripts/install-staticcheck.sh (into .cache/),
## on both modules; it prints nothing and exits 0 when it finds nothing.
lint:
	@echo 'staticcheck ./... && cd infra && staticcheck ./...'; \
	$(call timed,sc=$$(scripts/install-staticcheck.sh) && $$sc ./... && (cd infra && $$sc ./...))

## test: every test binary shares one DynamoDB Local, MinIO and stripe-mock
## (scripts/teststack starts them and runs go test). GORACE's
## atexit_sleep_ms=0 drops the race detector's 1 s sleep at the exit of
## each test binary (about 80 s of a run); races are still reported.
## -vet=off: go test would vet every package again with a subset of the
## checks of the full go vet ./... that make test runs just before.
## -ldflags=-w: the ~120 race test binaries are linked without DWARF (no
## debugger reads them; stack traces keep their file:line), about 12% less
## CPU for building them.
## The static checks (go vet, staticcheck, the CDK app's tests) run beside
## go test, not before it: go test spends a fifth of its time waiting on
## servers and browsers, and the checks fill it (-j2: one job for go test,
## one for the checks in turn; -k: every phase reports even when one fails).
test: deps
	@$(MAKE) --no-print-directory -j2 -k --output-sync=line test-go checks

checks: vet lint test-infra

## test-go: tests that run make themselves (make dev's) get a clean make
## environment, not this make's -j2 jobserver, which they cannot reach.
## -p 3: three test binaries at a time on two cores; many wait on servers
## and browsers (go test: 463 s at -p 2, 427 s at -p 3, warm, same tree).
test-go:
	@echo 'GORACE=atexit_sleep_ms=0 $(GO) run ./scripts/teststack -race -count=1 -vet=off -ldflags=-w -p 3 ./...'; \
	$(call timed,env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL GORACE=atexit_sleep_ms=0 GO=$(GO) $(GO) run ./scripts/teststack -race -count=1 -vet=off -ldflags=-w -p 3 ./...)

## test-infra: the CDK app's tests (its own module, infra/go.mod); the
## synthesised template is checked with the assertions library and cdk-nag.
test-infra:
	@echo 'cd infra && $(GO) vet ./... && $(GO) test -count=1 ./...'; \
	$(call timed,(cd infra && $(GO) vet ./... && $(GO) test -count=1 ./...))

docs:
	$(GO) run ./scripts/docgen

## generate: the HTML pages are templ components (shared/*/x.templ); templ,
## pinned as a go.mod tool, writes their Go code (x_templ.go, committed).
## A test fails when a generated file is stale.
generate:
	$(GO) tool templ generate -path shared

## screenshots: each page's states at a phone's and a laptop's size into
## docs/screenshots (scripts/screenshots; make test only checks the list),
## and the dashboard's pages into docs/dashboard-screenshots.
screenshots: deps
	SCREENSHOTS_WRITE=1 $(GO) test -count=1 -run '^TestScreenshots$$' ./scripts/screenshots
	SCREENSHOT_DIR=$(CURDIR)/docs/dashboard-screenshots $(GO) test -count=1 -run '^TestEveryPage$$' ./shared/app/dashboardapp

## opctl: the operator CLI, built into the repository root (git-ignored).
opctl:
	$(GO) build -o opctl ./scripts/opctl

## build: every function of the route table, cross-compiled for Lambda
## (linux/arm64) into build/<slug>/bootstrap and zipped as build/<slug>.zip;
## prints the sizes. BUILDFLAGS="-arch amd64" builds for x86_64,
## BUILDFLAGS="-only v1-leads" one function.
build:
	$(GO) run ./scripts/build $(BUILDFLAGS)

# SAM's makefile builder (template.yaml: Metadata BuildMethod: makefile) runs
# `make build-<LogicalId>` with ARTIFACTS_DIR set, e.g. build-V1LeadsFunction.
build-%Function:
	$(GO) run ./scripts/build -sam-logical-id $*Function -out "$(ARTIFACTS_DIR)"

## synth: the CloudFormation template, offline, into infra/cdk.out. The
## jsii runtime's "Runtime process exited abnormally: waitid: no child
## processes" after a good synth was a race of its own (infra/jsiiquiet drops it).
CDK_ENV ?= dev
synth: build
	rm -rf infra/cdk.out
	cd infra && CDK_OUTDIR=cdk.out CDK_CONTEXT_JSON='{"env":"$(CDK_ENV)"}' $(GO) run .
	@ls infra/cdk.out/*.template.json

## bench: cold start, DynamoDB cost per operation, load, handler overhead;
## prints the table and writes docs/BENCHMARKS.md (about 7 minutes here).
bench: deps
	$(GO) run ./scripts/bench

## fuzz: every fuzz target for FUZZTIME each, one after another, so it
## takes (number of targets) x FUZZTIME plus a build per target (it prints
## the count first; `go test -list '^Fuzz' ./...` lists them). FUZZTIME=5s
## for a quick pass.
FUZZTIME ?= 30s
fuzz: deps
	@targets=$$(for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do echo "$$pkg $$f"; done; \
	done); \
	echo "== $$(echo "$$targets" | grep -c .) fuzz targets x $(FUZZTIME) each"; \
	while read -r pkg f; do \
	  [ -n "$$f" ] || continue; \
	  echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s $$pkg || exit 1; \
	done <<< "$$targets"
