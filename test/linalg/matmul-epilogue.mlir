// What follows a matmul in the same program (an epilogue) runs in place on the product's memory:
// a linear layer's bias and ReLU, and attention's scaled scores with their row softmax (K passed
// transposed, as K×N). Each is verified bit for bit against the whole linalg program;
// python/tests/test_matmul.py checks them against numpy.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=mlir | FileCheck %s
// VERIFY: @linear_relu: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @scores_softmax: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @narrowed_after: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @row_sums_after: 3 trials (seed 0), compiled code matches the source bit for bit
// The product is stored to r0, then loaded back row-major, biased, clamped and stored again.
// CHECK-LABEL: func.func @linear_relu(%arg0: memref<48x64xf32>, %arg1: memref<64x40xf32>, %arg2: memref<1x40xf32>, %arg3: memref<48x40xf32>)
// CHECK: "pto.tmatmul"
// CHECK: "pto.tstore"(%{{.*}}, %arg3,
// CHECK: "pto.tload"(%arg3,
// CHECK: "pto.tcolexpandadd"
// CHECK: "pto.tstore"(%{{.*}}, %arg3,
// CHECK-LABEL: func.func @scores_softmax
// CHECK: "pto.tmatmul_acc"
// CHECK: "pto.trowmax"
// CHECK: "pto.trowexpanddiv"
// What narrows or reduces the product cannot run in place: the product goes to a workspace
// and a second stage reads it from there.
// CHECK-LABEL: func.func @narrowed_after(%arg0: memref<16x32xf16>, %arg1: memref<32x16xf16>, %arg2: memref<16x16xf16>, %arg3: memref<16x16xf32> {pto.workspace})
// CHECK: "pto.tstore"(%{{.*}}, %arg3,
// CHECK: "pto.tload"(%arg3,
// CHECK: "pto.tcvt"
// CHECK: "pto.tstore"(%{{.*}}, %arg2,
// CHECK-LABEL: func.func @row_sums_after(%arg0: memref<24x32xf32>, %arg1: memref<32x40xf32>, %arg2: memref<24x1xf32>, %arg3: memref<24x40xf32> {pto.workspace})
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @linear_relu(%x: tensor<48x64xf32>, %w: tensor<64x40xf32>, %bias: tensor<40xf32>) -> tensor<48x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<48x40xf32>) -> tensor<48x40xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<48x64xf32>, tensor<64x40xf32>) outs(%c : tensor<48x40xf32>) -> tensor<48x40xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<48x40xf32>, tensor<40xf32>) outs(%e : tensor<48x40xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<48x40xf32>
  return %y : tensor<48x40xf32>
}

func.func @scores_softmax(%q: tensor<128x64xf32>, %kt: tensor<64x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<128x64xf32>, tensor<64x128xf32>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<128x128xf32>) outs(%e : tensor<128x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %scale : f32
    linalg.yield %m : f32
  } -> tensor<128x128xf32>
  %e1 = tensor.empty() : tensor<128xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<128xf32>) -> tensor<128xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%scaled : tensor<128x128xf32>) outs(%mi : tensor<128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<128xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%scaled, %max : tensor<128x128xf32>, tensor<128xf32>) outs(%e : tensor<128x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<128x128xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<128xf32>) -> tensor<128xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<128x128xf32>) outs(%si : tensor<128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %o, %a : f32
    linalg.yield %t : f32
  } -> tensor<128xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<128x128xf32>, tensor<128xf32>) outs(%e : tensor<128x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.divf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<128x128xf32>
  return %p : tensor<128x128xf32>
}

func.func @narrowed_after(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>) -> tensor<16x16xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %h = tensor.empty() : tensor<16x16xf16>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<16x16xf32>) outs(%h : tensor<16x16xf16>) {
  ^bb0(%x: f32, %o: f16):
    %n = arith.truncf %x : f32 to f16
    linalg.yield %n : f16
  } -> tensor<16x16xf16>
  return %t : tensor<16x16xf16>
}

func.func @row_sums_after(%a: tensor<24x32xf32>, %b: tensor<32x40xf32>) -> tensor<24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<24x40xf32>) -> tensor<24x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<24x32xf32>, tensor<32x40xf32>) outs(%c : tensor<24x40xf32>) -> tensor<24x40xf32>
  %e1 = tensor.empty() : tensor<24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<24xf32>) -> tensor<24xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%r : tensor<24x40xf32>) outs(%z : tensor<24xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.addf %o, %x : f32
    linalg.yield %t : f32
  } -> tensor<24xf32>
  return %s : tensor<24xf32>
}
