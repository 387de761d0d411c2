package escape

import (
	"testing"
)

// mailSpools is vigilesInMountNS's set-up for
// TestRedteam19MailSpoolsAreMasked: /var becomes an overlay (its upper
// layer on a tmpfs at $OV), which the host's /var never sees, and its
// mail directory holds the spools of nobody (mode 0660, as a mail
// delivery agent makes them) and root (0600), each with a token: what
// cron mails a user, the output of its jobs.
const mailSpools = `mount -t tmpfs -o mode=0755 tmpfs "$OV"
mkdir "$OV/u" "$OV/w"
mount -t overlay overlay -o "lowerdir=/var,upperdir=$OV/u,workdir=$OV/w" /var
mkdir -p /var/mail
chmod 1777 /var/mail
printf 'From cron\nSubject: backup\n\naws s3 cp --token h112-mail-token-nobody\n' > /var/mail/nobody
chown nobody /var/mail/nobody
chmod 0660 /var/mail/nobody
printf 'From cron\nSubject: renew\n\nAuthorization: Bearer h112-mail-token-root\n' > /var/mail/root
chmod 0600 /var/mail/root
`

// TestRedteam19MailSpoolsAreMasked: the nineteenth round's first attempt
// (scripts/redteam19mail.py), for every caller and a --root-sandbox
// run: a user's mail spool, /var/mail/USER, is private to that user as
// its HOME is, and holds what cron mailed it (its jobs' output: a token a
// script printed, a failed login's URL), but /var/mail was shown as the
// host has it: the sandbox's uid, the caller's (nobody), the tree
// owner's (root on a tree nobody owns) or the host's root (a
// --root-sandbox run), read its own spool whole. The run now masks
// /var/mail and /var/spool/mail as it masks /home.
func TestRedteam19MailSpoolsAreMasked(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts mail spools in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, mailSpools, []string{"OV=" + t.TempDir()},
				c.withArgs([]string{"--", "python3", "redteam19mail.py"})...)
			checkScriptRan(t, res, 4)
		})
	}
}
