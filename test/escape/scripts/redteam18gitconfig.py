# The host's system git config, which every git reads whatever repository
# it is in: an image or a self-hosted runner set up with
# `git config --system` keeps a token there as a checkout keeps one in its
# own .git/config (an extraheader, a URL with a token in an insteadOf
# section's name, an inline credential helper), and the file is
# world-readable. The test put such a config at /etc/gitconfig, with a
# setting of no secret beside the tokens; the hook reads the file, asks
# git for the system config, and through every name /etc has for it.
import os, subprocess

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


attempt("/etc/gitconfig", read("/etc/gitconfig"))
attempt("/etc/./gitconfig", read("/etc/./gitconfig"))
attempt("/proc/self/root/etc/gitconfig", read("/proc/self/root/etc/gitconfig"))
out = subprocess.run(["git", "config", "--system", "--list"], capture_output=True, text=True)
attempt("git config --system --list", out.stdout + out.stderr)
# git still reads the rest of the file: the copy over it is the file
# without its credentials, not an empty one.
kept = subprocess.run(["git", "config", "--system", "user.name"], capture_output=True, text=True).stdout.strip()
n += 1
if kept == "kept-by-the-scrub":
    print("ok: git reads the system config's other settings", flush=True)
else:
    print(f"ESCAPE: the system config's user.name reads {kept!r}, not kept-by-the-scrub", flush=True)
print(f"ran {n}", flush=True)
