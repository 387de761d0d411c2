#!/usr/bin/env bash
# make image-test: prove the container image without a Docker engine.
#
# Builds the image's root filesystem from image/packages.txt (the list the
# Dockerfile installs) with debootstrap, from this machine's configured
# Debian mirror, adds a CGO_ENABLED=0 build of ./cmd/action as
# /usr/local/bin/vigiles (as the Dockerfile does), and runs inside it as
# its root (bwrap --bind rootfs /, with /proc, /sys, /dev and a fresh /tmp): `vigiles doctor`, `vigiles test` and `vigiles audit` on examples/,
# and the action entry point as a GitHub step would start it.
#
# The root filesystem is cached as a tarball under .cache/image-test/
# (gitignored), keyed by the package list, so a second run is fast.
# Needs root (debootstrap, and bwrap keeping capabilities) on Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

die() { echo "image-test: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap and a root bwrap need it); try: sudo make image-test"
command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
command -v go >/dev/null || die "go is missing"
command -v bwrap >/dev/null || die "bubblewrap is missing: apt-get install bubblewrap"

suite=bookworm
arch=$(dpkg --print-architecture)
pkgs=$(grep -v '^[[:space:]]*#' image/packages.txt | tr -s '[:space:]' '\n' | sed '/^$/d')
[ -n "$pkgs" ] || die "image/packages.txt lists no packages"

# The machine's own Debian mirror, from /etc/apt/sources.list and
# sources.list.d (one-line and deb822 formats): the first URI that serves
# "$suite" itself (not -security or -updates) with component main.
mirror() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    awk -v s="$suite" '$1 == "deb" {
        i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
        if ($(i+1) == s) { for (j = i+2; j <= NF; j++) if ($j == "main") { print $i; exit } } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    awk -v s="$suite" 'BEGIN { RS = ""; FS = "\n" }
      { uri = ""; ok = 0; main = 0; deb = 0
        for (k = 1; k <= NF; k++) {
          if ($k ~ /^Types:/ && $k ~ /[[:space:]]deb([[:space:]]|$)/) deb = 1
          if ($k ~ /^URIs:/) { split($k, a, /[[:space:]]+/); uri = a[2] }
          if ($k ~ /^Suites:/) { n = split($k, a, /[[:space:]]+/); for (m = 2; m <= n; m++) if (a[m] == s) ok = 1 }
          if ($k ~ /^Components:/ && $k ~ /[[:space:]]main([[:space:]]|$)/) main = 1 }
        if (deb && ok && main && uri != "") { print uri; exit } }' "$f"
  done
}
url=$(mirror | head -n1)
[ -n "$url" ] || die "no Debian mirror for $suite main in /etc/apt/sources.list*"

cache=$repo/.cache/image-test
mkdir -p "$cache"
key=$( (cat image/packages.txt; echo "$suite $arch") | sha256sum | cut -c1-16)
tarball=$cache/rootfs-$suite-$arch-$key.tar.gz

work=$(mktemp -d /tmp/vigiles-image-test.XXXXXX)
root=$work/rootfs
cleanup() { rm -rf --one-file-system "$work"; }
trap cleanup EXIT
mkdir -p "$root"

if [ -f "$tarball" ]; then
  echo "image-test: root filesystem from cache $tarball" >&2
  tar -C "$root" -xzf "$tarball"
else
  include=$(echo "$pkgs" | paste -sd, -)
  echo "image-test: debootstrap $suite ($arch) from the configured mirror with: $include" >&2
  if ! debootstrap --variant=minbase --arch="$arch" --include="$include" \
       "$suite" "$root" "$url" >"$work/debootstrap.log" 2>&1; then
    tail -n 30 "$work/debootstrap.log" >&2
    [ -f "$root/debootstrap/debootstrap.log" ] && tail -n 30 "$root/debootstrap/debootstrap.log" >&2
    die "debootstrap failed"
  fi
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb
  tar -C "$root" -czf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
  echo "image-test: cached $tarball" >&2
