#!/usr/bin/env bash
# The one entry point on a fresh machine: ./run.sh start | ./run.sh test | ./run.sh <npm script>
# Ensures Node.js >= 24, installs dependencies when package-lock.json changed, then runs `npm run <script>`.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/node24.sh
stamp=node_modules/.hookgate-lock-stamp
want="$(node -p 'process.version')-$(sha256sum package-lock.json | cut -c1-16)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi
script="${1:-start}"; shift || true
exec npm run "$script" -- "$@"
