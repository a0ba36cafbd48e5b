#!/usr/bin/env bash
# The test command the README names and .ci/run calls: fetch/verify the models, install the
# MCP client SDK the agent tests drive slm with, then run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --models-only

# A real MCP client we did not write (tests/it/agents.rs): the Python SDK, pinned, in a venv
# in slm's cache dir (re-used when it is already right).
cache="${SLM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/slm}"
venv="$cache/test-venv"
mcp_version="2.3.0"
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$mcp_version')" 2>/dev/null; then
  echo "slm test: installing the MCP client SDK (mcp==$mcp_version) into $venv"
  "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/pip" install --quiet "mcp==$mcp_version"
fi
export SLM_TEST_PYTHON="$venv/bin/python"

# A real browser for the dashboard test (tests/it/dashboard_browser.rs): Debian's Chromium
# and its WebDriver, from the Debian archive.
if ! { [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; }; then
  echo "slm test: installing chromium and chromium-driver (Debian) for the dashboard's browser test"
  sudo_cmd=""
  if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium chromium-driver >/dev/null
fi

cargo test --locked --all-targets -- --test-threads="${SLM_TEST_THREADS:-2}"
