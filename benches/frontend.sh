#!/usr/bin/env bash
# ptoc's front end (parse → import → export → print, no passes) against mlir-opt parsing and
# printing the same generated kernel. Prints the median wall time of RUNS runs of each.
# Usage: benches/frontend.sh [OPS=1000] [RUNS=30]
set -euo pipefail
cd "$(dirname "$0")/.."
ops=${1:-1000}
runs=${2:-30}
cargo build --release -q -p ptoc
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 benches/gen_kernel.py "$ops" > "$dir/kernel.mlir"

median_ms() {
  local times=()
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    "$@" > /dev/null
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]/1000}'
}

ptoc_ms=$(median_ms target/release/ptoc "$dir/kernel.mlir" --emit=mlir --pass-pipeline=)
mlir_ms=$(median_ms /usr/lib/llvm-22/bin/mlir-opt --allow-unregistered-dialect "$dir/kernel.mlir")
echo "kernel: $ops ops, median of $runs runs"
echo "ptoc  --emit=mlir --pass-pipeline= : ${ptoc_ms} ms"
echo "mlir-opt --allow-unregistered-dialect: ${mlir_ms} ms"
awk -v p="$ptoc_ms" -v m="$mlir_ms" 'BEGIN {printf "ratio ptoc/mlir-opt: %.2f\n", p/m}'
