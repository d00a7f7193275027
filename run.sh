#!/usr/bin/env bash
# The one entry point on a fresh machine:
#   ./run.sh start | ./run.sh test | ./run.sh <npm script> | ./run.sh hookgate <command> [options]
# Ensures Node.js >= 24, installs dependencies when package-lock.json changed, then runs
# `npm run <script>`, or the hookgate command (in the directory ./run.sh was called from, so
# relative paths such as --config FILE mean what they say).
set -euo pipefail
caller_dir="$(pwd)"
cd "$(dirname "$0")"
source scripts/node24.sh
stamp=node_modules/.hookgate-lock-stamp
want="$(node -p 'process.version')-$(sha256sum package-lock.json | cut -c1-16)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error >&2  # stdout stays the command's own
  echo "$want" > "$stamp"
fi
script="${1:-start}"; shift || true
if [ "$script" = hookgate ]; then
  bin="$(pwd)/bin/hookgate.js"
  cd "$caller_dir"
  exec node "$bin" "$@"
fi
exec npm run "$script" -- "$@"
