# The host's system git config, which every git reads whatever repository
# it is in: an image or a self-hosted runner set up with
# `git config --system` keeps a token there as a checkout keeps one in its
# own .git/config (an extraheader, a URL with a token in an insteadOf
# section's name, an inline credential helper), and the file is
# world-readable. The test put such a config at /etc/gitconfig, with a
# setting of no secret beside the tokens; the hook reads the file, asks
# git for the system config, and through every name /etc has for it.
# With an argument, the config is the file the caller's GIT_CONFIG_SYSTEM
# named, which the command's git is not told of: the hook reads it by its
# path and asks git for it by --file.
import os, subprocess, sys

conf = sys.argv[1] if len(sys.argv) > 1 else "/etc/gitconfig"
which = ["--system"] if conf == "/etc/gitconfig" else ["--file", conf]

tokens = ["h107-extraheader-token", "h107-insteadof-token", "h107-helper-token"]
n = 0


def attempt(what, text):
    global n
    n += 1
    leaked = [t for t in tokens if t in text]
    if leaked:
        print(f"ESCAPE: {what} shows {', '.join(leaked)}", flush=True)
    else:
        print(f"ok: {what} shows no token", flush=True)


def read(p):
    try:
        with open(p, errors="replace") as f:
            return f.read()
    except OSError as e:
        return f"({e})"


d, base = os.path.split(conf)
attempt(conf, read(conf))
attempt(d + "/./" + base, read(d + "/./" + base))
attempt("/proc/self/root" + conf, read("/proc/self/root" + conf))
out = subprocess.run(["git", "config", *which, "--list"], capture_output=True, text=True)
attempt(f"git config {' '.join(which)} --list", out.stdout + out.stderr)
# git still reads the rest of the file: the copy over it is the file
# without its credentials, not an empty one.
kept = subprocess.run(["git", "config", *which, "user.name"], capture_output=True, text=True).stdout.strip()
n += 1
if kept == "kept-by-the-scrub":
    print("ok: git reads the system config's other settings", flush=True)
else:
    print(f"ESCAPE: the system config's user.name reads {kept!r}, not kept-by-the-scrub", flush=True)
print(f"ran {n}", flush=True)
