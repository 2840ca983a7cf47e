// A 1-D program's grid is one row, so a reduction of a vector to a rank-0 tensor (a sum of squares,
// an amax) is that row's per-row value: a 1x1 memref. A vector longer than a tile folds in chunks,
// with a shorter last one (exact for max).
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=mlir -o /dev/null --mlir-print-ir-after=convert-linalg-to-pto 2>&1 | FileCheck %s
// VERIFY: @vsum: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @vmax: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK: func.func @vsum(%arg0: memref<1x1000xf32>, %arg1: memref<1x1xf32>)
// CHECK: "pto.trowsum"
// CHECK: func.func @vmax(%arg0: memref<1x100003xf32>, %arg1: memref<1x1xf32>)
// CHECK: scf.for {{.*}} iter_args
// CHECK: valid=1x{{[0-9]+}}>
#v = affine_map<(d0) -> (d0)>
#s = affine_map<(d0) -> ()>
func.func @vsum(%x: tensor<1000xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#v, #s], iterator_types = ["reduction"]} ins(%x : tensor<1000xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %q = arith.mulf %a, %a : f32
    %t = arith.addf %q, %acc : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
func.func @vmax(%x: tensor<100003xf32>) -> tensor<f32> {
  %z = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#v, #s], iterator_types = ["reduction"]} ins(%x : tensor<100003xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.maximumf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
