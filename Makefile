# vigiles — the two README commands are `make example` and `make test`.
GO        ?= go
BIN       ?= bin/vigiles
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
FUZZTIME  ?= 10s

.PHONY: all deps build example test unit fuzz bench image-test lint clean

all: build

deps:
	bash scripts/install-deps.sh

# bin/vigiles and, beside it, the lean binaries that run inside every
# sandbox: bin/vigiles-sandbox (the init) and bin/vigiles-reaper (the
# reaper, pid 1 of the command's pid namespace). Each is linked to a
# .link file and copied into place: the linker writes its output through
# a shared mapping, which leaves the file's cached pages in single 4 KiB
# folios, and every process start maps, forks and unmaps those page by
# page; a copy's pages are large folios, as a binary read from an image
# or a package is (docs/performance.md, "Fresh copies start faster").
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN).link ./cmd/action
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $(dir $(BIN))vigiles-sandbox.link ./cmd/vigiles-sandbox
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $(dir $(BIN))vigiles-reaper.link ./cmd/vigiles-reaper
	for b in $(BIN) $(dir $(BIN))vigiles-sandbox $(dir $(BIN))vigiles-reaper; do \
		cp $$b.link $$b.tmp && mv -f $$b.tmp $$b && rm -f $$b.link || exit 1; \
	done

# The main job on the bundled example: install what is missing, build,
# audit the example repository and run its expectations.
example: deps build
	bash scripts/example.sh $(BIN)

# Every test: vet, gofmt, the unit and real-kernel tests (as root; those
# whose answer depends on the caller run as nobody too), every fuzz target
# for a bounded time, the container image test.
test:
	bash scripts/install-deps.sh --test
	bash scripts/test.sh

# What the tests check first, alone: go vet and gofmt.
lint:
	$(GO) vet ./...
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt -l: $$out"; exit 1; fi

fuzz:
	FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

bench: deps build
	bash bench/bench.sh

image-test: deps
	bash image/test.sh

clean:
	rm -rf bin
