// Every element type and tile-type parameter survives parse → import → export → print.
// RUN: ptoc %s --emit=mlir --pass-pipeline= | FileCheck %s
// RUN: ptoc %s --emit=mlir --pass-pipeline= | ptoc --emit=mlir --pass-pipeline= | FileCheck %s

// CHECK-LABEL: func.func @types
// CHECK-SAME: !pto.tile<8x16xf64>, %arg1: !pto.tile<8x16xf32, valid=5x12>
// CHECK-SAME: !pto.tile<8x16xtf32, pad=zero>, %arg3: !pto.tile<8x16xhf32, valid=8x3, pad=max>
// CHECK-SAME: !pto.tile<8x16xf16, pad=min>, %arg5: !pto.tile<8x16xbf16>
// CHECK-SAME: !pto.tile<8x16xf8E4M3FN>, %arg7: !pto.tile<8x16xf8E5M2>
// CHECK-SAME: !pto.tile<8x16xsi64>, %arg9: !pto.tile<8x16xsi32>, %arg10: !pto.tile<8x16xsi16>
// CHECK-SAME: !pto.tile<8x16xsi8>, %arg12: !pto.tile<8x16xui64>, %arg13: !pto.tile<8x16xui32>
// CHECK-SAME: !pto.tile<8x16xui16>, %arg15: !pto.tile<8x16xui8>, %arg16: !pto.tile<?x?xf32>
// CHECK-SAME: !pto.tile<4x4xsi8>
func.func @types(%a: !pto.tile<8x16xf64>, %b: !pto.tile<8x16xf32, valid=5x12>,
                 %c: !pto.tile<8x16xtf32, pad=zero>, %d: !pto.tile<8x16xhf32, pad=max, valid=8x3>,
                 %e: !pto.tile<8x16xf16, pad=min>, %f: !pto.tile<8x16xbf16, pad=null>,
                 %g: !pto.tile<8x16xf8E4M3FN>, %h: !pto.tile<8x16xf8E5M2>,
                 %i: !pto.tile<8x16xsi64>, %j: !pto.tile<8x16xsi32>, %k: !pto.tile<8x16xsi16>,
                 %l: !pto.tile<8x16xsi8>, %m: !pto.tile<8x16xui64>, %n: !pto.tile<8x16xui32>,
                 %o: !pto.tile<8x16xui16>, %p: !pto.tile<8x16xui8>, %q: !pto.tile<?x?xf32>,
                 %r: !pto.tile<4x4xi8>) {
  return
}
