# The kernel surface: processes, namespaces, mounts, privileges.
. ./lib.sh
ATTEMPT="see the vigiles init"; blocked sh -c 'cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\0" " " | grep -q "__vigiles-[i]nit"'
ATTEMPT="see host processes"; blocked sh -c '[ "$(ls -d /proc/[0-9]* | wc -l)" -gt 12 ]'
ATTEMPT="signal the host test process $HOST_PID"; blocked kill -0 "$HOST_PID"
ATTEMPT="signal pid 1 (the reaper)"; blocked sh -c 'kill -KILL 1 && sleep 0.2 && kill -0 1 && false'
ATTEMPT="end pid 1 (the reaper) with any signal a handler would crash on"; blocked bash -c 'for s in $(seq 1 64); do kill -$s 1 2>/dev/null; done; sleep 0.3; kill -0 1 && false'
ATTEMPT="ptrace pid 1"; blocked python3 -c 'import ctypes,sys; l=ctypes.CDLL(None,use_errno=True); sys.exit(0 if l.ptrace(16,1,0,0)==0 else 1)'
ATTEMPT="read pid 1's memory map"; blocked cat /proc/1/maps
ATTEMPT="follow pid 1's open files"; blocked sh -c 'readlink /proc/1/fd/* | grep -q .'
ATTEMPT="forge the record through pid 1's status pipe"; blocked sh -c 'echo "{\"exitCode\":0}" > /proc/1/fd/4'
ATTEMPT="read pid 1's environment"; blocked cat /proc/1/environ
ATTEMPT="create a nested user namespace (unshare -U)"; blocked unshare -U true
ATTEMPT="create a nested user namespace (unshare -r)"; blocked unshare -r true
ATTEMPT="create a nested mount namespace"; blocked unshare -m true
ATTEMPT="mount a tmpfs"; blocked mount -t tmpfs none /mnt
ATTEMPT="remount / read-write"; blocked mount -o remount,rw /
ATTEMPT="bind-mount over the work tree"; blocked mount --bind /tmp .
ATTEMPT="hold any capability"; blocked sh -c 'grep -E "^Cap(Eff|Prm|Bnd|Amb|Inh):" /proc/self/status | grep -vq "0000000000000000"'
ATTEMPT="no_new_privs is off"; blocked sh -c 'grep -q "^NoNewPrivs:.0" /proc/self/status'
ATTEMPT="gain privileges through a setuid binary"; blocked sh -c '[ -x ./setuid-id ] && [ "$(./setuid-id -u)" != "$(id -u)" ]'
ATTEMPT="inject into the terminal (TIOCSTI)"; blocked python3 -c 'import fcntl,termios,os,sys; fd=os.open("/dev/tty",os.O_RDWR); fcntl.ioctl(fd,termios.TIOCSTI,b"x")'
ATTEMPT="inject into stdin with TIOCSTI"; blocked python3 -c 'import fcntl,termios; fcntl.ioctl(0,termios.TIOCSTI,b"x")'
ATTEMPT="reach the init's record directory"; blocked sh -c 'ls -A /run/vigiles | grep -q .'
ATTEMPT="a writable /proc/sys (sysctls of the host kernel)"; blocked sh -c 'grep -qE " /proc/sys rw" /proc/self/mountinfo'
ATTEMPT="write a sysctl"; blocked sh -c 'v=$(cat /proc/sys/vm/stat_interval) && echo "$v" > /proc/sys/vm/stat_interval'
ATTEMPT="write /proc/sysrq-trigger"; blocked sh -c 'echo h > /proc/sysrq-trigger'
# A process inherits what the hook got, and looks at its own fds: a shell
# listing them would also show the pipes and saved fds it holds for the
# lister itself, and the listing's own directory fd is closed by the time
# each fd is checked.
ATTEMPT="hold a file descriptor the caller left open (fd 3 and up)"; blocked python3 -c 'import os, sys
def held(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False
sys.exit(0 if any(held(int(f)) for f in os.listdir("/proc/self/fd") if int(f) > 2) else 1)'
ATTEMPT="forge the record through an inherited status pipe"; blocked sh -c 'echo "{\"exitCode\":0}" > /proc/self/fd/4'
ATTEMPT="load a kernel module"; blocked python3 -c 'import ctypes,sys; l=ctypes.CDLL(None,use_errno=True); sys.exit(0 if l.syscall(313,-1,b"",0)==0 else 1)'
# A core_pattern that pipes to a helper (systemd-coredump, apport) makes
# the kernel start it as the host's root, outside every namespace, on any
# core limit but 1: the limit must be 1 and stay so.
ATTEMPT="dump core through a piped core_pattern (a core limit other than 1 byte)"; blocked sh -c '! grep -qE "^Max core file size +1 +1 +bytes" /proc/self/limits'
ATTEMPT="raise the core limit"; blocked sh -c 'ulimit -Hc unlimited'
