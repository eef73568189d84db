#!/usr/bin/env bash
# cmake --install lays out the tree the packaging promises; an external project
# builds and runs against it through find_package and through pkg-config, also
# after the tree is moved elsewhere; the loader refuses another major version.
# usage: check_install.sh BUILD_DIR SOURCE_DIR WORK_DIR FAKE_V2_LIBRARY
source "$(dirname "$0")/common.sh"
fake_v2=$4
prefix=$work/prefix
install_tree "$prefix"

for f in bin/anydnn-doctor bin/anydnn-bench include/anydnn/anydnn.h include/anydnn/anydnn_version.h \
         lib/libanydnn.so lib/libanydnn.so.1 lib/libanydnn.so.1.0.0 lib/libanydnn.a \
         lib/cmake/anydnn/anydnnConfig.cmake lib/cmake/anydnn/anydnnConfigVersion.cmake \
         lib/cmake/anydnn/anydnnTargets.cmake lib/pkgconfig/anydnn.pc \
         share/doc/anydnn/README.md share/doc/anydnn/LICENSE share/anydnn/MANIFEST.sha256; do
  [[ -e $prefix/$f ]] || fail "$f is not installed"
done
[[ -L $prefix/lib/libanydnn.so && -L $prefix/lib/libanydnn.so.1 ]] || fail "the version symlinks are missing"
(cd "$prefix" && sha256sum --quiet --strict -c share/anydnn/MANIFEST.sha256) || fail "MANIFEST.sha256 does not verify"
grep -q "lib/libanydnn.so.1.0.0" "$prefix/share/anydnn/MANIFEST.sha256" || fail "the manifest lacks the library"
# (Captured first: grep -q closing the pipe early would fail the pipeline.)
dynamic=$(readelf -d "$prefix/lib/libanydnn.so.1.0.0")
symbols=$(objdump -T "$prefix/lib/libanydnn.so.1.0.0")
grep -q "SONAME.*\[libanydnn.so.1\]" <<<"$dynamic" || fail "SONAME is not libanydnn.so.1"
grep -q "ANYDNN_1.0 *anydnnCreateForVersion" <<<"$symbols" ||
  fail "the exported symbols do not carry the version node ANYDNN_1.0"
outside=$(grep " DF .text" <<<"$symbols" | grep -v " anydnn" || true)
[[ -z $outside ]] || fail "libanydnn exports functions outside the anydnn API: $outside"

# find_package, shared and static.
build_consumer "$prefix" "$work/consumer-cmake"
expect_exit consumer_cmake 0 "$work/consumer-cmake/consumer"
expect_text consumer_cmake "works"
expect_exit consumer_static 0 "$work/consumer-cmake/consumer_static"

# pkg-config.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[[ $(pkg-config --modversion anydnn) == 1.0.0 ]] || fail "pkg-config --modversion anydnn is not 1.0.0"
# shellcheck disable=SC2046
cc -std=c99 -o "$work/consumer-pc" "$source_dir/tests/deploy/consumer/consumer.c" $(pkg-config --cflags --libs anydnn) \
  -Wl,-rpath,"$prefix/lib" || fail "the consumer does not build with pkg-config's flags"
expect_exit consumer_pkgconfig 0 "$work/consumer-pc"

# A program compiled against other headers is told so by handle creation.
expect_exit header_major 0 "$work/consumer-cmake/consumer" --header 20000
expect_text header_major "ANYDNN_STATUS_VERSION_MISMATCH"
expect_text header_major "2.0.0 headers"
expect_text header_major "$prefix/lib/libanydnn.so.1.0.0"
expect_exit header_minor 0 "$work/consumer-cmake/consumer" --header 10100

# The loader refuses a libanydnn.so.1 of another major version up front.
mkdir -p "$work/other-major"
cp "$fake_v2" "$work/other-major/libanydnn.so.1"
expect_exit other_major nonzero env LD_LIBRARY_PATH="$work/other-major" "$work/consumer-cmake/consumer"
expect_text other_major "version \`ANYDNN_1.0' not found"

# Relocatable: the tree moved elsewhere still serves find_package and pkg-config.
mv "$prefix" "$work/moved"
build_consumer "$work/moved" "$work/consumer-moved"
expect_exit consumer_moved 0 "$work/consumer-moved/consumer"
moved_flags=$(PKG_CONFIG_PATH=$work/moved/lib/pkgconfig pkg-config --cflags --libs anydnn)
grep -qF "$work/moved/lib/pkgconfig/../../include" <<<"$moved_flags" ||
  fail "pkg-config's paths do not follow the moved tree: $moved_flags"
echo "install layout, find_package, pkg-config, relocation and version refusal: ok"
