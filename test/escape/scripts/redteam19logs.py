# The host's logs that hold what other processes said: the journal
# (/var/log/journal/MACHINE-ID/*.journal: the system's, readable by the
# groups adm and systemd-journal, and each user's own, user-UID.journal,
# which journald lets that user read) and the auth log, where sudo logs
# each command line it runs, arguments and all (a password or a token
# given as one), readable by the group adm. The test filled them; the
# hook reads each it can find, by listing and by name.
# The auth log is rotated a second into the run: the hook waits for it.
import glob, time

time.sleep(3)
n = 0
paths = ["/var/log/journal/0123456789abcdef0123456789abcdef/system.journal",
         "/var/log/journal/0123456789abcdef0123456789abcdef/user-65534.journal",
         "/var/log/auth.log", "/var/log/auth.log.0", "/var/log/auth.log.1", "/var/log/secure"]
for p in sorted(set(paths) | set(glob.glob("/var/log/journal/*/*.journal"))):
    if p not in paths:
        print(f"ESCAPE: listed {p}", flush=True)
        continue
    n += 1
    why = "empty"
    try:
        with open(p, errors="replace") as f:
            text = f.read()
    except OSError as e:
        text = ""
        why = e.strerror
    if "h112-log-token" in text:
        print(f"ESCAPE: read {p}", flush=True)
    else:
        print(f"ok: {p} read nothing ({why if not text else 'no token'})", flush=True)
print(f"ran {n}", flush=True)
