# Round twenty-four: a daemon's unix socket at a path the run sees, open
# to every user, that the host's /proc/net/unix does not name by that
# path: one a process of another network namespace bound (a service
# started with `ip netns exec` or systemd's PrivateNetwork=, a
# container), whose list is its namespace's, and one a container bound
# in a volume, which its list names by the path inside. A connect by
# path reaches a socket whatever namespace bound it. The hook connects
# to each path it is given and reads what answers; it should find no
# daemon there.
import socket, sys
sys.dont_write_bytecode = True
from attempts import attempt, finish

for p in sys.argv[1:]:
    c = socket.socket(socket.AF_UNIX)
    c.settimeout(5)
    try:
        c.connect(p)
        got = "connected: " + c.recv(64).decode(errors="replace").strip()
    except OSError as e:
        got = e.strerror or str(e)
    finally:
        c.close()
    attempt(f"connect to the daemon's socket {p}", got,
            ["Connection refused", "No such file or directory", "Permission denied"])
finish()
