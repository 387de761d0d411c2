# securityfs's root-only files, which the test added (named as
# arguments, each with a token): efi_secret's secrets of a confidential
# VM and IMA's measurement lists, mode 0440 root, which a --root-sandbox
# run's uid 0, the host's root, reads. The hook reads each, and then
# the list of the kernel's security modules, which every user reads and
# a hook may read (a tool tells AppArmor by it): it stays.
import sys
sys.dont_write_bytecode = True
from attempts import attempt, read_each, finish

read_each(sys.argv[1:], "h112-firmware-token")
try:
    with open("/sys/kernel/security/lsm") as f:
        got = f.read().strip()
except OSError as e:
    got = e.strerror
attempt("lsm, which every user reads, reads as the host has it", got, ["lockdown,capability,landlock,yama,apparmor"])
finish()
