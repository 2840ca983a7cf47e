// A broadcast from a scalar argument captured from outside the region: y = x * s + 1 becomes
// tile-scalar ops on the argument's register.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=asm | FileCheck %s
// VERIFY: @scale: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK: TMULS
// CHECK: TADDS
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @scale(%x: tensor<100x300xf32>, %s: f32) -> tensor<100x300xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<100x300xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<100x300xf32>) outs(%e : tensor<100x300xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    %r = arith.addf %m, %one : f32
    linalg.yield %r : f32
  } -> tensor<100x300xf32>
  return %y : tensor<100x300xf32>
}
