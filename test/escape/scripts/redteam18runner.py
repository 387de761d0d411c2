# Another self-hosted runner of the same machine, running beside the one
# the job runs under, in /opt/runner-2 (the test started it): its
# credentials, its logs and the step script of the job it runs now. The
# hook reads each.
files = {
    "/opt/runner-2/.credentials_rsaparams": "h107-runner-credential-token",
    "/opt/runner-2/_diag/Worker_20260101-000000-utc.log": "h107-runner-diag-token",
    "/opt/runner-2/_work/_temp/step.sh": "h107-runner-step-token",
}
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
