# Shared by the escape scripts. Each attempt prints "ok: WHAT" when it was
# stopped and "ESCAPE: WHAT" when it worked; the test fails on any ESCAPE
# and on a missing "ok:".
blocked() { if "$@" >/dev/null 2>&1; then echo "ESCAPE: $ATTEMPT"; else echo "ok: $ATTEMPT"; fi; }
