// Whole transformer blocks, written as torch-mlir lowers them to linalg on tensors: weights in
// PyTorch's out×in layout read through a transpose, matmuls from a +0 fill, broadcast bias adds
// and ReLU as compare-and-select. Each program runs as stages in one kernel: a transpose into a
// workspace, a matmul with what follows it in place, then the next stage reading the workspace
// (README, "Programs of several stages"). Verified bit for bit against the linalg program;
// python/tests/test_blocks.py checks them against numpy.
// RUN: ptoc verify %s --trials 2 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=asm | FileCheck %s
// VERIFY: @mlp: 2 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @attention: 2 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @attention_heads: 2 trials (seed 0), compiled code matches the source bit for bit
// The hidden activations and both transposed weights live in workspaces after the arguments.
// CHECK-LABEL: .kernel mlp
// CHECK:      .memref x, a0, FP32, 32x64, pos=0
// CHECK:      .memref r0, a5, FP32, 32x48, pos=5, stored
// CHECK-NEXT: .memref ws0, a6, FP32, 64x128, pos=6, stored, workspace
// CHECK-NEXT: .memref ws1, a7, FP32, 32x128, pos=7, stored, workspace
// CHECK-NEXT: .memref ws2, s0, FP32, 128x48, pos=8, stored, workspace
// CHECK:      TTRANS
// CHECK:      BSTART.TMATMUL FP32
// CHECK:      BSTART.TMATMUL FP32
// CHECK-LABEL: .kernel attention
// CHECK:      .memref r0, a3, FP32, 128x64, pos=3, stored
// CHECK-NEXT: .memref ws0, a4, FP32, 64x128, pos=4, stored, workspace
// CHECK-NEXT: .memref ws1, a5, FP32, 128x128, pos=5, stored, workspace
// CHECK-LABEL: .kernel attention_heads
// CHECK:      .memref r0, a3, FP32, 256x64, pos=3, stored
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#tr3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 48)) on a 32x64 batch.
func.func @mlp(%x: tensor<32x64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<48x128xf32>, %b2: tensor<48xf32>) -> tensor<32x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e1t = tensor.empty() : tensor<64x128xf32>
  %w1t = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%w1 : tensor<128x64xf32>) outs(%e1t : tensor<64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x128xf32>
  %e1 = tensor.empty() : tensor<32x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm1 = linalg.matmul ins(%x, %w1t : tensor<32x64xf32>, tensor<64x128xf32>) outs(%f1 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %h1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm1, %b1 : tensor<32x128xf32>, tensor<128xf32>) outs(%e1 : tensor<32x128xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    linalg.yield %s : f32
  } -> tensor<32x128xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h1 : tensor<32x128xf32>) outs(%e1 : tensor<32x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.cmpf ugt, %in, %zero : f32
    %r = arith.select %p, %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<32x128xf32>
  %e2t = tensor.empty() : tensor<128x48xf32>
  %w2t = linalg.transpose ins(%w2 : tensor<48x128xf32>) outs(%e2t : tensor<128x48xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<32x48xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %mm2 = linalg.matmul ins(%relu, %w2t : tensor<32x128xf32>, tensor<128x48xf32>) outs(%f2 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm2, %b2 : tensor<32x48xf32>, tensor<48xf32>) outs(%e2 : tensor<32x48xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    linalg.yield %s : f32
  } -> tensor<32x48xf32>
  return %y : tensor<32x48xf32>
}

// softmax(Q·Kᵀ / 8)·V for one 128x64 head (scaled_dot_product_attention, decomposed).
func.func @attention(%q: tensor<128x64xf32>, %k: tensor<128x64xf32>, %v: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %eight = arith.constant 8.0 : f32
  %ekt = tensor.empty() : tensor<64x128xf32>
  %kt = linalg.transpose ins(%k : tensor<128x64xf32>) outs(%ekt : tensor<64x128xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<128x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<128x64xf32>, tensor<64x128xf32>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<128x128xf32>) outs(%e : tensor<128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %eight : f32
    linalg.yield %d : f32
  } -> tensor<128x128xf32>
  %e1 = tensor.empty() : tensor<128xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<128xf32>) -> tensor<128xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%scaled : tensor<128x128xf32>) outs(%mi : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<128xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%scaled, %max : tensor<128x128xf32>, tensor<128xf32>) outs(%e : tensor<128x128xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %d = arith.subf %in, %in_0 : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<128x128xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<128xf32>) -> tensor<128xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<128x128xf32>) outs(%si : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.addf %in, %out : f32
    linalg.yield %t : f32
  } -> tensor<128xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<128x128xf32>, tensor<128xf32>) outs(%e : tensor<128x128xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %d = arith.divf %in, %in_0 : f32
    linalg.yield %d : f32
  } -> tensor<128x128xf32>
  %eo = tensor.empty() : tensor<128x64xf32>
  %co = linalg.fill ins(%zero : f32) outs(%eo : tensor<128x64xf32>) -> tensor<128x64xf32>
  %o = linalg.matmul ins(%p, %v : tensor<128x128xf32>, tensor<128x64xf32>) outs(%co : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %o : tensor<128x64xf32>
}

// The same for two heads at once: batch_matmul, a batched transpose and a 3-D softmax.
func.func @attention_heads(%q: tensor<2x128x64xf32>, %k: tensor<2x128x64xf32>, %v: tensor<2x128x64xf32>) -> tensor<2x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %eight = arith.constant 8.0 : f32
  %ekt = tensor.empty() : tensor<2x64x128xf32>
  %kt = linalg.transpose ins(%k : tensor<2x128x64xf32>) outs(%ekt : tensor<2x64x128xf32>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<2x128x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x128x128xf32>) -> tensor<2x128x128xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x128x64xf32>, tensor<2x64x128xf32>) outs(%c : tensor<2x128x128xf32>) -> tensor<2x128x128xf32>
  %scaled = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x128x128xf32>) outs(%e : tensor<2x128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %eight : f32
    linalg.yield %d : f32
  } -> tensor<2x128x128xf32>
  %e1 = tensor.empty() : tensor<2x128xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<2x128xf32>) -> tensor<2x128xf32>
  %max = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%scaled : tensor<2x128x128xf32>) outs(%mi : tensor<2x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<2x128xf32>
  %ex = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%scaled, %max : tensor<2x128x128xf32>, tensor<2x128xf32>) outs(%e : tensor<2x128x128xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %d = arith.subf %in, %in_0 : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x128x128xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x128xf32>) -> tensor<2x128xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<2x128x128xf32>) outs(%si : tensor<2x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.addf %in, %out : f32
    linalg.yield %t : f32
  } -> tensor<2x128xf32>
  %p = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<2x128x128xf32>, tensor<2x128xf32>) outs(%e : tensor<2x128x128xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %d = arith.divf %in, %in_0 : f32
    linalg.yield %d : f32
  } -> tensor<2x128x128xf32>
  %eo = tensor.empty() : tensor<2x128x64xf32>
  %co = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x128x128xf32>, tensor<2x128x64xf32>) outs(%co : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  return %o : tensor<2x128x64xf32>
}
