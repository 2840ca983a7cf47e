// Every refusal of the GM-kernel import, one case per chunk, each at its own location, saying
// what is wrong and what ptoc accepts.
// RUN: ptoc %s --split-input-file --verify-diagnostics --emit=mlir --pass-pipeline=

// expected-error@+1 {{argument #0 has dynamic type 'memref<?x64xf32>'; ptoc needs a static shape such as 'memref<64x64xf32>'}}
func.func @dynamic(%x: memref<?x64xf32>) {
  return
}

// -----

// expected-error@+1 {{argument #0 has type 'memref<4x8x16xf32>' of rank 3; ptoc takes 2-D memrefs 'memref<RxCxT>'}}
func.func @rank3(%x: memref<4x8x16xf32>) {
  return
}

// -----

// expected-error@+1 {{argument #0 has type 'memref<64xf32>' of rank 1; ptoc takes 2-D memrefs 'memref<RxCxT>'}}
func.func @rank1(%x: memref<64xf32>) {
  return
}

// -----

// expected-error@+1 {{argument #0 has type 'memref<4x8xf32, strided<[16, 1]>>' with layout or memory space 'strided<[16, 1]>'; ptoc takes identity-layout row-major memrefs such as 'memref<4x8xf32>'}}
func.func @strided(%x: memref<4x8xf32, strided<[16, 1]>>) {
  return
}

// -----

// expected-error@+1 {{argument #0 has type 'memref<4x8xf32, 1>' with layout or memory space '1'}}
func.func @memory_space(%x: memref<4x8xf32, 1>) {
  return
}

// -----

// expected-error@+1 {{argument #1 has type 'vector<4xf32>'; a GM kernel's values are memref<RxCxT>, !pto.tile<RxCxT> and scalars}}
func.func @vector(%x: memref<4x8xf32>, %v: vector<4xf32>) {
  return
}

// -----

func.func @loop_over_i32(%x: memref<16x16xf32>) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{'scf.for' iterates over 'i32' (its lower bound); ptoc loops over index (write the bounds as index values)}}
  scf.for %i = %c0 to %c4 step %c1 : i32 {
  }
  return
}

// -----

func.func @float_add(%x: memref<16x16xf32>, %a: f32) {
  // expected-error@+1 {{cannot lower 'arith.addf'; supported arith ops are arith.constant, arith.addi, arith.subi, arith.muli, arith.divsi, arith.divui, arith.remsi, arith.remui, arith.minsi, arith.minui, arith.maxsi, arith.maxui, arith.andi, arith.ori, arith.xori, arith.shli, arith.shrsi, arith.shrui}}
  %b = arith.addf %a, %a : f32
  return
}

// -----

func.func @index_cast(%n: i32) {
  // expected-error@+1 {{cannot lower 'arith.index_cast'; supported arith ops are arith.constant}}
  %i = arith.index_cast %n : i32 to index
  return
}

// -----

func.func @load_dtype(%x: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'pto.tload' moves a !pto.tile<16x16xf16> between memref<16x16xf32>: the element types differ; make the tile's element type that of the memref (f32)}}
  %t = "pto.tload"(%x, %c0, %c0) : (memref<16x16xf32>, index, index) -> !pto.tile<16x16xf16>
  return
}

// -----

func.func @store_dtype(%x: memref<16x16xi32>, %t: !pto.tile<16x16xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'pto.tstore' moves a !pto.tile<16x16xf32> between memref<16x16xi32>: the element types differ; make the tile's element type that of the memref (i32)}}
  "pto.tstore"(%t, %x, %c0, %c0) : (!pto.tile<16x16xf32>, memref<16x16xi32>, index, index) -> ()
  return
}

// -----

func.func @load_offset_type(%x: memref<16x16xf32>, %r: i32) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'pto.tload' offset operand #1 has type 'i32'; row and column offsets are index values}}
  %t = "pto.tload"(%x, %r, %c0) : (memref<16x16xf32>, i32, index) -> !pto.tile<16x16xf32>
  return
}

