# The mail spools of /var/mail (and /var/spool/mail, where one is a link
# to the other or the place itself), which the test filled: each user's
# spool is private to that user (mode 0660 or 0600), and holds what cron
# mails it, the output of its jobs. The sandbox's uid is the caller's
# (the tree owner's for a root caller, the host's root for a
# --root-sandbox run), which opens its own spool. The hook opens each
# spool by name in both places.
import sys
sys.dont_write_bytecode = True
from attempts import read_each, finish

read_each([d + "/" + user for user in ("nobody", "root") for d in ("/var/mail", "/var/spool/mail")],
          "h112-mail-token")
finish()
