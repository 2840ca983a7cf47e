// ptoc run takes a predicate argument as a numpy bool array (descr '|b1', written by hand in
// Inputs/bool_2x3_mask.npy: [[True, False, True], [False, False, True]]) as well as uint8 0/1
// (a uint8 file of other values is refused).
// TSEL of [[1, 2, 3], [4, 5, 6]] and their negations picks 1, -2, 3 / -4, -5, 6. A bool file
// for a numeric tile is refused with the dtypes that would do.
// RUN: ptoc run %s --arg p=%S/Inputs/bool_2x3_mask.npy --arg a=%S/Inputs/s8_2x3_pos.npy --arg b=%S/Inputs/s8_2x3_neg.npy | FileCheck %s
// RUN: not ptoc run %s --arg p=%S/Inputs/u8_2x3_250.npy --arg a=%S/Inputs/s8_2x3_pos.npy --arg b=%S/Inputs/s8_2x3_neg.npy 2>&1 | FileCheck %s --check-prefix=BIT
// RUN: not ptoc run %s --arg p=%S/Inputs/bool_2x3_mask.npy --arg a=%S/Inputs/bool_2x3_mask.npy --arg b=%S/Inputs/s8_2x3_neg.npy 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: kernel pick: ok, flags 0x00{{$}}
// CHECK-NEXT: r0 = {{.*}} S8 {{.*}}(valid 2x3)
// CHECK-NEXT:   [1, -2, 3]
// CHECK-NEXT:   [-4, -5, 6]
// BIT: error: argument 'p' (PRED 32x4 valid 2x3 in T#1): a predicate element is 0 or 1, not 250
// ERR: error: {{.*}}bool_2x3_mask.npy for argument 'a' {{.*}}: dtype '|b1' does not match S8: give int8 values or uint8 bit patterns
func.func @pick(%p: !pto.tile<2x4xi1, valid=2x3>, %a: !pto.tile<2x4xsi8, valid=2x3>, %b: !pto.tile<2x4xsi8, valid=2x3>) -> !pto.tile<2x4xsi8, valid=2x3> {
  %r = "pto.tsel"(%p, %a, %b) : (!pto.tile<2x4xi1, valid=2x3>, !pto.tile<2x4xsi8, valid=2x3>, !pto.tile<2x4xsi8, valid=2x3>) -> !pto.tile<2x4xsi8, valid=2x3>
  return %r : !pto.tile<2x4xsi8, valid=2x3>
}
