#!/usr/bin/env python3
"""Deny Bash commands that destroy data or run code fetched from the network."""
import json
import re
import sys

DANGEROUS = [
    (r"\brm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)\b", "recursive forced delete"),
    (r"\b(curl|wget)\b[^|;&]*\|\s*(ba|z)?sh\b", "network content piped into a shell"),
    (r"\bgit\s+push\b.*--force\b", "force push"),
    (r"\bmkfs(\.\w+)?\b|\bdd\s+if=.*\bof=/dev/", "disk overwrite"),
]

event = json.load(sys.stdin)
command = event.get("tool_input", {}).get("command", "")
for pattern, why in DANGEROUS:
    if re.search(pattern, command):
        json.dump({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": f"bash-guard: {why} is not allowed here",
            }
        }, sys.stdout)
        sys.exit(0)
sys.exit(0)
