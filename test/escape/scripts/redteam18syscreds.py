# The host's system-wide configuration files where an image or a
# self-hosted runner keeps a token or a password for every user, each the
# system's counterpart of a file of HOME the run masks: a proxy's
# credentials in /etc/environment, pip's index with a token in its URL,
# npm's global npmrc, boto's system config, Maven's global settings. The
# test added one to each (and a setting of no secret to pip's other
# site-wide file, which must read as it is); the hook reads them.
import os

files = {
    "/etc/environment": "h107-proxy-token",
    "/etc/pip.conf": "h107-pip-token",
    "/etc/npmrc": "h107-npm-token",
    "/etc/boto.cfg": "h107-boto-token",
    "/etc/maven/settings.xml": "h107-maven-token",
}
n = 0


def read(p):
    try:
        with open(p, errors="replace") as f:
            return f.read()
    except OSError as e:
        return f"({e})"


for p, token in files.items():
    n += 1
    text = read(p) + read("/proc/self/root" + p)
    if token in text:
        print(f"ESCAPE: {p} shows {token}", flush=True)
    else:
        print(f"ok: {p} shows no token", flush=True)
# An empty settings.xml is no XML document, which Maven cannot parse: it
# reads an empty settings element.
n += 1
if read("/etc/maven/settings.xml") == "<settings/>\n":
    print("ok: Maven's settings.xml reads as an empty settings element", flush=True)
else:
    print(f"ESCAPE: Maven's settings.xml reads {read('/etc/maven/settings.xml')!r}", flush=True)
n += 1
if "h107-control-kept" in read("/etc/xdg/pip/pip.conf"):
    print("ok: a site-wide config with no credential reads as it is", flush=True)
else:
    print("ESCAPE: /etc/xdg/pip/pip.conf, with no credential, was hidden", flush=True)
print(f"ran {n}", flush=True)
