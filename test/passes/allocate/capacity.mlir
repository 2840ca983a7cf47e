// pto-allocate: core tile capacity is Σ popcount(mask) × capacity ≤ 256 KiB; the error gives
// the exact shortfall, and a smaller mask that fits.
// RUN: ptoc %s --target-profile=absolute --split-input-file --pass-pipeline=pto-allocate --verify-diagnostics
// RUN: ptoc %s --target-profile=absolute --split-input-file --pass-pipeline=pto-allocate --pe-mask=1110 --emit=mlir | FileCheck %s

// 64 + 8 + 2 + 1 KiB per PE: 300 KiB on four PEs, 225 KiB on three.
// expected-error@+1 {{kernel @too_big needs 300 KiB of tile capacity with mask 1111; the core has 256 KiB (short by 44 KiB); with --pe-mask=1110 it needs 225 KiB [core-capacity, Fault_TileAllocation]}}
func.func @too_big(%a: !pto.tile<256x64xf32>, %b: !pto.tile<32x64xf32>, %c: !pto.tile<8x64xf32>, %d: !pto.tile<4x64xf32>) -> !pto.tile<4x64xf32> {
  return %d : !pto.tile<4x64xf32>
}

// CHECK-LABEL: func.func @too_big
// CHECK-SAME: pto.pe_mask = "1110"
