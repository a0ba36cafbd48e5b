#!/usr/bin/env bash
# The test command the README names and .ci/run calls: fetch/verify the models, then run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --models-only
cargo test --locked --all-targets -- --test-threads="${SLM_TEST_THREADS:-2}"
