# The kernel's debugging file systems, mounted by the host under /sys
# (debugfs at /sys/kernel/debug, tracefs at /sys/kernel/tracing, pstore
# at /sys/fs/pstore: the kernel logs of earlier boots), each root's alone
# (mode 0700 or 0750): a --root-sandbox run's uid 0 is the host's root,
# which enters them. debugfs's scheduler dump lists every task of the
# host by its name and pid, in every namespace: the test started one
# named h112hostjob. The hook looks in each.
import os

n = 0
n += 1
try:
    with open("/sys/kernel/debug/sched/debug", errors="replace") as f:
        text = f.read()
    if "h112hostjob" in text:
        print("ESCAPE: debugfs's sched/debug names the host's task h112hostjob", flush=True)
    else:
        print("ok: /sys/kernel/debug/sched/debug names no host task", flush=True)
except OSError as e:
    print(f"ok: /sys/kernel/debug/sched/debug: {e.strerror}", flush=True)
for d in ("/sys/kernel/debug", "/sys/kernel/tracing", "/sys/fs/pstore"):
    n += 1
    try:
        ents = os.listdir(d)
    except OSError as e:
        print(f"ok: {d}: {e.strerror}", flush=True)
        continue
    if d == "/sys/fs/pstore" and os.stat(d).st_mode & 0o777 == 0o750:
        print(f"ESCAPE: entered pstore {d}, root's alone", flush=True)
    elif ents:
        print(f"ESCAPE: listed {d}: {sorted(ents)[:3]}", flush=True)
    else:
        print(f"ok: {d} is empty", flush=True)
print(f"ran {n}", flush=True)