fi

# Every listed package is really installed in the root filesystem.
for p in $pkgs; do
  dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
    die "package $p from image/packages.txt is not installed in the root filesystem"
done

# The binary, built as the Dockerfile builds it.
version=image-test-$(git rev-parse --short HEAD 2>/dev/null || echo dev)
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" \
  -o "$root/usr/local/bin/vigiles" ./cmd/action
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" \
  -o "$root/usr/local/bin/vigiles-sandbox" ./cmd/vigiles-sandbox
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" \
  -o "$root/usr/local/bin/vigiles-reaper" ./cmd/vigiles-reaper
mkdir -p "$root/work"
cp -a examples "$root/work/examples"
mkdir -p "$root/github/file_commands"
cp image/testdata/pull_request.json "$root/github/event.json"
# What the runner sets for every step (and the user action.yml hands files
# back to), as the steps below read it; each step names its workspace.
cat >"$root/github/env.sh" <<'ENV'
export GITHUB_ACTIONS=true RUNNER_TEMP=/tmp HOST_UID=1001 HOST_GID=1002
export GITHUB_EVENT_PATH=/github/event.json GITHUB_SHA=3333333333333333333333333333333333333333
export GITHUB_REPOSITORY=octo/plugins GITHUB_SERVER_URL=https://github.com
export GITHUB_STEP_SUMMARY=/github/file_commands/summary GITHUB_OUTPUT=/github/file_commands/output
ENV

# Inside: the root filesystem becomes / through bubblewrap (pivot_root), as
# a container's would. Not chroot: the kernel refuses new user namespaces
# to a chrooted process, and the engine inside needs them. The outer bwrap
# runs as root and keeps every capability (a container started as
# action.yml starts it keeps SYS_ADMIN and NET_ADMIN); /dev is the real one
# so /dev/net/tun exists for slirp4netns and pasta; /sys/fs/cgroup is
# writable because the engine, running as root, puts each run in a pids
# cgroup of its own (action.yml makes the container's cgroup writable too).
# /proc is the host's, bound whole: the kernel lets a user namespace mount
# a new proc only where a fully visible one exists, and bwrap's own --proc
# covers /proc/sys and friends (Docker's masked paths do the same, hence
# --security-opt systempaths=unconfined in action.yml).
inside() {
  bwrap --bind "$root" / --dev-bind /dev /dev --bind /proc /proc --ro-bind /sys /sys \
    --bind /sys/fs/cgroup /sys/fs/cgroup \
    --tmpfs /tmp --tmpfs /run --cap-add ALL --die-with-parent --clearenv \
    --setenv PATH /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --setenv HOME /root --setenv LANG C.UTF-8 \
    -- "$@"
}

status=0
expect() { # expect WANT-CODES DESCRIPTION -- COMMAND...
  local want=$1 what=$2; shift 3
  local code=0
  echo "image-test: $what" >&2
  inside "$@" >"$work/out" 2>"$work/err" || code=$?
  case " $want " in
    *" $code "*) echo "image-test: ok ($what: exit $code)" >&2 ;;
    *) echo "image-test: FAIL ($what: exit $code, want $want)" >&2
       sed 's/^/  stdout: /' "$work/out" | tail -n 40 >&2
       sed 's/^/  stderr: /' "$work/err" | tail -n 40 >&2
       status=1 ;;
  esac
}

expect "0" "vigiles version" -- /usr/local/bin/vigiles version
grep -q "$version" "$work/out" || { echo "image-test: FAIL (version not stamped: $(cat "$work/out"))" >&2; status=1; }
expect "0" "vigiles doctor: this root filesystem gets the confined tier" -- /usr/local/bin/vigiles doctor
cat "$work/out" >&2
expect "1" "vigiles test on examples/ (two promises are broken there)" -- \
  /bin/sh -c 'cd /work/examples && vigiles test --format json --output /tmp/test.json; code=$?
    grep -q "\"schema\": \"vigiles.report/v1\"" /tmp/test.json || exit 99
    exit $code'
