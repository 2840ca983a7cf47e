// The example kernel prints back as MLIR, and MLIR itself accepts what ptoc prints; printing
// that again gives identical text.
// RUN: ptoc %examples/softmax_rows.mlir --emit=mlir --pass-pipeline= -o %t.1.mlir
// RUN: ptoc %t.1.mlir --emit=mlir --pass-pipeline= -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: mlir-opt --allow-unregistered-dialect %t.1.mlir -o %t.3.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// CHECK-LABEL: func.func @softmax_rows(%arg0: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
// CHECK-NEXT:    %0 = "pto.trowmax"(%arg0) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
// CHECK-NEXT:    %1 = "pto.trowexpandexpdif"(%arg0, %0)
// CHECK-NEXT:    %2 = "pto.trowsum"(%1)
// CHECK-NEXT:    %3 = "pto.trowexpanddiv"(%1, %2)
// CHECK-NEXT:    return %3 : !pto.tile<16x64xf32>
