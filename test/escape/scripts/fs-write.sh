# Writes outside the overlaid work tree, HOME and TMPDIR.
. ./lib.sh
for p in /etc/vigiles-escape /usr/vigiles-escape /var/lib/vigiles-escape /opt/vigiles-escape /vigiles-escape /dev/vigiles-escape /run/vigiles-escape /var/tmp/vigiles-escape /home/vigiles-escape /mnt/vigiles-escape; do
  ATTEMPT="write $p"; blocked sh -c "echo pwned > '$p' && test -s '$p' && ls / >/dev/null && test -e '$p'"
done
ATTEMPT="append to /etc/passwd"; blocked sh -c 'echo "pwn::0:0::/:/bin/sh" >> /etc/passwd'
ln -s /etc/passwd passwd-link 2>/dev/null
ATTEMPT="write through a symlink in the work tree"; blocked sh -c 'echo pwned >> passwd-link'
ln -s "$HOST_MARKER" marker-link 2>/dev/null
ATTEMPT="create through a dangling symlink"; blocked sh -c 'echo pwned > marker-link && [ -e "$HOST_MARKER" ] && false'
ATTEMPT="hard link to /etc/passwd"; blocked ln /etc/passwd passwd-hard
ATTEMPT="mknod a memory device"; blocked mknod mem-dev c 1 1
ATTEMPT="mknod a block device"; blocked mknod disk-dev b 8 0
ATTEMPT="a writable mount of /etc/resolv.conf (writes past the record without Landlock)"; blocked sh -c 'grep -qE " /etc/resolv.conf rw" /proc/self/mountinfo'
ATTEMPT="write the host's memory device"; blocked sh -c '[ -c /dev/mem ] && echo x > /dev/mem'
echo pwned > "$HOST_MARKER" 2>/dev/null  # lands in the throwaway TMPDIR; the test checks the host's /tmp
ATTEMPT="write the real /tmp through /proc/1/root"; blocked sh -c "echo x > /proc/1/root/tmp/vigiles-escape-\$\$ && ls /proc/1/root/tmp/ | grep -q vigiles-escape && false"
mkfifo fifo-trick 2>/dev/null
echo "ok: mkfifo stays inside the overlay"
