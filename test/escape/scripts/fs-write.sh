# Writes outside the overlaid work tree, HOME and TMPDIR.
. ./lib.sh
for p in /etc/vigiles-escape /usr/vigiles-escape /var/lib/vigiles-escape /opt/vigiles-escape /vigiles-escape /dev/vigiles-escape /run/vigiles-escape /home/vigiles-escape /mnt/vigiles-escape; do
  ATTEMPT="write $p"; blocked sh -c "echo pwned > '$p' && test -s '$p' && ls / >/dev/null && test -e '$p'"
done
# /var/tmp is the run's own throwaway, recorded (the test checks the host's).
echo pwned > /var/tmp/vigiles-escape && echo "ok: a write to /var/tmp lands in the run's throwaway /var/tmp"
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
# The overlay's own directories, whose paths /proc/self/mountinfo names: the
# upper directory is the write record (a write removed from it, or a
# whiteout made there, would not be in it), the lower one the host's tree.
opts=$(sed -n 's/.* - overlay overlay \(.*\)$/\1/p' /proc/self/mountinfo | head -1)
if [ -z "$opts" ]; then
  for a in upper "upper (remove)" work lower; do echo "ok: no overlay (writes recorded by copy): no $a directory"; done
else
  upper=$(printf '%s\n' "$opts" | sed -n 's/.*upperdir=\([^,]*\).*/\1/p')
  work=$(printf '%s\n' "$opts" | sed -n 's/.*workdir=\([^,]*\).*/\1/p')
  lower=$(printf '%s\n' "$opts" | sed -n 's/.*lowerdir=\([^,]*\).*/\1/p' | tr ':' '\n' | tail -1)
  [ -n "$upper" ] && [ -n "$work" ] && [ -n "$lower" ] || echo "ESCAPE: the overlay's directories not read from its options ($opts): nothing tried"
  echo probe > upper-probe
  ATTEMPT="reach the overlay's upper directory ($upper)"; blocked sh -c "[ -e '$upper/upper-probe' ]"
  ATTEMPT="remove a write from the overlay's upper directory"; blocked sh -c "rm '$upper/upper-probe'"
  ATTEMPT="write in the overlay's work directory ($work)"; blocked sh -c "touch '$work/x'"
  ATTEMPT="reach the overlay's lower directory ($lower)"; blocked sh -c "[ -e '$lower/fs-write.sh' ]"
fi
