#!/usr/bin/env bash
# Screenshots of each dashboard page at 1280x800, for the README (docs/screenshots/).
# Runs the browser test (tests/it/dashboard_browser.rs: the real worker and models, headless
# Chromium through chromedriver) with SLM_SCREENSHOTS_DIR set. Needs what scripts/test.sh
# installs: the models (scripts/setup.sh) and Debian's chromium and chromium-driver.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/screenshots}"
mkdir -p "$out"
SLM_SCREENSHOTS_DIR="$(cd "$out" && pwd)" cargo test --release --locked --test it \
  dashboard_browser -- --exact dashboard_browser::a_browser_signs_in_searches_edits_traces_and_saves_a_view
ls -1 "$out"/*.png
