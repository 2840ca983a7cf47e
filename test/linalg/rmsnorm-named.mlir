// RMSNorm written with named ops (linalg.mul, linalg.reduce, linalg.broadcast, linalg.div,
// linalg.sqrt, linalg.add), as frontends other than torch-mlir emit it; ptoc generalises them
// upstream before converting. y = x / sqrt(mean(x*x) + eps) * w, w one weight per column.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=asm | FileCheck %s
// VERIFY: @rmsnorm: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK: TMUL
// CHECK: TROWSUM
// CHECK: TSQRT
// CHECK: TCOLEXPANDMUL
func.func @rmsnorm(%x: tensor<64x4096xf32>, %w: tensor<4096xf32>) -> tensor<64x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 4096.0 : f32
  %eps = arith.constant 1.0e-06 : f32
  %e = tensor.empty() : tensor<64x4096xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %sq = linalg.mul ins(%x, %x : tensor<64x4096xf32>, tensor<64x4096xf32>) outs(%e : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %ss = linalg.reduce ins(%sq : tensor<64x4096xf32>) outs(%z : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %nf = linalg.fill ins(%n : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %ms = linalg.div ins(%ss, %nf : tensor<64xf32>, tensor<64xf32>) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %ef = linalg.fill ins(%eps : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %me = linalg.add ins(%ms, %ef : tensor<64xf32>, tensor<64xf32>) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %rt = linalg.sqrt ins(%me : tensor<64xf32>) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %rb = linalg.broadcast ins(%rt : tensor<64xf32>) outs(%e : tensor<64x4096xf32>) dimensions = [1]
  %xn = linalg.div ins(%x, %rb : tensor<64x4096xf32>, tensor<64x4096xf32>) outs(%e : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %wb = linalg.broadcast ins(%w : tensor<4096xf32>) outs(%e : tensor<64x4096xf32>) dimensions = [0]
  %y = linalg.mul ins(%xn, %wb : tensor<64x4096xf32>, tensor<64x4096xf32>) outs(%e : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  return %y : tensor<64x4096xf32>
}
