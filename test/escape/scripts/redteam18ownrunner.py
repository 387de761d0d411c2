# The runner the run is under, started as another user (vigiles run
# through setpriv from its step): its tool cache must stay in view.
p = "/opt/runner-2/_work/_tool/python/version"
n = 1
try:
    with open(p) as f:
        text = f.read()
except OSError as e:
    text = f"({e.strerror})"
if "h110-tool-kept" in text:
    print(f"ok: {p} reads as it is", flush=True)
else:
    print(f"ESCAPE: {p}, the own runner's tool cache, was hidden: {text!r}", flush=True)
print(f"ran {n}", flush=True)
