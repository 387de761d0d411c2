# Well-known root-only secret files of /etc, which the test added (mode
# 0600 root) and names as arguments: a --root-sandbox run's uid 0 is the
# host's root, which reads each that vigiles does not cover. The hook reads
# each.
import sys
sys.dont_write_bytecode = True
from attempts import read_each, finish

read_each(["/etc/" + rel for rel in sys.argv[1:]], "h107-root-only-token")
finish()
