#!/usr/bin/env bash
# Builds anydnn and runs the demo, LeNet-5 trained on MNIST with anydnn alone
# (examples/mnist): `scripts/demo.sh [mnist options]`. The demo preset
# compiles the kernels for this machine's ISA levels only (ANYDNN_CPU_ISA=NATIVE)
# and no tests or tools, in build/demo: a third of the full build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset demo
cmake --build --preset demo --target mnist
./build/demo/examples/mnist --svg build/demo/mnist-curve.svg "$@"
