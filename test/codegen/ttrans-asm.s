; TTRANS in assembly (docs/isa.md §7, §19): the compatibility form BSTART.TEPL 3, 14 and the
; spec's B.DIM spellings print back canonically as BSTART.SFU TTRANS; an object survives
; disassembly and re-assembly byte for byte; the VEC alias is refused, with its location.
; RUN: ptoc asm %s -o %t.bin
; RUN: ptoc disasm %t.bin | FileCheck %s
; RUN: ptoc disasm %t.bin > %t.s
; RUN: ptoc asm %t.s -o %t2.bin
; RUN: cmp %t.bin %t2.bin
; RUN: ptoc run %t.bin --arg x=%S/../runtime/Inputs/u16_2x3_1to6.npy | FileCheck %s --check-prefix=EXEC
; RUN: not ptoc asm %S/Inputs/ttrans-vec.s -o %t3.bin 2>&1 | FileCheck %s --check-prefix=ERR

.kernel trans
.profile absolute
.arg x, T#1, U16, 16x4, valid=2x3, size=1, pad=Null
.result r0, T#2, U16, 32x2, valid=3x2, size=1, pad=Null

; CHECK:      .kernel trans
; CHECK:      BSTART.SFU TTRANS, U16
; CHECK-NEXT: B.DIM LB0=2
; CHECK-NEXT: B.DIM LB1=3
; CHECK-NEXT: B.DIM LB2=2
; CHECK-NEXT: B.IOT T#1, mask=1111, last, ->T<1>
; CHECK-NEXT: BSTOP
BSTART.TEPL 3, 14, U16
B.DIM zero, 2, ->LB0; B.DIM LB1, 3; B.DIM zero, 2, ->LB2
B.IOT T#1, mask=1111, <last>, ->T<1>
BSTOP

; EXEC:      kernel trans: ok, flags 0x00
; EXEC-NEXT: r0 = T#2 U16 32x2 (valid 3x2)
; EXEC-NEXT:   [1, 4]
; EXEC-NEXT:   [2, 5]
; EXEC-NEXT:   [3, 6]

; ERR: ttrans-vec.s:2:12: error: TTRANS runs on the SFU engine: write BSTART.SFU TTRANS
