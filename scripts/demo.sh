#!/usr/bin/env bash
# Builds anydnn (Release) and runs the demo: `scripts/demo.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release --target ops_tour
./build/release/examples/ops_tour "$@"
