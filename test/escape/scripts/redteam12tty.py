# The twelfth round: a line discipline the kernel lacks, which it asks
# modprobe for on the host ("tty-ldisc-N"), asked for on a pseudo-terminal
# of the sandbox's /dev/ptmx opened for reading alone. Each TIOCSETD prints
# "ok: WHAT: ERRNO" when the filter refused it (EPERM) and "ESCAPE: WHAT"
# otherwise. Then the host's console output sent to the pseudo-terminal
# (TIOCCONS) and a hangup of it (TIOCVHANGUP), which need CAP_SYS_ADMIN of
# the host's user namespace: EPERM. The last line says how many ran.
import errno, fcntl, os, struct
TIOCSETD, TIOCGETD = 0x5423, 0x5424
ran = 0

def name(e):
    return errno.errorcode.get(e, str(e))

m = os.open("/dev/ptmx", os.O_RDONLY | os.O_NOCTTY)
print("discipline", struct.unpack("i", fcntl.ioctl(m, TIOCGETD, b"\0" * 4))[0], flush=True)
for what, disc in (("N_HDLC", 13), ("N_SLCAN", 17), ("N_GSM0710", 21), ("N_TTY", 0)):
    ran += 1
    try:
        fcntl.ioctl(m, TIOCSETD, struct.pack("i", disc))
        print(f"ESCAPE: TIOCSETD({what}): set", flush=True)
    except OSError as e:
        print(("ok: " if e.errno == errno.EPERM else "ESCAPE: ") + f"TIOCSETD({what}): {name(e.errno)}", flush=True)
fcntl.ioctl(m, 0x40045431, struct.pack("i", 0))  # TIOCSPTLCK: unlock the other end
n = struct.unpack("I", fcntl.ioctl(m, 0x80045430, b"\0" * 4))[0]  # TIOCGPTN
s = os.open("/dev/pts/%d" % n, os.O_RDONLY | os.O_NOCTTY)
for what, req in (("TIOCCONS", 0x541D), ("TIOCVHANGUP", 0x5437)):
    ran += 1
    try:
        fcntl.ioctl(s, req)
        print(f"ESCAPE: {what}: done", flush=True)
    except OSError as e:
        print(("ok: " if e.errno == errno.EPERM else "ESCAPE: ") + f"{what}: {name(e.errno)}", flush=True)
print("ran", ran)
