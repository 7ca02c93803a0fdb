# The single entry point for developers and CI. The README's two commands:
#   make dev    install what is missing, start the local stack, serve the API
#   make test   every test (go vet + go test -race), as CI runs it
SHELL := /bin/bash
GO    ?= go

.PHONY: dev test deps vet docs fuzz help

help:
	@echo "make dev     start DynamoDB Local + the API at http://127.0.0.1:$${PORT:-3000}"
	@echo "make test    go vet and every test (DynamoDB Local is started by the tests)"
	@echo "make docs    regenerate README tables from the route and error-code tables"
	@echo "make fuzz    run each fuzz target for FUZZTIME (default 30s)"

## deps: tools the project needs, installed into git-ignored .cache/
deps:
	@scripts/bootstrap.sh

dev: deps
	$(GO) run ./scripts/devstack

vet:
	$(GO) vet ./...

test: deps vet
	$(GO) test -race -count=1 ./...

docs:
	$(GO) run ./scripts/docgen

FUZZTIME ?= 30s
fuzz: deps
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done
