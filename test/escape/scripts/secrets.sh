# Reads of the caller's credentials and sockets. CANARIES lists files the
# test planted on the host, each holding a canary string.
. ./lib.sh
for p in $CANARIES; do
  ATTEMPT="read $p"; blocked sh -c "grep -q vigiles-canary '$p'"
done
for d in /root /home /run/secrets /var/run/secrets; do
  ATTEMPT="list $d for anything of the host's"; blocked sh -c "ls -A '$d' 2>/dev/null | grep -qv '^vigiles\$'"
done
for s in $SOCKETS; do
  ATTEMPT="connect to unix socket $s"
  blocked python3 -c "import socket,sys; c=socket.socket(socket.AF_UNIX); c.settimeout(2); c.connect(sys.argv[1])" "$s"
done
ATTEMPT="connect to the abstract unix socket @$ABSTRACT"
blocked python3 -c "import socket,sys; c=socket.socket(socket.AF_UNIX); c.settimeout(2); c.connect('\0'+sys.argv[1])" "$ABSTRACT"
ATTEMPT="environment holds a secret"; blocked sh -c 'env | grep -q vigiles-canary'
ATTEMPT="read the init's environment"; blocked sh -c 'cat /proc/*/environ 2>/dev/null | tr "\0" "\n" | grep -q vigiles-canary'
for p in /etc/shadow /etc/gshadow /etc/ssh/ssh_host_*_key; do
  [ -e "$p" ] || continue
  ATTEMPT="read $p"; blocked sh -c "[ -s '$p' ] && head -c1 '$p' >/dev/null"
done
echo "ok: done"
