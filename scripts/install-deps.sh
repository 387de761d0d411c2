#!/usr/bin/env bash
# Installs what vigiles and its tests need on Debian/Ubuntu: the real
# confinement parts (bubblewrap, nftables, slirp4netns, passt/pasta,
# iproute2) and the interpreters the example hooks use. Uses sudo where
# not root. Safe to run again.
#
# With --test it also installs what only the tests need: a C compiler (go
# test -race, the seccomp tests' C helpers), debootstrap (the image test),
# the tools that make ext4, xfs and btrfs images, libnss-systemd, Node.js
# and npm where the machine has none, and bun.
set -euo pipefail
tests=false
[ "${1:-}" = --test ] && tests=true
pkgs=(bubblewrap nftables slirp4netns passt iproute2 uidmap python3 curl ca-certificates git make procps psmisc)
$tests && pkgs+=(gcc libc6-dev
  debootstrap # the container image test's root file system
  e2fsprogs xfsprogs btrfs-progs # the tests' work trees on ext4, xfs and btrfs loop images
  libnss-systemd) # a group only the name service names (a userdb drop-in), never taken from a tree
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# For the tests: Node.js (hooks, the egress tests' fetch probes) and npm,
# which installs bun below; a machine's own Node.js (another vendor's
# package) is kept.
if $tests; then
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Ubuntu 24.04 restricts unprivileged user namespaces through AppArmor.
if [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ] &&
   [ "$(cat /proc/sys/kernel/apparmor_restrict_unprivileged_userns)" != 0 ]; then
  echo "allowing unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=0)" >&2
  $SUDO sysctl -qw kernel.apparmor_restrict_unprivileged_userns=0
fi
# bun, at an exact version, from the npm registry (its package carries the
# binary for each platform): the tests run a Bun hook for real.
bun_version=1.4.5
if $tests && ! command -v bun >/dev/null; then
  echo "installing: bun@$bun_version (npm)" >&2
  $SUDO npm install -g --no-fund --no-audit --loglevel=error "bun@$bun_version" >/dev/null
  command -v bun >/dev/null || { echo "npm installed bun@$bun_version, but no bun is on PATH: link $($SUDO npm prefix -g)/bin/bun into /usr/local/bin" >&2; exit 1; }
fi
command -v go >/dev/null || { echo "go is not installed: install Go 1.24 or newer" >&2; exit 1; }
