# Round twenty-four: a daemon's unix socket that a process of another
# network namespace bound at a path the run sees (a service started with
# `ip netns exec` or systemd's PrivateNetwork=, a VPN-confined one),
# open to every user. The host's /proc/net/unix lists only the sockets
# of the caller's own network namespace, but a connect by path reaches a
# socket whatever namespace bound it. The hook connects to each path it
# is given and reads what answers; it should find no daemon there.
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
    attempt(f"connect to {p}, bound in another network namespace", got,
            ["Connection refused", "No such file or directory", "Permission denied"])
finish()
