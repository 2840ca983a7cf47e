// pto-verify on the matrix ops and the tile-type parser on CUBE layouts: one refusal per chunk,
// each at its own location, naming what is wrong and what would be right (docs/isa.md §18.4).
// RUN: ptoc %s --split-input-file --pass-pipeline=pto-verify --verify-diagnostics

// expected-note@+1 {{%a defined here}}
func.func @a_in_n8(%a: !pto.tile<16x32xf32, layout=cube_n8>, %b: !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16> {
  // expected-error@+1 {{'pto.tmatmul' op left matrix operand #0 %a is a cube_n8 tile; load the left matrix with layout=cube_m16 (M ≤ 16) or layout=cube_m32 [layout, Fault_TileLegality]}}
  %d = "pto.tmatmul"(%a, %b) : (!pto.tile<16x32xf32, layout=cube_n8>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  return %d : !pto.tile<16x32xf32, layout=cube_m16>
}

// -----

// expected-note@+1 {{%a defined here}}
func.func @a_row_major(%a: !pto.tile<16x32xf32>, %b: !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16> {
  // expected-error@+1 {{'pto.tmatmul' op left matrix operand #0 %a is a norm tile; load the left matrix with layout=cube_m16 (M ≤ 16) or layout=cube_m32 [layout, Fault_TileLegality]}}
  %d = "pto.tmatmul"(%a, %b) : (!pto.tile<16x32xf32>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  return %d : !pto.tile<16x32xf32, layout=cube_m16>
}

// -----

// expected-note@+1 {{%b defined here}}
func.func @b_in_m16(%a: !pto.tile<16x16xf32, layout=cube_m16>, %b: !pto.tile<16x32xf32, layout=cube_m16>) -> !pto.tile<16x32xf32, layout=cube_m16> {
  // expected-error@+1 {{'pto.tmatmul' op right matrix operand #1 %b is a cube_m16 tile; load the right matrix with layout=cube_n8 [layout, Fault_TileLegality]}}
  %d = "pto.tmatmul"(%a, %b) : (!pto.tile<16x16xf32, layout=cube_m16>, !pto.tile<16x32xf32, layout=cube_m16>) -> !pto.tile<16x32xf32, layout=cube_m16>
  return %d : !pto.tile<16x32xf32, layout=cube_m16>
}

// -----

// expected-error@+1 {{malformed tile type '!pto.tile<32x32xf32, layout=cube_m16>' of argument #0: cube_m16 cannot hold a 32x32 tile of f32 (at most 16 rows in cube_m16, 32 in cube_m32)}}
func.func @a_too_tall(%a: !pto.tile<32x32xf32, layout=cube_m16>, %b: !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<32x32xf32, layout=cube_m16> {
  %d = "pto.tmatmul"(%a, %b) : (!pto.tile<32x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<32x32xf32, layout=cube_m16>
  return %d : !pto.tile<32x32xf32, layout=cube_m16>
}

// -----

// expected-note@+1 {{%b defined here}}
func.func @k_mismatch(%a: !pto.tile<16x32xf32, layout=cube_m16>, %b: !pto.tile<16x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16> {
  // expected-error@+1 {{'pto.tmatmul' op right matrix operand #1 %b has 16 valid rows, but the left matrix has K = 32 columns [matrix-shape, Fault_TileLegality]}}
  %d = "pto.tmatmul"(%a, %b) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<16x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  return %d : !pto.tile<16x32xf32, layout=cube_m16>
}

// -----

func.func @f16_result(%a: !pto.tile<16x32xf16, layout=cube_m16>, %b: !pto.tile<32x32xf16, layout=cube_n8>) -> !pto.tile<16x32xf16, layout=cube_m16> {
  // expected-error@+1 {{'pto.tmatmul' op result is !pto.tile<16x32xf16, layout=cube_m16>; a product of FP16 is valid 16x32 of FP32 in cube_m16; make it !pto.tile<16x32xf32, layout=cube_m16> [matrix-shape, Fault_TileLegality]}}
  %d = "pto.tmatmul"(%a, %b) : (!pto.tile<16x32xf16, layout=cube_m16>, !pto.tile<32x32xf16, layout=cube_n8>) -> !pto.tile<16x32xf16, layout=cube_m16>
  return %d : !pto.tile<16x32xf16, layout=cube_m16>
}

// -----

func.func @result_shape(%a: !pto.tile<16x32xf32, layout=cube_m16>, %b: !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x16xf32, layout=cube_m16> {
  // expected-error@+1 {{'pto.tmatmul' op result is !pto.tile<16x16xf32, layout=cube_m16>; a product of FP32 is valid 16x32 of FP32 in cube_m16; make it !pto.tile<16x32xf32, layout=cube_m16> [matrix-shape, Fault_TileLegality]}}
  %d = "pto.tmatmul"(%a, %b) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x16xf32, layout=cube_m16>
  return %d : !pto.tile<16x16xf32, layout=cube_m16>
}

// -----

func.func @result_pad(%a: !pto.tile<16x32xf32, layout=cube_m16>, %b: !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, pad=zero, layout=cube_m16> {
  // expected-error@+1 {{'pto.tmatmul' op result is !pto.tile<16x32xf32, pad=zero, layout=cube_m16>; a product writes no pad; make it !pto.tile<16x32xf32, layout=cube_m16> [matrix-shape, Fault_TileLegality]}}
  %d = "pto.tmatmul"(%a, %b) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, pad=zero, layout=cube_m16>
  return %d : !pto.tile<16x32xf32, pad=zero, layout=cube_m16>
}

// -----

// expected-note@+1 {{%b defined here}}
func.func @mixed_classes(%a: !pto.tile<16x32xf16, layout=cube_m16>, %b: !pto.tile<32x32xsi8, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16> {
  // expected-error@+1 {{'pto.tmatmul' op right matrix operand #1 %b has DataType S8, not a matrix type of the left matrix's class (FP16); multiply floats by floats, signed by signed, unsigned by unsigned integers [data-type, Fault_TileLegality]}}
  %d = "pto.tmatmul"(%a, %b) : (!pto.tile<16x32xf16, layout=cube_m16>, !pto.tile<32x32xsi8, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  return %d : !pto.tile<16x32xf32, layout=cube_m16>
}

// -----

// expected-error@+2 {{malformed tile type '!pto.tile<16x32xf64, layout=cube_m16>' of argument #0: f64 has no CUBE layout; matrix tiles hold 1-, 2- and 4-byte types}}
// expected-error@+1 {{malformed tile type '!pto.tile<32x32xf64, layout=cube_n8>' of argument #1: f64 has no CUBE layout; matrix tiles hold 1-, 2- and 4-byte types}}
func.func @f64_inputs(%a: !pto.tile<16x32xf64, layout=cube_m16>, %b: !pto.tile<32x32xf64, layout=cube_n8>) -> !pto.tile<16x32xf64, layout=cube_m16> {
  %d = "pto.tmatmul"(%a, %b) : (!pto.tile<16x32xf64, layout=cube_m16>, !pto.tile<32x32xf64, layout=cube_n8>) -> !pto.tile<16x32xf64, layout=cube_m16>
  return %d : !pto.tile<16x32xf64, layout=cube_m16>
}

// -----

// expected-note@+1 {{%c defined here}}
func.func @acc_type(%c: !pto.tile<16x32xf16, layout=cube_m16>, %a: !pto.tile<16x32xf16, layout=cube_m16>, %b: !pto.tile<32x32xf16, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16> {
  // expected-error@+1 {{'pto.tmatmul_acc' op accumulator operand #0 %c is !pto.tile<16x32xf16, layout=cube_m16>; it must be valid 16x32 of FP32 in cube_m16 [matrix-shape, Fault_TileLegality]}}
  %d = "pto.tmatmul_acc"(%c, %a, %b) : (!pto.tile<16x32xf16, layout=cube_m16>, !pto.tile<16x32xf16, layout=cube_m16>, !pto.tile<32x32xf16, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  return %d : !pto.tile<16x32xf32, layout=cube_m16>
}

// -----

// expected-note@+1 {{%bias defined here}}
func.func @bias_layout(%a: !pto.tile<16x32xf32, layout=cube_m16>, %b: !pto.tile<32x32xf32, layout=cube_n8>, %bias: !pto.tile<1x32xf32, layout=cube_m16>) -> !pto.tile<16x32xf32, layout=cube_m16> {
  // expected-error@+1 {{'pto.tmatmul_bias' op bias operand #2 %bias is !pto.tile<1x32xf32, layout=cube_m16>; the bias is a row-major valid 1x32 tile of FP32 [matrix-shape, Fault_TileLegality]}}
  %d = "pto.tmatmul_bias"(%a, %b, %bias) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>, !pto.tile<1x32xf32, layout=cube_m16>) -> !pto.tile<16x32xf32, layout=cube_m16>
  return %d : !pto.tile<16x32xf32, layout=cube_m16>
}

// -----

// expected-note@+1 {{%bias defined here}}
func.func @bias_width(%a: !pto.tile<16x32xf32, layout=cube_m16>, %b: !pto.tile<32x32xf32, layout=cube_n8>, %bias: !pto.tile<1x16xf32>) -> !pto.tile<16x32xf32, layout=cube_m16> {
  // expected-error@+1 {{'pto.tmatmul_bias' op bias operand #2 %bias is !pto.tile<1x16xf32>; the bias is a row-major valid 1x32 tile of FP32 [matrix-shape, Fault_TileLegality]}}
  %d = "pto.tmatmul_bias"(%a, %b, %bias) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>, !pto.tile<1x16xf32>) -> !pto.tile<16x32xf32, layout=cube_m16>
  return %d : !pto.tile<16x32xf32, layout=cube_m16>
}

// -----

// expected-note@+1 {{%a defined here}}
func.func @gemv_rows(%a: !pto.tile<2x32xf32, layout=cube_m16>, %b: !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<2x32xf32, layout=cube_m16> {
  // expected-error@+1 {{'pto.tgemv' op left matrix operand #0 %a has 2 valid rows; TGEMV multiplies a 1xK row; use pto.tmatmul [matrix-shape, Fault_TileLegality]}}
  %d = "pto.tgemv"(%a, %b) : (!pto.tile<2x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<2x32xf32, layout=cube_m16>
  return %d : !pto.tile<2x32xf32, layout=cube_m16>
}

// -----

// expected-note@+1 {{%a defined here}}
func.func @cube_to_vector(%a: !pto.tile<16x32xf32, layout=cube_m16>) -> !pto.tile<16x32xf32> {
  // expected-error@+1 {{'pto.texp' op source operand #0 %a is a cube_m16 tile; TEXP reads row-major tiles only; store the matrix result to memory and load it without a layout [layout, Fault_TileLegality]}}
  %e = "pto.texp"(%a) : (!pto.tile<16x32xf32, layout=cube_m16>) -> !pto.tile<16x32xf32>
  return %e : !pto.tile<16x32xf32>
}

// -----

// expected-error@+1 {{malformed tile type '!pto.tile<16x32xf32, layout=zn>' of argument #0: unknown layout 'zn'; expected norm, cube_m16, cube_m32 or cube_n8}}
func.func @unknown_layout(%a: !pto.tile<16x32xf32, layout=zn>) {
  return
}

// -----

// expected-error@+1 {{malformed tile type '!pto.tile<16x32xf32, valid=8x32, layout=cube_m16>' of argument #0: a CUBE tile is written by its valid shape: drop 'valid=' (the layout gives the physical shape)}}
func.func @valid_with_layout(%a: !pto.tile<16x32xf32, valid=8x32, layout=cube_m16>) {
  return
}

// -----

// expected-error@+1 {{malformed tile type '!pto.tile<16x32xf32, layout=cube_m16, pad=zero>' of argument #0: 'layout=' comes last in a tile type}}
func.func @layout_not_last(%a: !pto.tile<16x32xf32, layout=cube_m16, pad=zero>) {
  return
}