// -----

func.func @load_arity(%x: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'pto.tload' takes 3 operand(s) (memref, row, column) and produces a tile with 1 result(s) and no regions, got 2 operand(s) and 1 result(s)}}
  %t = "pto.tload"(%x, %c0) : (memref<16x16xf32>, index) -> !pto.tile<16x16xf32>
  return
}

// -----

func.func @scalar_into_tile_op(%x: memref<16x16xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %t = "pto.tload"(%x, %c0, %c0) : (memref<16x16xf32>, index, index) -> !pto.tile<16x16xf32>
  // expected-error@+1 {{'pto.tadd' operand #1 has type 'f32'; TADD takes tiles}}
  %r = "pto.tadd"(%t, %s) : (!pto.tile<16x16xf32>, f32) -> !pto.tile<16x16xf32>
  return
}

// -----

func.func @unknown_in_loop(%x: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 {
    %t = "pto.tload"(%x, %i, %c0) : (memref<16x16xf32>, index, index) -> !pto.tile<16x16xf32>
    // expected-error@+1 {{unknown op 'pto.taddd'; did you mean 'pto.tadd'?}}
    %r = "pto.taddd"(%t, %t) : (!pto.tile<16x16xf32>, !pto.tile<16x16xf32>) -> !pto.tile<16x16xf32>
  }
  return
}

// -----

func.func @other_dialect(%x: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{cannot lower 'memref.load' in a kernel over global memory: ptoc compiles pto.* tile ops, pto.tload, pto.tstore, scf.for, scf.yield, arith.constant}}
  %v = "memref.load"(%x, %c0, %c0) : (memref<16x16xf32>, index, index) -> f32
  return
}

// -----

func.func @float_constant_type(%x: memref<16x16xf32>) {
  // expected-error@+1 {{'arith.constant' 1.000000e+00 : tf32: ptoc takes index, integer, f64, f32, f16 and bf16 scalar constants}}
  %c = arith.constant 1.0 : tf32
  return
}

// -----

func.func @tile_scalar_type(%x: memref<16x16xf32>, %s: f16) {
  %c0 = arith.constant 0 : index
  %t = "pto.tload"(%x, %c0, %c0) : (memref<16x16xf32>, index, index) -> !pto.tile<16x16xf32>
  // expected-error@+1 {{'pto.tadds' scalar operand #1 has type 'f16'; it must be the tile's element type f32}}
  %r = "pto.tadds"(%t, %s) : (!pto.tile<16x16xf32>, f16) -> !pto.tile<16x16xf32>
  return
}

// -----

func.func @tile_scalar_missing(%x: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %t = "pto.tload"(%x, %c0, %c0) : (memref<16x16xf32>, index, index) -> !pto.tile<16x16xf32>
  // expected-error@+1 {{'pto.tmuls' takes 2 operands (source, scalar), got 1}}
  %r = "pto.tmuls"(%t) : (!pto.tile<16x16xf32>) -> !pto.tile<16x16xf32>
  return
}

// -----

func.func @texpands_type(%x: memref<16x16xi32>, %s: f32) {
  // expected-error@+1 {{'pto.texpands' scalar operand #0 has type 'f32'; it must be the tile's element type i32}}
  %f = "pto.texpands"(%s) : (f32) -> !pto.tile<16x16xi32>
  return
}

// -----

// expected-error@+1 {{argument #1 is marked {pto.workspace} but is not a memref; a workspace is GM memory}}
func.func @scalar_workspace(%x: memref<4x8xf32>, %n: index {pto.workspace}) {
  return
}

// -----

// expected-error@+1 {{argument #0 is marked {pto.workspace} but an argument follows it; workspaces come after every argument}}
func.func @workspace_first(%w: memref<4x8xf32> {pto.workspace}, %x: memref<4x8xf32>) {
  return
}
