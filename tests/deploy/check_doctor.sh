#!/usr/bin/env bash
# anydnn-doctor passes on a clean install, and names each fault created in it
# (a shadowing copy of another version first on LD_LIBRARY_PATH, a truncated
# library, a modified header, a missing file) with a non-zero exit status.
# usage: check_doctor.sh BUILD_DIR SOURCE_DIR WORK_DIR FAKE_V2_LIBRARY
source "$(dirname "$0")/common.sh"
fake_v2=$4
prefix=$work/prefix
install_tree "$prefix"
doctor=$prefix/bin/anydnn-doctor
unset LD_LIBRARY_PATH ANYDNN_MAX_ISA

expect_exit clean 0 "$doctor"
expect_text clean "everything checked passed"
expect_text clean "[pass] loaded library: is this installation's own"
expect_text clean "[pass] convolution forward IMPLICIT_GEMM"
expect_exit clean_json 0 "$doctor" --json --no-self-test
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["ok"] and d["problems"] == 0 else 1)' \
  "$work/clean_json.txt" || fail "--json is not valid JSON saying ok"

# Another version's libanydnn.so.1 first on LD_LIBRARY_PATH.
mkdir -p "$work/shadow"
cp "$fake_v2" "$work/shadow/libanydnn.so.1"
expect_exit shadow 1 env LD_LIBRARY_PATH="$work/shadow" "$doctor" --no-self-test
expect_text shadow "$work/shadow/libanydnn.so.1 (version 2.0.0) shadows this installation's own"
expect_text shadow "$work/shadow (LD_LIBRARY_PATH) comes before $prefix/lib"
expect_text shadow "fix: remove $work/shadow from LD_LIBRARY_PATH"

# The library cut short, as by a half-copied archive.
lib=$prefix/lib/libanydnn.so.1.0.0
cp "$lib" "$work/lib.bak"
head -c $(($(stat -c %s "$lib") / 2)) "$work/lib.bak" >"$lib"
expect_exit truncated 1 "$doctor"
expect_text truncated "lib/libanydnn.so.1.0.0: truncated"
expect_text truncated "[FAIL] libanydnn.so.1: cannot be loaded"
cp "$work/lib.bak" "$lib"

# A header of another version (or edited).
header=$prefix/include/anydnn/anydnn_ops.h
cp "$header" "$work/header.bak"
echo "/* edited */" >>"$header"
expect_exit modified_header 1 "$doctor" --no-self-test
expect_text modified_header "[FAIL] include/anydnn/anydnn_ops.h: modified"
cp "$work/header.bak" "$header"

# A file missing from the tree.
rm "$prefix/include/anydnn/anydnn_cnn.h"
expect_exit missing_file 1 "$doctor" --no-self-test
expect_text missing_file "[FAIL] include/anydnn/anydnn_cnn.h: missing"

echo "the doctor passes a clean install and names every fault: ok"