expect "0 1" "vigiles audit on examples/ against its baseline (the hosts usage-stats tries with curl recorded)" -- \
  /bin/sh -c 'cd /work/examples && vigiles audit --baseline .vigiles/baseline.json --format json --output /tmp/audit.json; code=$?
    for h in telemetry.usage-stats.example.test updates.usage-stats.example.test; do
      grep -q "\"$h\"" /tmp/audit.json || { echo "the audit did not record $h: is curl in the image?" >&2; exit 99; }
    done
    exit $code'
tail -n 5 "$work/err" >&2
expect "1" "the action entry point, as a pull_request step starts it" -- /bin/sh -c '
  export GITHUB_WORKSPACE=/work/examples
  . /github/env.sh
  # The runner names inputs INPUT_<NAME> with hyphens kept: not a shell
  # variable name, so env sets them.
  env INPUT_COMMAND=test INPUT_CHECK-RUN=false INPUT_SARIF=vigiles.sarif vigiles; code=$?
  grep -q "^verdict=fail$" $GITHUB_OUTPUT || { echo "no verdict=fail output" >&2; exit 99; }
  grep -q "vigiles test: fail" $GITHUB_STEP_SUMMARY || { echo "no job summary" >&2; exit 99; }
  grep -q "\"version\": \"2.1.0\"" /work/examples/vigiles.sarif || { echo "no sarif" >&2; exit 99; }
  exit $code'

# The exact command action.yml runs in the container (extracted from it),
# with the inputs named as the composite step exports them.
awk '/--entrypoint \/bin\/sh "\$VIGILES_IMAGE" -c '"'"'$/ {on=1; next}
     on { if ($0 ~ /exit \$code'"'"'$/) { sub(/'"'"'$/, ""); print; exit } print }' action.yml >"$root/action-entry.sh"
