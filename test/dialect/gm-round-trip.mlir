// A kernel over global memory (design §10) prints back as MLIR: memrefs, index and element
// scalars, constants with their exact bits, nested scf.for with iter_args, tload/tstore; MLIR
// re-parses what ptoc prints, and printing that again gives identical text.
// RUN: ptoc %s --emit=mlir --pass-pipeline= -o %t.1.mlir
// RUN: ptoc %t.1.mlir --emit=mlir --pass-pipeline= -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: mlir-opt --allow-unregistered-dialect %t.1.mlir -o %t.3.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir
// RUN: ptoc %s --emit=mlir --pass-pipeline= --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// CHECK-LABEL: func.func @row_max(%arg0: memref<64x64xf32>, %arg1: memref<64x1xf32>, %arg2: index, %arg3: i32)
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c16 = arith.constant 16 : index
// CHECK-NEXT:    %c64 = arith.constant 64 : index
// CHECK-NEXT:    %cst = arith.constant 1.500000e+00 : f32
// CHECK-NEXT:    %cst_0 = arith.constant 0x7FC00001 : f32
// CHECK-NEXT:    %cst_1 = arith.constant 1.000000e+00 : f16
// CHECK-NEXT:    %cst_2 = arith.constant -2.000000e+00 : bf16
// CHECK-NEXT:    %c-3_i32 = arith.constant -3 : i32
// CHECK-NEXT:    %0 = arith.addi %arg3, %c-3_i32 : i32
// CHECK-NEXT:    scf.for %arg4 = %c0 to %c64 step %c16 {
// CHECK-NEXT:      %1 = "pto.tload"(%arg0, %arg4, %c0) : (memref<64x64xf32>, index, index) -> !pto.tile<16x16xf32>
// CHECK-NEXT:      %2 = "pto.trowmax"(%1) : (!pto.tile<16x16xf32>) -> !pto.tile<16x1xf32>
// CHECK-NEXT:      %3:2 = scf.for %arg5 = %c16 to %c64 step %c16 iter_args(%arg6 = %2, %arg7 = %c0) -> (!pto.tile<16x1xf32>, index) {
// CHECK-NEXT:        %4 = "pto.tload"(%arg0, %arg4, %arg5) : (memref<64x64xf32>, index, index) -> !pto.tile<16x16xf32>
// CHECK-NEXT:        %5 = "pto.trowmax"(%4) : (!pto.tile<16x16xf32>) -> !pto.tile<16x1xf32>
// CHECK-NEXT:        %6 = "pto.tmax"(%arg6, %5) : (!pto.tile<16x1xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x1xf32>
// CHECK-NEXT:        %7 = arith.muli %arg7, %c16 : index
// CHECK-NEXT:        scf.yield %6, %7 : !pto.tile<16x1xf32>, index
// CHECK-NEXT:      }
// CHECK-NEXT:      "pto.tstore"(%3#0, %arg1, %arg4, %c0) : (!pto.tile<16x1xf32>, memref<64x1xf32>, index, index) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    return

// LOC: arith.constant 0 : index loc(#[[C0:loc[0-9]+]])
// LOC: #[[C0]] = loc("{{.*}}gm-round-trip.mlir":[[@LINE+3]]:9)

func.func @row_max(%x: memref<64x64xf32>, %out: memref<64x1xf32>, %n: index, %k: i32) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.5 : f32
  %nan = arith.constant 0x7FC00001 : f32
  %h = arith.constant 1.0 : f16
  %b = arith.constant -2.0 : bf16
  %m = arith.constant -3 : i32
  %km = arith.addi %k, %m : i32
  scf.for %i = %c0 to %c64 step %c16 {
    %t0 = "pto.tload"(%x, %i, %c0) : (memref<64x64xf32>, index, index) -> !pto.tile<16x16xf32>
    %m0 = "pto.trowmax"(%t0) : (!pto.tile<16x16xf32>) -> !pto.tile<16x1xf32>
    %acc:2 = scf.for %j = %c16 to %c64 step %c16 iter_args(%a = %m0, %s = %c0) -> (!pto.tile<16x1xf32>, index) {
      %t = "pto.tload"(%x, %i, %j) : (memref<64x64xf32>, index, index) -> !pto.tile<16x16xf32>
      %mj = "pto.trowmax"(%t) : (!pto.tile<16x16xf32>) -> !pto.tile<16x1xf32>
      %mx = "pto.tmax"(%a, %mj) : (!pto.tile<16x1xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x1xf32>
      %s2 = arith.muli %s, %c16 : index
      scf.yield %mx, %s2 : !pto.tile<16x1xf32>, index
    }
    "pto.tstore"(%acc#0, %out, %i, %c0) : (!pto.tile<16x1xf32>, memref<64x1xf32>, index, index) -> ()
  }
  return
}
