// --split-input-file prints each chunk's module separated by `// -----`; -o writes atomically and
// a failed compile leaves an existing output untouched.
// RUN: ptoc %s --split-input-file --emit=mlir --pass-pipeline= | FileCheck %s
// RUN: printf 'keep me' > %t.out
// RUN: not ptoc %S/invalid.mlir --split-input-file --emit=mlir -o %t.out 2>/dev/null
// RUN: FileCheck %s --input-file=%t.out --check-prefix=KEPT
// RUN: ptoc %s --split-input-file --emit=mlir --pass-pipeline= -o %t.out
// RUN: FileCheck %s --input-file=%t.out
// KEPT: keep me

// CHECK: func.func @first
// CHECK: // -----
// CHECK: func.func @second
func.func @first(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  return %x : !pto.tile<16x64xf32>
}

// -----

func.func @second(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  %e = "pto.texp"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %e : !pto.tile<16x64xf32>
}
