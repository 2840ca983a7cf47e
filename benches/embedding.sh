#!/usr/bin/env bash
# Embedding numbers (release builds; not a test): compile latency of examples/softmax_rows.mlir
# from the C API and the Python package in process (median of RUNS calls) against the ptoc CLI
# process (median of RUNS runs of `ptoc KERNEL -o out.bin`); throughput of 8 threads compiling
# 8 distinct kernels against 1 thread compiling them in turn (C and Python); the Python package's
# install time from a clean virtual environment (`pip install ./python`, which downloads maturin
# and numpy and builds the extension in release with whatever cargo's target directory already
# holds) and its wheel size.
# Usage: benches/embedding.sh [RUNS=100]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100}
kernel=examples/softmax_rows.mlir
target=${CARGO_TARGET_DIR:-target}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

cargo build --release -q -p ptoc -p ptoc-capi
times=()
for _ in $(seq "$runs"); do
  start=$(date +%s%N)
  "$target/release/ptoc" "$kernel" -o "$dir/out.bin"
  end=$(date +%s%N)
  times+=($(( (end - start) / 1000 )))
done
printf '%s\n' "${times[@]}" | sort -n |
  awk '{a[NR]=$1} END {printf "cli_process_latency_ms %.3f\n", a[int((NR+1)/2)]/1000}'

lib=$(cd "$target/release" && pwd)
cc -O2 -std=c11 -Icapi/include benches/embed_compile.c -o "$dir/embed_compile" \
  -L"$lib" -Wl,-rpath,"$lib" -lptoc_capi -lpthread
"$dir/embed_compile" "$kernel" "$runs"

python3 -m venv "$dir/venv"
start=$(date +%s)
"$dir/venv/bin/pip" install -q --disable-pip-version-check ./python
echo "python_install_s $(( $(date +%s) - start ))"
"$dir/venv/bin/pip" wheel -q --disable-pip-version-check --no-deps -w "$dir/wheel" ./python
echo "python_wheel_bytes $(stat -c %s "$dir"/wheel/*.whl)"
"$dir/venv/bin/python" benches/embed_compile.py "$kernel" "$runs"
