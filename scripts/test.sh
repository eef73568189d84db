#!/usr/bin/env bash
# Builds anydnn (Release, -O3) and runs every test: `scripts/test.sh`.
# `scripts/test.sh --asan` does the same with AddressSanitizer and
# UndefinedBehaviorSanitizer in build/asan.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

preset=release
[ "${1:-}" = "--asan" ] && preset=asan
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset"
