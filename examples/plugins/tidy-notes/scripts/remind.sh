#!/usr/bin/env bash
# Reads the PostToolUse event and adds a short reminder for Markdown and
# text files. Reads only stdin; writes only stdout.
set -euo pipefail
path=$(python3 -c 'import json,sys; print(json.load(sys.stdin).get("tool_input",{}).get("file_path",""))')
case "$path" in
  *.md|*.txt)
    printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"tidy-notes: keep notes under 50 lines."}}\n'
    ;;
esac
