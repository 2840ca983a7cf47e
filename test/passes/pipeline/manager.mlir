// The pass manager's command-line surface: pipeline strings as mlir-opt spells them, IR dumps
// around passes, statistics, and the error for an unknown pass.
// RUN: ptoc %s --emit=mlir --pass-pipeline='builtin.module(func.func(pto-verify, pto-infer-shapes))' --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP
// RUN: ptoc %s --emit=mlir --mlir-print-ir-before=pto-allocate 2>&1 >/dev/null | FileCheck %s --check-prefix=BEFORE
// RUN: ptoc %s --emit=mlir --pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: not ptoc %s --pass-pipeline=pto-verify,pto-bogus 2>&1 | FileCheck %s --check-prefix=UNKNOWN

func.func @k(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  %m = "pto.trowmin"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<?x?xf32>
  %r = "pto.tadd"(%m, %x) : (!pto.tile<?x?xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// DUMP:      // -----// IR Dump After PtoVerify (pto-verify) //----- //
// DUMP:      "pto.trowmin"(%arg0) : (!pto.tile<16x64xf32>) -> !pto.tile<?x?xf32>
// DUMP:      // -----// IR Dump After PtoInferShapes (pto-infer-shapes) //----- //
// DUMP:      "pto.trowmin"(%arg0) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
// DUMP-NEXT: "pto.trowexpand"(%0)
// DUMP-NOT:  IR Dump

// BEFORE-NOT: IR Dump
// BEFORE:     // -----// IR Dump Before PtoAllocate (pto-allocate) //----- //
// BEFORE:     "pto.trowexpandadd"(%arg0, %0)
// BEFORE-NOT: pto.dst
// BEFORE-NOT: IR Dump

// STATS:      ===-------------------------------------------------------------------------===
// STATS-NEXT:                          ... Pass statistics report ...
// STATS-NEXT: ===-------------------------------------------------------------------------===
// STATS-NEXT: 'func.func' Pipeline
// STATS-NEXT:   PtoVerify
// STATS-NEXT:     (S) 2 ops-verified - Number of pto ops verified
// STATS-NEXT:   PtoInferShapes
// STATS-NEXT:     (S) 4 dims-inferred    - Number of '?' dimensions filled in
// STATS-NEXT:     (S) 1 expands-inserted - Number of implicit broadcasts made explicit
// STATS:        PtoAllocate
// STATS-NEXT:     (S) 33280 capacity-bytes  - Tile capacity used on the core, in bytes (all PEs of the mask)
// STATS-NEXT:     (S)     3 tiles-allocated - Number of Local tile registers assigned

// UNKNOWN: error: {{.*}}'pto-bogus' does not refer to a registered pass or pass pipeline; known passes: convert-linalg-to-pto, pto-verify, pto-infer-shapes, pto-fuse, pto-allocate