grep -q 'vigiles action' "$root/action-entry.sh" || die "could not extract the container command from action.yml"
rm -f "$root"/github/file_commands/*
expect "1" "action.yml's container command (composite inputs, files handed back to the runner user)" -- /bin/sh -c '
  export GITHUB_WORKSPACE=/work/examples
  . /github/env.sh
  export INPUT_COMMAND=test INPUT_CHECK_RUN=false INPUT_FAIL_LEVEL=error INPUT_SARIF=out/vigiles.sarif
  before=$(stat -c %u:%g /work/examples)
  cd /work/examples && /bin/sh /action-entry.sh; code=$?
  grep -q "^verdict=fail$" $GITHUB_OUTPUT || { echo "no verdict=fail output" >&2; exit 99; }
  [ "$(stat -c %u:%g /work/examples/out/vigiles.sarif)" = 1001:1002 ] || { echo "sarif not handed back" >&2; exit 99; }
  [ "$(stat -c %u:%g /work/examples/out)" = 1001:1002 ] || { echo "the directory made for the sarif not handed back" >&2; exit 99; }
  [ "$(stat -c %u:%g /work/examples)" = "$before" ] || { echo "the workspace, there before, was given away" >&2; exit 99; }
  [ "$(stat -c %u:%g /tmp/vigiles/report-test.json)" = 1001:1002 ] || { echo "report not handed back" >&2; exit 99; }
  exit $code'
# A new baseline in directories that do not exist yet: they are handed
# back with it, the ones that were there before (.vigiles/) are not; a
# sarif outside the workspace is refused (it would be lost with the
# container).
rm -f "$root"/github/file_commands/*
expect "0 1" "action.yml's container command writing a new baseline (its new directories handed back too)" -- /bin/sh -c '
  export GITHUB_WORKSPACE=/work
  . /github/env.sh
  export INPUT_COMMAND=audit INPUT_WORKING_DIRECTORY=examples INPUT_CHECK_RUN=false INPUT_FAIL_LEVEL=error
  export INPUT_BASELINE=.vigiles/new/deeper/baseline.json INPUT_UPDATE_BASELINE=true
  before=$(stat -c %u:%g /work/examples/.vigiles)
  cd /work && /bin/sh /action-entry.sh; code=$?
  b=/work/examples/.vigiles/new
  [ "$(stat -c %u:%g $b/deeper/baseline.json)" = 1001:1002 ] || { echo "baseline not handed back" >&2; exit 99; }
  [ "$(stat -c %u:%g $b/deeper)" = 1001:1002 ] && [ "$(stat -c %u:%g $b)" = 1001:1002 ] ||
    { echo "the directories made for the baseline not handed back" >&2; exit 99; }
  [ "$(stat -c %u:%g /work/examples/.vigiles)" = "$before" ] || { echo ".vigiles, there before, was given away" >&2; exit 99; }
  INPUT_COMMAND=test INPUT_BASELINE= INPUT_UPDATE_BASELINE=false INPUT_SARIF=../outside.sarif /bin/sh /action-entry.sh >/tmp/refused 2>&1
  refused=$?
  [ "$refused" = 2 ] && grep -q "input sarif" /tmp/refused && [ ! -e /outside.sarif ] ||
    { echo "a sarif outside the workspace: exit $refused, want 2 naming the input" >&2; cat /tmp/refused >&2; exit 99; }
  exit $code'

# A cancelled step: the runner's SIGTERM reaches the container's pid 1, the
# shell of action.yml's command, which the kernel gives only the signals it
# handles. It passes it on to the engine, which writes what it has (the
# report, the outputs: verdict error) with the hung hook marked interrupted.
# Here the shell is pid 1 of a new pid namespace and gets SIGTERM from
# outside it, as from docker.
mkdir -p "$root/work/slow/plugins/slow/hooks"
printf '%s\n' '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sleep 60"}]}]}}' \
  >"$root/work/slow/plugins/slow/hooks/hooks.json"
rm -f "$root"/github/file_commands/*
expect "0" "action.yml's container command, cancelled: the engine gets the signal and writes its reports" -- /bin/sh -c '
  export GITHUB_WORKSPACE=/work/slow
  . /github/env.sh
  export INPUT_COMMAND=audit INPUT_CHECK_RUN=false INPUT_FAIL_LEVEL=error
  cd /work/slow
  unshare --pid --fork --mount-proc /bin/sh /action-entry.sh >/tmp/cancel.log 2>&1 &
  u=$!
  # Once the hook runs (its sleep 60 is seen), so that it is the run cut.
  seen=
  for i in $(seq 600); do
    for c in /proc/[0-9]*/cmdline; do
      [ "$(tr "\\0" " " <"$c" 2>/dev/null)" = "sleep 60 " ] && { seen=1; break 2; }
    done
    sleep 0.1
  done
  [ "$seen" ] || { echo "the hook never started, so no run could be cut" >&2; cat /tmp/cancel.log >&2; exit 99; }
  init=$(cat /proc/$u/task/$u/children)
  [ -n "$init" ] || { echo "no pid 1 under unshare" >&2; cat /tmp/cancel.log >&2; exit 99; }
  kill -TERM $init
  wait $u; code=$?
  [ "$code" = 125 ] || { echo "exit $code, want 125 (interrupted)" >&2; cat /tmp/cancel.log >&2; exit 99; }
  grep -q "^verdict=error$" $GITHUB_OUTPUT || { echo "no verdict=error output" >&2; cat /tmp/cancel.log >&2; exit 99; }
  grep -q "run/interrupted" /tmp/vigiles/report-audit.json || { echo "the report does not mark the interruption" >&2; exit 99; }
  grep -q "plugins/slow" /tmp/cancel.log || { echo "the log does not name the hook still running" >&2; cat /tmp/cancel.log >&2; exit 99; }
  exit 0'

if [ "$status" = 0 ]; then
  echo "image-test: PASS" >&2
else
  echo "image-test: FAILED" >&2
fi
exit "$status"
