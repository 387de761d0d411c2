# vigiles runs on the caller's terminal (its controlling terminal, and its
# stdin and stderr): the hook may reach it neither through a descriptor nor
# through /dev/tty, so nothing can be typed into the caller's shell
# (TIOCSTI) and no mode of the terminal changed.
import errno, fcntl, os, termios

def ok(msg): print("ok: " + msg)
def escape(msg): print("ESCAPE: " + msg)

held = [fd for fd in (int(f) for f in os.listdir("/proc/self/fd")) if os.path.exists(f"/proc/self/fd/{fd}") and os.isatty(fd)]
if held:
    escape(f"holds a terminal on {held}")
else:
    ok("holds no terminal")
for fd in (0, 1, 2):
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"X")
        escape(f"TIOCSTI on fd {fd}")
    except OSError as e:
        ok(f"TIOCSTI on fd {fd} refused ({errno.errorcode.get(e.errno)})")
try:
    os.open("/dev/tty", os.O_RDWR)
    escape("opened the controlling terminal /dev/tty")
except OSError as e:
    ok(f"/dev/tty refused ({errno.errorcode.get(e.errno)})")
extra = [n for n in os.listdir("/dev/pts") if n != "ptmx"]
if extra:
    escape(f"/dev/pts lists the host's terminals {extra}")
else:
    ok("/dev/pts lists no terminal of the host's")
print("done")
