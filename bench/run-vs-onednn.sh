#!/usr/bin/env bash
# Builds anydnn-bench with oneDNN from PyPI and runs --peak, the standard
# memory-bound list (tools/bench/lists/memory_bound_64mib.txt) and the conv
# lists (ResNet-50 at mb1 and mb16, MobileNet v2 and VGG-16 at mb1, nhwc and
# nchw, perf mode; ResNet-50 at mb16 also backward data and backward weights)
# against oneDNN, printing the tables (also written as text, CSV and JSON into
# the build directory), then the pooling, LRN and normalization lists and the
# recurrent layers (tools/bench/lists/rnn_common.txt: LSTM, GRU and tanh RNN,
# inference and training forward).
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

# The conv lists: perf only (their correctness is BenchSmoke's and the unit
# tests'), each layout, ResNet-50 also at minibatch 16.
lists=$root/tools/bench/lists
run_conv() {  # output name, list, extra options...
  local name=$1 file=$2
  shift 2
  echo
  echo "== anydnn vs oneDNN, $threads threads: $name"
  "$bench" --threads="$threads" --compare=onednn --mode=perf --peak-file="$peak_file" \
    --csv="$build/$name.csv" --json="$build/$name.json" --conv "$@" --batch="$file" | tee "$build/$name.txt"
}
for tag in nhwc nchw; do
  run_conv "conv_resnet50_${tag}_mb1" "$lists/conv_resnet50.txt" --tag="$tag"
  run_conv "conv_resnet50_${tag}_mb16" "$lists/conv_resnet50.txt" --tag="$tag" --mb=16
  run_conv "conv_mobilenet_v2_${tag}_mb1" "$lists/conv_mobilenet_v2.txt" --tag="$tag"
  run_conv "conv_vgg16_${tag}_mb1" "$lists/conv_vgg16.txt" --tag="$tag"
done
# Training: the backward passes at a training batch size.
for dir in bwd_d bwd_w; do
  for tag in nhwc nchw; do
    run_conv "conv_resnet50_${dir}_${tag}_mb16" "$lists/conv_resnet50.txt" --dir="$dir" --tag="$tag" --mb=16
  done
done
# The memory-bound layers of issue 6 at mb16: pooling, LRN, batch and layer
# normalization (each list names its driver, or the driver flag is given).
run_list() {  # output name, list, options...
  local name=$1 file=$2
  shift 2
  echo
  echo "== anydnn vs oneDNN, $threads threads: $name"
  "$bench" --threads="$threads" --compare=onednn --mode=perf --peak-file="$peak_file" \
    --csv="$build/$name.csv" --json="$build/$name.json" "$@" --batch="$file" | tee "$build/$name.txt"
}
run_list pool_mb16 "$lists/pool_resnet50_mobilenet_v2.txt" --pool --mb=16
run_list pool_bwd_mb16 "$lists/pool_resnet50_mobilenet_v2.txt" --pool --dir=bwd --mb=16
run_list pool_bwd_nhwc_mb16 "$lists/pool_resnet50_mobilenet_v2.txt" --pool --dir=bwd --tag=nhwc --mb=16
run_list lrn_mb16 "$lists/lrn_alexnet_googlenet.txt" --lrn --mb=16
run_list lrn_bwd_mb16 "$lists/lrn_alexnet_googlenet.txt" --lrn --dir=bwd --mb=16
run_list norm_mb16 "$lists/norm_resnet50_mobilenet_v2.txt"
# Recurrent layers (issue 7): the forward pass of each cell, inference and
# training (which also fills the reserve space / workspace of the backward pass).
for cell in lstm gru rnn_tanh; do
  for prop in inference training; do
    run_list "rnn_${cell}_${prop}" "$lists/rnn_common.txt" --rnn --cell="$cell" --prop="$prop"
  done
done
echo
echo "results: $build/memory_bound.csv $build/memory_bound.json, $build/{conv,pool,lrn,norm,rnn}_*.{txt,csv,json}"
