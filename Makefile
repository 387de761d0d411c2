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
# reaper, pid 1 of the command's pid namespace).
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/action
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $(dir $(BIN))vigiles-sandbox ./cmd/vigiles-sandbox
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $(dir $(BIN))vigiles-reaper ./cmd/vigiles-reaper

# The main job on the bundled example: install what is missing, build,
# audit the example repository and run its expectations.
example: deps build
	bash scripts/example.sh $(BIN)

# Every test: vet, gofmt, the unit and real-kernel tests (as root and as an
# unprivileged user), every fuzz target for a bounded time, the container
# image test.
test: deps
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
