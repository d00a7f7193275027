# Sourced, not run: puts a Node.js >= 24 first on PATH.
# The machine's own node is used when it is new enough; otherwise the npm
# package node@24 is installed once into .tools/node24 (git-ignored) and used.
hookgate_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
hookgate_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(hookgate_node_major)" -lt 24 ]; then
  hookgate_tools="$hookgate_root/.tools/node24"
  if [ ! -x "$hookgate_tools/node_modules/.bin/node" ]; then
    echo "hookgate: node $(node --version 2>/dev/null || echo none) is older than 24; installing node@24 into .tools/node24" >&2
    npm install --prefix "$hookgate_tools" --no-save --no-audit --no-fund --loglevel=error node@24 >&2
  fi
  export PATH="$hookgate_tools/node_modules/.bin:$PATH"
fi
if [ "$(hookgate_node_major)" -lt 24 ]; then
  echo "hookgate: could not get Node.js >= 24 (have $(node --version 2>/dev/null || echo none))" >&2
  return 1 2>/dev/null || exit 1
fi
