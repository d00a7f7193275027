# Sourced, not run: puts a Node.js >= 24.16 first on PATH (24.16 added crypto.randomUUIDv7, which
# the run ids use; older 24.x still run the service with random ids, but the tests expect v7).
# The machine's own node is used when it is new enough; otherwise the npm
# package node@24 is installed once into .tools/node24 (git-ignored) and used.
hookgate_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
hookgate_node_ok() { node -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 24 || (major === 24 && minor >= 16) ? 0 : 1)' 2>/dev/null; }
if ! hookgate_node_ok; then
  hookgate_tools="$hookgate_root/.tools/node24"
  if [ ! -x "$hookgate_tools/node_modules/.bin/node" ] || ! PATH="$hookgate_tools/node_modules/.bin:$PATH" hookgate_node_ok; then
    echo "hookgate: node $(node --version 2>/dev/null || echo none) is older than 24.16; installing node@24 into .tools/node24" >&2
    npm install --prefix "$hookgate_tools" --no-save --no-audit --no-fund --loglevel=error node@24 >&2
  fi
  export PATH="$hookgate_tools/node_modules/.bin:$PATH"
fi
if ! hookgate_node_ok; then
  echo "hookgate: could not get Node.js >= 24.16 (have $(node --version 2>/dev/null || echo none))" >&2
  return 1 2>/dev/null || exit 1
fi
