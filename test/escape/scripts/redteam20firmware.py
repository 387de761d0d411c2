# The firmware's tables and variables under /sys/firmware and the DMI
# identity's root-only values, which the test added (named as
# arguments, each with a token): root's alone (mode 0400), which a
# --root-sandbox run's uid 0, the host's root, reads, but an EFI
# variable, which efivarfs makes 0644 for every user. The hook reads
# each, and then the DMI value every user reads, sys_vendor, which a
# hook may use (a cloud's SDK tells its cloud by it) and stays.
import sys
sys.dont_write_bytecode = True
from attempts import attempt, read_each, finish

read_each(sys.argv[1:], "h112-firmware-token")
try:
    with open("/sys/devices/virtual/dmi/id/sys_vendor") as f:
        got = f.read().strip()
except OSError as e:
    got = e.strerror
attempt("sys_vendor, which every user reads, reads as the host has it", got, ["Microsoft Corporation"])
finish()
