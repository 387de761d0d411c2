# Another self-hosted runner of the same machine, beside the one the job
# runs under, in each directory the arguments name (/opt/runner-2 where
# none; the test started or installed it): its credentials, its logs and
# the step script of the job it runs now. The hook reads each.
import sys

files = {}
for root in sys.argv[1:] or ["/opt/runner-2"]:
    files[root + "/.credentials_rsaparams"] = "h107-runner-credential-token"
    files[root + "/_diag/Worker_20260101-000000-utc.log"] = "h107-runner-diag-token"
    files[root + "/_work/_temp/step.sh"] = "h107-runner-step-token"
n = 0
for p, token in files.items():
    n += 1
    try:
        with open(p, errors="replace") as f:
            text = f.read()
    except OSError as e:
        text = f"({e.strerror})"
    if token in text:
        print(f"ESCAPE: read {p}", flush=True)
    else:
        print(f"ok: {p}: {text.strip()[:60]!r}", flush=True)
print(f"ran {n}", flush=True)
