# A host process listens on a unix socket in the work tree and reads a FIFO
# there: neither may carry anything between it and the hook, which sees
# the tree's socket and FIFO through the overlay or the copy.
import errno, os, socket

def ok(msg): print("ok: " + msg)
def escape(msg): print("ESCAPE: " + msg)

c = socket.socket(socket.AF_UNIX)
c.settimeout(2)
try:
    c.connect("host.sock")
    c.send(b"pwned\n")
    escape("connected to the host's socket in the work tree")
except OSError as e:
    (ok if e.errno == errno.ECONNREFUSED else escape)(f"the host's socket in the work tree answers nothing ({errno.errorcode.get(e.errno)}, want ECONNREFUSED)")
try:
    fd = os.open("host.fifo", os.O_WRONLY | os.O_NONBLOCK)
    os.write(fd, b"pwned\n")
    escape("wrote into the host's FIFO in the work tree")
except OSError as e:
    (ok if e.errno == errno.ENXIO else escape)(f"the host's FIFO in the work tree has no reader here ({errno.errorcode.get(e.errno)}, want ENXIO)")
print("done")
