#!/usr/bin/env bash
# Builds anydnn-bench with oneDNN from PyPI and runs --peak and the standard
# memory-bound list (tools/bench/lists/memory_bound_64mib.txt) against oneDNN,
# printing the tables (also written as CSV and JSON into the build directory).
#
# Environment:
#   BUILD_DIR            build directory (default build/bench-onednn)
#   THREADS              threads for both libraries (default 2)
#   ONEDNN_PIP_PACKAGES  the wheels to install (default: the OpenMP build,
#                        onednn-cpu-gomp onednn-devel-cpu-gomp)
#   LIST                 the batch file to run
#
# Why the -cpu-gomp wheels and not "onednn onednn-devel": the latter are the
# SYCL build (CPU runtime SYCL, threading TBB; libdnnl needs libsycl, libtbb,
# libsvml from the DPC++ runtime and an OpenCL CPU device) and ship no CMake
# config. The gomp build uses GNU OpenMP, the same runtime as anydnn, so one
# omp_set_num_threads gives both libraries the same thread count, and it
# ships lib/cmake/dnnl/dnnl-config.cmake.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build/bench-onednn}
threads=${THREADS:-2}
packages=${ONEDNN_PIP_PACKAGES:-"onednn-cpu-gomp onednn-devel-cpu-gomp"}
list=${LIST:-$root/tools/bench/lists/memory_bound_64mib.txt}
prefix=$build/onednn
config_dir=$prefix/lib/cmake/dnnl

if [[ ! -f $config_dir/dnnl-config.cmake ]]; then
  echo "== installing $packages into $prefix"
  # The wheels' data files (include/, lib/) land under --prefix.
  python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    --prefix "$prefix" $packages
fi
if [[ ! -f $config_dir/dnnl-config.cmake ]]; then
  echo "error: $config_dir/dnnl-config.cmake is missing after installing $packages" >&2
  exit 1
fi

echo "== configuring $build (Release, dnnl_DIR=$config_dir)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -Ddnnl_DIR="$config_dir" \
  -DANYDNN_BUILD_TESTS=OFF -DANYDNN_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target anydnn-bench

bench=$build/tools/bench/anydnn-bench
peak_file=$build/bench-peak.txt
echo
echo "== machine"
"$bench" --peak --threads="$threads" --peak-file="$peak_file"
echo
echo "== anydnn vs oneDNN, $threads threads: $(basename "$list")"
"$bench" --threads="$threads" --compare=onednn --mode=both --peak-file="$peak_file" \
  --csv="$build/memory_bound.csv" --json="$build/memory_bound.json" --batch="$list"
echo
echo "results: $build/memory_bound.csv $build/memory_bound.json"
