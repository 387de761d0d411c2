# The kernel's views a hook shares with the other tenants of the machine,
# looked at as an attacker would: the binfmt_misc handlers the host
# registered (the sandbox's /proc has its own, empty), and every
# cgroup.procs and tasks of the cgroup tree under /sys/fs/cgroup, which
# the sandbox sees read-only, for a pid of another tenant's process (one
# outside the sandbox's pid namespace is left out or reads as 0). The
# tree's names and usage stay readable: an honest limit, not tried here.
import os, sys
sys.dont_write_bytecode = True
from attempts import attempt, finish

try:
    got = "listed " + str(len([e for e in os.listdir("/proc/sys/fs/binfmt_misc") if e not in ("register", "status")]))
except OSError as e:
    got = e.strerror
attempt("/proc/sys/fs/binfmt_misc lists no handler", got, ["listed 0", "No such file or directory"])

outside, files = set(), 0
for top, dirs, names in os.walk("/sys/fs/cgroup"):
    if top.count("/") > 8:
        dirs[:] = []
    for fn in ("cgroup.procs", "tasks"):
        if fn not in names:
            continue
        try:
            with open(os.path.join(top, fn)) as f:
                pids = {int(x) for x in f.read().split()}
        except (OSError, ValueError):
            continue
        files += 1
        # tasks lists threads too, which /proc does not list but
        # answers by their ids: one of this namespace's is there.
        outside |= {p for p in pids if p != 0 and not os.path.exists(f"/proc/{p}")}
attempt(f"no pid of another tenant in {files} cgroup.procs and tasks", "none" if not outside else f"{len(outside)} pids {sorted(outside)[:8]}", ["none"])
finish()
