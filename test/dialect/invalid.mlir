// Every import error, one case per chunk, each at its own location.
// RUN: ptoc %s --split-input-file --verify-diagnostics --emit=mlir

func.func @unknown_op(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x1xf32> {
  // expected-error@+1 {{unknown op 'pto.trowmaxx'; did you mean 'pto.trowmax'?}}
  %m = "pto.trowmaxx"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  return %m : !pto.tile<16x1xf32>
}

// -----

func.func @too_few_operands(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{'pto.trowexpandmax' takes 2 operands (source, broadcast), got 1}}
  %r = "pto.trowexpandmax"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// -----

func.func @too_many_operands(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x1xf32> {
  // expected-error@+1 {{'pto.trowsum' takes 1 operand (source), got 2}}
  %r = "pto.trowsum"(%x, %x) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  return %r : !pto.tile<16x1xf32>
}

// -----

func.func @two_results(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x1xf32> {
  // expected-error@+1 {{'pto.trowsum' produces 1 result, got 2}}
  %r:2 = "pto.trowsum"(%x) : (!pto.tile<16x64xf32>) -> (!pto.tile<16x1xf32>, !pto.tile<16x1xf32>)
  return %r#0 : !pto.tile<16x1xf32>
}

// -----

func.func @bad_element_type(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{malformed tile type '!pto.tile<16x1xf33>' of the result of 'pto.trowsum': unknown element type 'f33'}}
  %r = "pto.trowsum"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf33>
  return %x : !pto.tile<16x64xf32>
}

// -----

func.func @bad_pad(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{unknown pad 'one'; expected zero, max, min or null}}
  %r = "pto.texp"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32, pad=one>
  return %x : !pto.tile<16x64xf32>
}

// -----

// expected-error@+1 {{malformed tile type '!pto.tile<0x64xf32>' of argument #0: row count must be at least 1}}
func.func @bad_argument_type(%x: !pto.tile<0x64xf32>) {
  return
}

// -----

// A scalar argument makes a GM kernel (design §10); a type neither kind of kernel takes is refused.
// expected-error@+1 {{argument #0 has type 'complex<f32>'; a GM kernel's values are memref<RxCxT>, !pto.tile<RxCxT> and scalars}}
func.func @complex_argument(%x: complex<f32>) {
  return
}

// -----

func.func @other_dialect(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{cannot lower 'test.constant': ptoc compiles pto.* tile ops and func.return}}
  %c = "test.constant"() {value = 1.0 : f32} : () -> f32
  return %x : !pto.tile<16x64xf32>
}

// -----

// expected-error@+1 {{cannot lower 'test.global' at module level; ptoc compiles func.func kernels}}
"test.global"() : () -> ()

// -----

// expected-error@+1 {{function '@declared' has no body; ptoc compiles kernel definitions}}
func.func private @declared(%x: !pto.tile<16x64xf32>)

// -----

// expected-error@+1 {{function '@branches' has several blocks; a tile kernel is one straight-line block}}
func.func @branches(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  "test.br"()[^bb1] : () -> ()
^bb1:
  return %x : !pto.tile<16x64xf32>
}

// -----

func.func @mlir_syntax_error(%x: !pto.tile<16x64xf32>) {
  // expected-error@+1 {{expected ':' followed by operation type}}
  %r = "pto.texp"(%x)
  return
}

// -----

func.func @return_type_mismatch(%x: !pto.tile<16x64xf32>) -> !pto.tile<8x64xf32> {
  // expected-error@+1 {{type of return operand 0 ('!pto.tile<16x64xf32>') doesn't match function result type ('!pto.tile<8x64xf32>')}}
  return %x : !pto.tile<16x64xf32>
}

// -----

func.func @float_attribute(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{attribute 'pto.rows' must be an integer or a string, got '1.500000e+00 : f64'}}
  %e = "pto.texp"(%x) {pto.rows = 1.5} : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %e : !pto.tile<16x64xf32>
}

// -----

func.func @foreign_attribute(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{'pto.texp' has no attribute 'note'; pto ops take only pto.* attributes such as pto.dst}}
  %e = "pto.texp"(%x) {note = "hi"} : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %e : !pto.tile<16x64xf32>
}
