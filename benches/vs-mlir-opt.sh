#!/usr/bin/env bash
# Wall time of ptoc against mlir-opt-22 (--allow-unregistered-dialect, parse + print) on the same
# files: median of RUNS process runs each, release build.
#   front end:  ptoc --emit=mlir --pass-pipeline= (parse → import → export → print, no pass) on a
#               generated 1000-op kernel;
#   end to end: ptoc FILE -o out.bin (default pipeline, codegen, ELF) on the shipped example and on
#               a generated kernel with as many ops as the 64 registers allow (62 + 2 arguments),
#               and on two GM kernels with an scf.for loop (design §10): a 256-iteration affine
#               loop (test/runtime/gm/affine-256.mlir) and the 4096-iteration row softmax
#               (examples/gm_softmax.mlir). Compile time does not grow with the trip count (the
#               loop stays a loop), so these measure the GM path: bounds, allocation, lowering.
# Usage: benches/vs-mlir-opt.sh [RUNS=30]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
cargo build --release -q -p ptoc
ptoc=${CARGO_TARGET_DIR:-target}/release/ptoc
mlir_opt=/usr/lib/llvm-22/bin/mlir-opt
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 benches/gen_kernel.py 1000 > "$dir/ops1000.mlir"
python3 benches/gen_kernel.py 62 8x16 > "$dir/ops62.mlir"

median_ms() {
  local times=() start end
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    "$@" > /dev/null
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]/1000}'
}

row() { # label, ptoc ms, mlir-opt ms
  awk -v l="$1" -v p="$2" -v m="$3" 'BEGIN {printf "%-38s %9.2f %9.2f %7.2f\n", l, p, m, p/m}'
}

printf '%-38s %9s %9s %7s\n' "median of $runs runs (ms)" ptoc mlir-opt ratio
row "front end, 1000 ops" \
  "$(median_ms "$ptoc" "$dir/ops1000.mlir" --emit=mlir --pass-pipeline=)" \
  "$(median_ms "$mlir_opt" --allow-unregistered-dialect "$dir/ops1000.mlir")"
row "-o out.bin, examples/softmax_rows.mlir" \
  "$(median_ms "$ptoc" examples/softmax_rows.mlir -o "$dir/a.bin")" \
  "$(median_ms "$mlir_opt" --allow-unregistered-dialect examples/softmax_rows.mlir)"
row "-o out.bin, 62 ops (register budget)" \
  "$(median_ms "$ptoc" "$dir/ops62.mlir" -o "$dir/b.bin")" \
  "$(median_ms "$mlir_opt" --allow-unregistered-dialect "$dir/ops62.mlir")"
for gm in test/runtime/gm/affine-256.mlir examples/gm_softmax.mlir; do
  row "-o out.bin, GM ${gm##*/}" \
    "$(median_ms "$ptoc" "$gm" -o "$dir/gm.bin")" \
    "$(median_ms "$mlir_opt" --allow-unregistered-dialect "$gm")"
done
