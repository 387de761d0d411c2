# Well-known root-only secret files of /etc, which the test added (mode
# 0600 root) and names as arguments: a --root-sandbox run's uid 0 is the
# host's root, which reads each that vigiles does not cover. The hook reads
# each.
import os, sys

n = 0
for rel in sys.argv[1:]:
    n += 1
    p = "/etc/" + rel
    why = "empty"
    try:
        with open(p, errors="replace") as f:
            text = f.read()
    except OSError as e:
        text = ""
        why = e.strerror
    if "h107-root-only-token" in text:
        print(f"ESCAPE: read {p}", flush=True)
    else:
        print(f"ok: {p} read nothing ({why if not text else 'no token'})", flush=True)
print(f"ran {n}", flush=True)
