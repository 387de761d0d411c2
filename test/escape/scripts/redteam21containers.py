# The container engines' state on the host, which the test added (named
# as arguments, each with a token, in directories of root's modes):
# each Docker container's config (its whole environment: the secrets a
# job or a service was started with), its log (what it printed), a file
# it wrote in its layer, a named volume's data, containerd's and
# Podman's stores of the same. A --root-sandbox run's uid 0 is the
# host's root, which reads each where vigiles does not hide it; a
# non-root caller may enter /var/lib/docker where the host keeps its
# older mode, 0711, and open a volume's data by its name. The hook reads
# each, then lists /var/lib/docker/containers (each container's id).
import os, sys
sys.dont_write_bytecode = True
from attempts import attempt, read_each, finish

read_each(sys.argv[1:], "h122-container-token")
try:
    got = "listed " + str(len(os.listdir("/var/lib/docker/containers")))
except OSError as e:
    got = e.strerror
attempt("/var/lib/docker/containers lists no container", got, ["listed 0", "No such file or directory", "Permission denied"])
finish()
