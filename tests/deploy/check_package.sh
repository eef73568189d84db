#!/usr/bin/env bash
# CPack makes anydnn-<version>-<os>-<arch>.tar.gz and .zip, each with a
# .sha256 beside it; unpacked elsewhere, the tree serves an external project
# and its doctor passes.
# usage: check_package.sh BUILD_DIR SOURCE_DIR WORK_DIR
source "$(dirname "$0")/common.sh"
(cd "$build" && cpack --config CPackConfig.cmake -B "$work/packages") >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack"; }
name=anydnn-1.0.0-$(uname -s | tr '[:upper:]' '[:lower:]')-$(uname -m)
for ext in tar.gz zip; do
  archive=$work/packages/$name.$ext
  [[ -f $archive && -f $archive.sha256 ]] || fail "$name.$ext or its .sha256 is missing"
  (cd "$work/packages" && sha256sum --quiet --strict -c "$name.$ext.sha256") || fail "$name.$ext.sha256 does not verify"
  mkdir -p "$work/unpacked-$ext"
  (cd "$work/unpacked-$ext" && cmake -E tar xf "$archive") || fail "cannot unpack $name.$ext"
  tree=$work/unpacked-$ext/$name
  [[ -f $tree/share/anydnn/MANIFEST.sha256 ]] || fail "$name.$ext has no top directory $name with a manifest"
  build_consumer "$tree" "$work/consumer-$ext"
  expect_exit "consumer_$ext" 0 "$work/consumer-$ext/consumer"
done
expect_exit doctor_unpacked 0 "$work/unpacked-tar.gz/$name/bin/anydnn-doctor" --no-self-test
expect_text doctor_unpacked "files present and intact"
echo "packages, checksums and the unpacked trees: ok"
