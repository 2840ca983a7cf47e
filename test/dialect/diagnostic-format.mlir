// Errors print as file:line:col, the source line and a caret; the exit status is 1.
// RUN: not ptoc %s 2>&1 | FileCheck %s --strict-whitespace

func.func @k(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  %r = "pto.tbogus"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}
// CHECK:      diagnostic-format.mlir:[[@LINE-3]]:8: error: unknown op 'pto.tbogus'; did you mean
// CHECK-NEXT: {{^}}  %r = "pto.tbogus"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
// CHECK-NEXT: {{^}}       ^
