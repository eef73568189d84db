#!/usr/bin/env bash
# Builds anydnn (Release) and runs the demo, LeNet-5 trained on MNIST with
# anydnn alone (examples/mnist): `scripts/demo.sh [mnist options]`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release --target mnist
./build/release/examples/mnist --svg build/release/mnist-curve.svg "$@"
