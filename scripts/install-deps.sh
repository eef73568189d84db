#!/usr/bin/env bash
# Installs what building and testing anydnn needs on Debian/Ubuntu: a C++20
# compiler with OpenMP, CMake >= 3.25, Ninja, GoogleTest and zlib (the MNIST
# demo reads gzip-compressed IDX files); the deployment tests also use
# pkg-config, binutils (readelf, objdump) and python3 (to read the doctor's
# JSON). Does nothing
# when everything is already there; needs root (or sudo) otherwise.
set -euo pipefail

packages=(g++ cmake ninja-build libgtest-dev pkg-config zlib1g-dev binutils python3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null; then
  echo "install-deps: please install ${missing[*]} with your package manager" >&2
  exit 1
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
