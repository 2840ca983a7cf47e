// linalg.matmul and linalg.batch_matmul as upstream MLIR writes them, onto the matrix unit
// (docs/isa.md §18): f32; f16 and bf16 with f32 accumulation; i8 with i32; ragged M, N and K;
// an init passed in; three products in one batch. Each is verified bit for bit against the
// program under linalg's order (k in order from the init: docs/isa.md §9 decision 51);
// python/tests/test_linalg.py checks them against numpy.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=mlir -o /dev/null --mlir-print-ir-after=convert-linalg-to-pto 2>&1 | FileCheck %s
// VERIFY: @mm_f32: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @mm_f16_ragged: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @mm_bf16_init: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @mm_i8: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @bmm: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @vector_matrix: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @mm_transpose_b: 3 trials (seed 0), compiled code matches the source bit for bit
// A 32-row block of A in cube_m32, B in cube_n8, the first K block from +0, the rest carried.
// CHECK-LABEL: func.func @mm_f32(%arg0: memref<64x96xf32>, %arg1: memref<96x80xf32>, %arg2: memref<64x80xf32>)
// CHECK: scf.for
// CHECK: "pto.tload"{{.*}} -> !pto.tile<32x{{[0-9]+}}xf32, layout=cube_m32>
// CHECK: "pto.tload"{{.*}} -> !pto.tile<{{[0-9]+}}x80xf32, layout=cube_n8>
// CHECK: "pto.tmatmul"
// CHECK: "pto.tmatmul_acc"
// CHECK: "pto.tstore"
// 37 rows: a 32-row block and a 5-row tail in cube_m16.
// CHECK-LABEL: func.func @mm_f16_ragged
// CHECK: !pto.tile<5x{{[0-9]+}}xf16, layout=cube_m16>
// The init is loaded into D's layout and accumulated onto.
// CHECK-LABEL: func.func @mm_bf16_init
// CHECK: "pto.tload"{{.*}} -> !pto.tile<16x32xf32, layout=cube_m16>
// CHECK: "pto.tmatmul_acc"
// CHECK-NOT: "pto.tmatmul"(
// CHECK-LABEL: func.func @mm_i8
// CHECK: "pto.tmatmul"{{.*}} -> !pto.tile<32x64xsi32, layout=cube_m32>
// The batches are stacked rows: A is 60x48, B 144x24.
// CHECK-LABEL: func.func @bmm(%arg0: memref<60x48xf32>, %arg1: memref<144x24xf32>, %arg2: memref<60x24xf32>)
// CHECK: arith.muli
// A 1xK by KxN product, which normalisation turns into a vector-matrix generic between
// reshapes: one row of A in cube_m16.
// CHECK-LABEL: func.func @vector_matrix(%arg0: memref<1x64xf32>, %arg1: memref<64x32xf32>, %arg2: memref<1x32xf32>)
// CHECK: "pto.tload"{{.*}} -> !pto.tile<1x64xf32, layout=cube_m16>
// CHECK: "pto.tmatmul"
// B read transposed (N×K) is transposed into a workspace first, then multiplied as K×N.
// CHECK-LABEL: func.func @mm_transpose_b(%arg0: memref<40x96xf32>, %arg1: memref<24x96xf32>, %arg2: memref<40x24xf32>, %arg3: memref<96x24xf32> {pto.workspace})
// CHECK: "pto.ttrans"
// CHECK: "pto.tstore"(%{{.*}}, %arg3,
// CHECK: "pto.tload"(%arg3,{{.*}} layout=cube_n8>
// CHECK: "pto.tmatmul"

func.func @mm_f32(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%c : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %r : tensor<64x80xf32>
}
func.func @mm_f16_ragged(%a: tensor<37x300xf16>, %b: tensor<300x45xf16>) -> tensor<37x45xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x45xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<37x45xf32>) -> tensor<37x45xf32>
  %r = linalg.matmul ins(%a, %b : tensor<37x300xf16>, tensor<300x45xf16>) outs(%c : tensor<37x45xf32>) -> tensor<37x45xf32>
  return %r : tensor<37x45xf32>
}
func.func @mm_bf16_init(%a: tensor<16x64xbf16>, %b: tensor<64x32xbf16>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x64xbf16>, tensor<64x32xbf16>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
func.func @mm_i8(%a: tensor<32x128xi8>, %b: tensor<128x64xi8>) -> tensor<32x64xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<32x64xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<32x64xi32>) -> tensor<32x64xi32>
  %r = linalg.matmul ins(%a, %b : tensor<32x128xi8>, tensor<128x64xi8>) outs(%c : tensor<32x64xi32>) -> tensor<32x64xi32>
  return %r : tensor<32x64xi32>
}
func.func @bmm(%a: tensor<3x20x48xf32>, %b: tensor<3x48x24xf32>) -> tensor<3x20x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x20x24xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<3x20x24xf32>) -> tensor<3x20x24xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x20x48xf32>, tensor<3x48x24xf32>) outs(%c : tensor<3x20x24xf32>) -> tensor<3x20x24xf32>
  return %r : tensor<3x20x24xf32>
}
func.func @vector_matrix(%a: tensor<1x64xf32>, %b: tensor<64x32xf32>) -> tensor<1x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32xf32>) -> tensor<1x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x64xf32>, tensor<64x32xf32>) outs(%c : tensor<1x32xf32>) -> tensor<1x32xf32>
  return %r : tensor<1x32xf32>
}

func.func @mm_transpose_b(%a: tensor<40x96xf32>, %b: tensor<24x96xf32>) -> tensor<40x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x24xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<40x24xf32>) -> tensor<40x24xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<40x96xf32>, tensor<24x96xf32>) outs(%c : tensor<40x24xf32>) -> tensor<40x24xf32>
  return %r : tensor<40x24xf32>
}
