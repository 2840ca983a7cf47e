// Tensors of rank 3 and 4 (torch-mlir's [batch, seq, hidden] and attention's [batch, heads, seq,
// seq]): every loop but the last merges into rows, which is the tensors' own row-major order, so
// the kernel's memrefs are the tensors' bytes as (batch x seq) x hidden grids and each fold over
// the last dimension runs over the same elements in the same order.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=mlir -o /dev/null --mlir-print-ir-after=convert-linalg-to-pto 2>&1 | FileCheck %s
// VERIFY: @ln: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @attention_softmax: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK: func.func @ln(%arg0: memref<64x256xf32>, %arg1: memref<1x256xf32>, %arg2: memref<64x256xf32>, %arg3: memref<64x1xf32>)
// CHECK: "pto.trowsum"
// CHECK: func.func @attention_softmax(%arg0: memref<128x64xf32>, %arg1: memref<128x64xf32>)
// CHECK: "pto.trowmax"
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#vec = affine_map<(d0, d1, d2) -> (d2)>
func.func @ln(%x: tensor<2x32x256xf32>, %g: tensor<256xf32>) -> (tensor<2x32x256xf32>, tensor<2x32x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 256.0 : f32
  %e1 = tensor.empty() : tensor<2x32x1xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x32x1xf32>) -> tensor<2x32x1xf32>
  %sum = linalg.generic {indexing_maps = [#map, #red], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x32x256xf32>) outs(%z : tensor<2x32x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x32x1xf32>
  %e2 = tensor.empty() : tensor<2x32x256xf32>
  %y = linalg.generic {indexing_maps = [#map, #red, #vec, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %sum, %g : tensor<2x32x256xf32>, tensor<2x32x1xf32>, tensor<256xf32>) outs(%e2 : tensor<2x32x256xf32>) {
  ^bb0(%a: f32, %s: f32, %w: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %d = arith.subf %a, %m : f32
    %r = arith.mulf %d, %w : f32
    linalg.yield %r : f32
  } -> tensor<2x32x256xf32>
  return %y, %sum : tensor<2x32x256xf32>, tensor<2x32x1xf32>
}

#m4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#k4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
func.func @attention_softmax(%s: tensor<2x4x16x64xf32>) -> tensor<2x4x16x64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x4x16x1xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<2x4x16x1xf32>) -> tensor<2x4x16x1xf32>
  %m = linalg.generic {indexing_maps = [#m4, #k4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%s : tensor<2x4x16x64xf32>) outs(%mi : tensor<2x4x16x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x1xf32>
  %e2 = tensor.empty() : tensor<2x4x16x64xf32>
  %x = linalg.generic {indexing_maps = [#m4, #k4, #m4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %m : tensor<2x4x16x64xf32>, tensor<2x4x16x1xf32>) outs(%e2 : tensor<2x4x16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x64xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x16x1xf32>) -> tensor<2x4x16x1xf32>
  %sum = linalg.generic {indexing_maps = [#m4, #k4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<2x4x16x64xf32>) outs(%zi : tensor<2x4x16x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x1xf32>
  %y = linalg.generic {indexing_maps = [#m4, #k4, #m4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %sum : tensor<2x4x16x64xf32>, tensor<2x4x16x1xf32>) outs(%e2 : tensor<2x4x16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x64xf32>
  return %y : tensor<2x4x16x64xf32>
}
