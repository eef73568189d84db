# Shared by the deployment tests; sourced as: source common.sh BUILD_DIR SOURCE_DIR WORK_DIR
# Each test works in its own WORK_DIR, emptied first.
set -euo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
work=$3
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

install_tree() {  # prefix
  cmake --install "$build" --prefix "$1" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; }
}

# Configures and builds tests/deploy/consumer against the anydnn under prefix.
build_consumer() {  # prefix, build dir
  if ! { cmake -S "$source_dir/tests/deploy/consumer" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release \
           -DCMAKE_PREFIX_PATH="$1" && cmake --build "$2"; } >"$2.log" 2>&1; then
    cat "$2.log"
    fail "the consumer does not build against $1"
  fi
}

# Runs a command, keeping its output in $work/<name>.txt; fails unless it
# exits with rc ("nonzero": any failure).
expect_exit() {  # name, rc, command...
  local name=$1 want=$2 rc=0
  shift 2
  "$@" >"$work/$name.txt" 2>&1 || rc=$?
  if [[ $want == nonzero && $rc -ne 0 ]]; then
    return 0
  elif [[ $want == nonzero || $rc -ne $want ]]; then
    cat "$work/$name.txt"
    fail "$name: exit status $rc, expected $want"
  fi
}

# Fails unless $work/<name>.txt contains the text.
expect_text() {  # name, text
  grep -qF -- "$2" "$work/$1.txt" || { cat "$work/$1.txt"; fail "$1: the output lacks \"$2\""; }
}
