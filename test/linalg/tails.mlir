// Extents that the block does not divide (here primes) are walked in blocks as large as fit, the
// last block of an axis shorter (a tile whose valid region is what is left), instead of blocks
// of the largest divisor, which for a prime is one element. The same holds for the chunks of a
// folded line.
// RUN: ptoc verify %s --trials 2 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=mlir -o /dev/null --mlir-print-ir-after=convert-linalg-to-pto 2>&1 | FileCheck %s
// VERIFY: @scale: 2 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @amax: 2 trials (seed 0), compiled code matches the source bit for bit
// CHECK-LABEL: func.func @scale
// CHECK: scf.for %{{.*}} = %c0 to %[[FULL:.*]] step
// CHECK: "pto.tload"(%arg0, {{.*}}) : (memref<1009x1013xf32>, index, index) -> !pto.tile<[[B:[0-9]+]]x1024xf32, valid=[[B]]x1013>
// CHECK: "pto.tload"(%arg0, {{.*}}) : (memref<1009x1013xf32>, index, index) -> !pto.tile<[[T:[0-9]+]]x1024xf32, valid=[[T]]x1013>
// CHECK-LABEL: func.func @amax
// CHECK: scf.for {{.*}} iter_args
// CHECK: "pto.trowmax"
// CHECK: scf.yield
// CHECK: valid=1x{{[0-9]+}}>
// CHECK: "pto.trowmax"
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @scale(%x: tensor<1009x1013xf32>, %y: tensor<1013xf32>) -> tensor<1009x1013xf32> {
  %e = tensor.empty() : tensor<1009x1013xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<1009x1013xf32>, tensor<1013xf32>) outs(%e : tensor<1009x1013xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1009x1013xf32>
  return %r : tensor<1009x1013xf32>
}

func.func @amax(%x: tensor<3x32003xf32>) -> tensor<3xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<3xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x32003xf32>) outs(%mi : tensor<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maxnumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  return %m : tensor<3xf32>
}
