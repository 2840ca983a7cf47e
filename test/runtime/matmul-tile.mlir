// Each matrix op as a tile kernel, on CUBE-layout arguments: f16 with an f32 bias, an s8 GEMV,
// bf16 accumulating onto C in cube_m32, and a ragged u8 product (M, N, K not multiples of a cell).
// python/tests/test_matmul.py checks the same forms against numpy.
// RUN: ptoc verify %s --trials 3 | FileCheck %s
// CHECK: @bias_f16: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK: @gemv_s8: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK: @acc_bf16_m32: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK: @ragged_u8: 3 trials (seed 0), compiled code matches the source bit for bit
func.func @bias_f16(%a: !pto.tile<16x32xf16, layout=cube_m16>, %b: !pto.tile<32x16xf16, layout=cube_n8>, %bias: !pto.tile<1x16xf32>) -> !pto.tile<16x16xf32, layout=cube_m16> {
  %d = "pto.tmatmul_bias"(%a, %b, %bias) : (!pto.tile<16x32xf16, layout=cube_m16>, !pto.tile<32x16xf16, layout=cube_n8>, !pto.tile<1x16xf32>) -> !pto.tile<16x16xf32, layout=cube_m16>
  return %d : !pto.tile<16x16xf32, layout=cube_m16>
}
func.func @gemv_s8(%a: !pto.tile<1x64xsi8, layout=cube_m16>, %b: !pto.tile<64x32xsi8, layout=cube_n8>) -> !pto.tile<1x32xsi32, layout=cube_m16> {
  %d = "pto.tgemv"(%a, %b) : (!pto.tile<1x64xsi8, layout=cube_m16>, !pto.tile<64x32xsi8, layout=cube_n8>) -> !pto.tile<1x32xsi32, layout=cube_m16>
  return %d : !pto.tile<1x32xsi32, layout=cube_m16>
}
func.func @acc_bf16_m32(%c: !pto.tile<32x8xf32, layout=cube_m32>, %a: !pto.tile<32x16xbf16, layout=cube_m32>, %b: !pto.tile<16x8xbf16, layout=cube_n8>) -> !pto.tile<32x8xf32, layout=cube_m32> {
  %d = "pto.tmatmul_acc"(%c, %a, %b) : (!pto.tile<32x8xf32, layout=cube_m32>, !pto.tile<32x16xbf16, layout=cube_m32>, !pto.tile<16x8xbf16, layout=cube_n8>) -> !pto.tile<32x8xf32, layout=cube_m32>
  return %d : !pto.tile<32x8xf32, layout=cube_m32>
}
func.func @ragged_u8(%a: !pto.tile<5x7xui8, layout=cube_m16>, %b: !pto.tile<7x3xui8, layout=cube_n8>) -> !pto.tile<5x3xui32, layout=cube_m16> {
  %d = "pto.tmatmul"(%a, %b) : (!pto.tile<5x7xui8, layout=cube_m16>, !pto.tile<7x3xui8, layout=cube_n8>) -> !pto.tile<5x3xui32, layout=cube_m16>
  return %d : !pto.tile<5x3xui32, layout=cube_m16>
}
