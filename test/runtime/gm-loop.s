; A kernel over global memory, written by hand: for i < n, out[i, :] = x[i, :] + x[i, :], one
; 8-column FP32 row per iteration (TLOAD, TADD, TSTORE in a loop of standard blocks, queue
; naming so every iteration names the same T#1). x = arange(32)/2 - 3 as 4x8, so 2x of row r
; is 8r-6 .. 8r+1 (computed by hand). Rows at and past n stay zero; n = 5 reads past x and
; faults precisely with the element's GM address; a scalar that is not a number is refused.
; RUN: ptoc asm %s -o %t.bin
; RUN: ptoc run %t.bin --arg x=%S/Inputs/f32_4x8_x.npy --arg n=3 | FileCheck %s
; RUN: rm -rf %t.d && ptoc run %t.bin --arg x=%S/Inputs/f32_4x8_x.npy --arg n=3 --out-dir %t.d && ls %t.d | FileCheck %s --check-prefix=FILES
; RUN: rm -rf %t.d && ptoc run %t.bin --arg x=%S/Inputs/f32_4x8_x.npy --arg n=3 --out-dir %t.d | FileCheck %s --check-prefix=WRITTEN
; RUN: not ptoc run %t.bin --arg x=%S/Inputs/f32_4x8_x.npy --arg n=5 --format json | FileCheck %s --check-prefix=FAULT
; RUN: not ptoc run %t.bin --arg x=%S/Inputs/f32_4x8_x.npy --arg n=abc 2>&1 | FileCheck %s --check-prefix=BAD
;
; CHECK:      kernel double_rows: ok, flags 0x00
; CHECK-NEXT: out = memref FP32 4x8
; CHECK-NEXT:   [-6, -5, -4, -3, -2, -1, 0, 1]
; CHECK-NEXT:   [2, 3, 4, 5, 6, 7, 8, 9]
; CHECK-NEXT:   [10, 11, 12, 13, 14, 15, 16, 17]
; CHECK-NEXT:   [0, 0, 0, 0, 0, 0, 0, 0]
; FILES: out.npy
; WRITTEN:      kernel double_rows: ok, flags 0x00
; WRITTEN-NEXT: out = memref FP32 4x8, written to {{.*}}out.npy
; WRITTEN-NOT:  [
; FAULT: "status":"fault"
; FAULT-SAME: "class":"Fault_DataPage","bundle":17,"address":"0x10080"
; BAD: error: argument 'n' (index in a2): 'abc' is not an integer

.kernel double_rows
.profile queue
.memref x, a0, FP32, 4x8, pos=0
.memref out, a1, FP32, 4x8, pos=1, stored
.scalar n, a2, index, pos=2

BSTART.STD COND, .+104
addi zero, 0, ->s0
addi a0, 0, ->x0
addi a1, 0, ->x1
addi zero, 32, ->s1
setc.ge s0, a2
BSTOP
BSTART.TLOAD FP32
B.DIM LB0=8
B.IOT mask=1111, last, ->T<1>
B.IOR x0, s1, zero, ->zero
BSTOP
BSTART.VEC TADD, FP32
B.DIM LB0=8
B.IOT T#1, T#1, mask=1111, last, ->T<1>
BSTOP
BSTART.TSTORE FP32
B.IOT T#1, mask=1111, last
B.IOR x1, s1, zero, ->zero
BSTOP
BSTART.STD COND, .-52
addi s0, 1, ->s0
add a0, s0<<5, ->x0
add a1, s0<<5, ->x1
setc.lt s0, a2
BSTOP
