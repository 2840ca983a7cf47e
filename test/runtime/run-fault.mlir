// An integer division by a zero broadcast element faults before any effect (docs/isa.md §1.3): the run
// reports the fault class, bundle and reason, prints no results and exits 1. With no zero it runs:
// S32 division truncates toward zero.
// RUN: not ptoc run %s --target-profile=absolute --arg n=%S/Inputs/s32_2x4_num.npy --arg d=%S/Inputs/s32_2x1_den_zero.npy --format json | FileCheck %s --check-prefix=FAULT
// RUN: ptoc run %s --target-profile=absolute --arg n=%S/Inputs/s32_2x4_num.npy --arg d=%S/Inputs/s32_2x1_den.npy | FileCheck %s --check-prefix=OK
// RUN: not ptoc run %s --target-profile=absolute --arg n=%S/Inputs/s32_2x4_num.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not ptoc run %s --target-profile=absolute --arg n=%S/Inputs/s32_2x4_num.npy --arg d=%S/Inputs/u8_2x1_10.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not ptoc run %s --target-profile=absolute --arg q=%S/Inputs/s32_2x4_num.npy 2>&1 | FileCheck %s --check-prefix=NAME

// FAULT: {"kernel":"div","status":"fault","flags":"0x00","fault":{"class":"Fault_TileLegality","bundle":0,"message":"{{.*}}zero{{.*}}"},"results":[]}
// OK: kernel div: ok
// OK-NEXT: r0 = T#3 S32
// OK-NEXT: [3, -3, 50, -64]
// OK-NEXT: [0, 0, -1, -1]
// MISSING: error: no --arg for 'd' (S32 {{[0-9]+}}x1 valid 2x1 in T#2)
// DTYPE: error: {{.*}}u8_2x1_10.npy for argument 'd' {{.*}}: dtype '|u1' does not match S32: give int32 values or uint32 bit patterns
// NAME: error: kernel 'div' has no argument 'q'; its arguments: 'n' (S32 {{.*}}), 'd' (S32
func.func @div(%n: !pto.tile<2x4xsi32>, %d: !pto.tile<2x1xsi32>) -> !pto.tile<2x4xsi32> {
  %r = "pto.trowexpanddiv"(%n, %d) : (!pto.tile<2x4xsi32>, !pto.tile<2x1xsi32>) -> !pto.tile<2x4xsi32>
  return %r : !pto.tile<2x4xsi32>
}
// RUN: not ptoc run %s --target-profile=absolute --arg n=%S/Inputs/s32_2x4_num.npy --arg 0=%S/Inputs/s32_2x4_num.npy 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: argument 'n' (S32 {{.*}}) is given twice
// RUN: not ptoc %s --target-profile=absolute --pe-mask=0000 2>&1 | FileCheck %s --check-prefix=MASK
// MASK: 0000 makes every bundle a no-op
