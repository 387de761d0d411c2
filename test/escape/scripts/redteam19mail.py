# The mail spools of /var/mail (and /var/spool/mail, where one is a link
# to the other or the place itself), which the test filled: each user's
# spool is private to that user (mode 0660 or 0600), and holds what cron
# mails it, the output of its jobs. The sandbox's uid is the caller's
# (the tree owner's for a root caller, the host's root for a
# --root-sandbox run), which opens its own spool. The hook opens each
# spool by name in both places.
n = 0
for user in ("nobody", "root"):
    for d in ("/var/mail", "/var/spool/mail"):
        p = d + "/" + user
        n += 1
        why = "empty"
        try:
            with open(p, errors="replace") as f:
                text = f.read()
        except OSError as e:
            text = ""
            why = e.strerror
        if "h112-mail-token" in text:
            print(f"ESCAPE: read {p}", flush=True)
        else:
            print(f"ok: {p} read nothing ({why if not text else 'no token'})", flush=True)
print(f"ran {n}", flush=True)
