// pto.* attributes on arguments, ops and functions survive the round trip (other attribute kinds
// are rejected: see invalid.mlir).
// RUN: ptoc %s --emit=mlir --pass-pipeline= | FileCheck %s
// RUN: ptoc %s --emit=mlir --pass-pipeline= | ptoc --emit=mlir --pass-pipeline= | FileCheck %s

// CHECK: func.func @k(%arg0: !pto.tile<16x64xf32> {pto.dst = "T#1", pto.tsize = 4 : i64}) -> !pto.tile<16x64xf32> attributes {pto.pe_mask = "1111"}
// CHECK-NEXT: "pto.texp"(%arg0) {pto.dst = "T#2", pto.rows = 16 : i64}
func.func @k(%x: !pto.tile<16x64xf32> {pto.dst = "T#1", pto.tsize = 4 : i64}) -> !pto.tile<16x64xf32> attributes {pto.pe_mask = "1111"} {
  %e = "pto.texp"(%x) {pto.dst = "T#2", pto.rows = 16} : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %e : !pto.tile<16x64xf32>
}

