# Root-only copies and stores of secrets outside the places round
# eighteen covered, which the test added (mode 0600 root) and names as
# arguments: the daily backups of /etc/shadow and /etc/gshadow that
# Debian's and Ubuntu's passwd package keeps in /var/backups, systemd's
# credential stores and the host key that decrypts the encrypted ones;
# or services' passwords and keys (MySQL's, postfix's, netplan's,
# WireGuard's, Tailscale's, ...). A --root-sandbox
# run's uid 0 is the host's root, which reads each that vigiles does not
# cover. The hook reads each.
import sys
sys.dont_write_bytecode = True
from attempts import read_each, finish

read_each(sys.argv[1:], "h112-root-only-token")
finish()
