# The host's logs that hold what other processes said: the journal
# (/var/log/journal/MACHINE-ID/*.journal: the system's, readable by the
# groups adm and systemd-journal, and each user's own, user-UID.journal,
# which journald lets that user read) and the auth log, where sudo logs
# each command line it runs, arguments and all (a password or a token
# given as one), readable by the group adm. The test filled them; the
# hook reads each it can find, by listing and by name.
# The auth log is rotated a second into the run: the hook waits for it.
import glob, sys, time
sys.dont_write_bytecode = True
from attempts import read_each, finish

time.sleep(3)
paths = ["/var/log/journal/0123456789abcdef0123456789abcdef/system.journal",
         "/var/log/journal/0123456789abcdef0123456789abcdef/user-65534.journal",
         "/var/log/auth.log", "/var/log/auth.log.0", "/var/log/auth.log.1", "/var/log/secure"]
for p in sorted(set(glob.glob("/var/log/journal/*/*.journal")) - set(paths)):
    print(f"ESCAPE: listed {p}", flush=True)
read_each(paths, "h112-log-token")
finish()
