func.func @rms(%x: tensor<64x4096xf32>, %w: tensor<4096xf32>) -> tensor<64x4096xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x4096xf32>
  %sq = linalg.mul ins(%x, %x : tensor<64x4096xf32>, tensor<64x4096xf32>) outs(%e : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %r0 = tensor.empty() : tensor<64xf32>
  %rf = linalg.fill ins(%c0 : f32) outs(%r0 : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.reduce ins(%sq : tensor<64x4096xf32>) outs(%rf : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %b = linalg.broadcast ins(%s : tensor<64xf32>) outs(%e : tensor<64x4096xf32>) dimensions = [1]
  %bw = linalg.broadcast ins(%w : tensor<4096xf32>) outs(%e : tensor<64x4096xf32>) dimensions = [0]
  %ex = linalg.exp ins(%x : tensor<64x4096xf32>) outs(%e : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %d = linalg.div ins(%ex, %b : tensor<64x4096xf32>, tensor<64x4096xf32>) outs(%e : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %m = linalg.mul ins(%d, %bw : tensor<64x4096xf32>, tensor<64x4096xf32>) outs(%e : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  return %m : tensor<64x4096xf32>
}
