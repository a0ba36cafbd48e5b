#!/usr/bin/env bash
# Regenerate the committed shell completions and man page from the clap definitions.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet
bin=target/debug/slm
"$bin" completions bash > completions/slm.bash
"$bin" completions zsh > completions/_slm
"$bin" completions fish > completions/slm.fish
"$bin" man > man/slm.1
echo "regenerated completions/ and man/"
