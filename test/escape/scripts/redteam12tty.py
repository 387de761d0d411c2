# The twelfth round: a line discipline the kernel lacks, which it asks
# modprobe for on the host ("tty-ldisc-N"), asked for on a pseudo-terminal
# of the sandbox's /dev/ptmx opened for reading alone. Each TIOCSETD prints
# "ok: WHAT: ERRNO" when the filter refused it (EPERM) and "ESCAPE: WHAT"
# otherwise; the last line says how many ran.
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
print("ran", ran)
