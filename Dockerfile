# syntax=docker/dockerfile:1
# The vigiles container image: the engine plus everything it confines
# hooks with. Published as ghcr.io/vigiles/action:vX.Y.Z and the moving
# :vX by .github/workflows/release.yml; proved without a Docker engine by
# `make image-test` (image/test.sh), which builds the same package list
# into a root filesystem with debootstrap.

# --- build: a static binary, reproducible paths, version stamped --------
FROM golang:1.24-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/vigiles ./cmd/action \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/vigiles-sandbox ./cmd/vigiles-sandbox \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/vigiles-reaper ./cmd/vigiles-reaper \
 && /out/vigiles version

# --- runtime: Debian bookworm-slim with the packages of image/packages.txt
FROM debian:bookworm-slim
ARG VERSION=dev
LABEL org.opencontainers.image.source="https://github.com/vigiles/action" \
      org.opencontainers.image.description="vigiles: run AI-agent plugin hooks confined and report what they did" \
      org.opencontainers.image.version="${VERSION}"
COPY image/packages.txt /tmp/packages.txt
RUN set -eu; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      $(grep -v '^[[:space:]]*#' /tmp/packages.txt | tr -s '[:space:]' ' '); \
    rm -rf /var/lib/apt/lists/* /tmp/packages.txt
COPY --from=build /out/vigiles /out/vigiles-sandbox /out/vigiles-reaper /usr/local/bin/
# GitHub runs container actions and job containers as root; the hooks
# themselves never run as root: bubblewrap gives them a fresh user
# namespace with every capability dropped.
USER root
ENTRYPOINT ["/usr/local/bin/vigiles"]
CMD ["--help"]
