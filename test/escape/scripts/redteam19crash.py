# The crash stores of the host, which the test filled: apport's reports
# (/var/crash/*.crash: each crashed program's core dump and environment,
# owned by its user) and systemd-coredump's cores
# (/var/lib/systemd/coredump, each readable by the crashed process's
# user, by an ACL): the memory of a job's process that crashed (an
# earlier step's, its token in its environment) is the caller's to read.
# The hook reads each by name.
import sys
sys.dont_write_bytecode = True
from attempts import read_each, finish

read_each(["/var/crash/_usr_bin_node.65534.crash",
           "/var/lib/systemd/coredump/core.node.65534.0123456789abcdef.4242.1700000000000000.zst"],
          "h112-crash-token")
finish()
