; The assembler accepts the spec's spellings and prints them back canonically; an object survives
; disassembly and re-assembly byte for byte.
; RUN: ptoc asm %s -o %t.bin
; RUN: ptoc disasm %t.bin | FileCheck %s
; RUN: ptoc disasm %t.bin > %t.s
; RUN: ptoc asm %t.s -o %t2.bin
; RUN: cmp %t.bin %t2.bin

.kernel variants
.arg x, T#1, FP16, 64x2, valid=32x2, size=2, pad=Null

; CHECK:      .kernel variants
; CHECK-NEXT: .pe_mask 1111
; CHECK:      .arg x, T#1, FP16, 64x2, valid=32x2, size=2, pad=Null
BSTART.TEPL 2, 11, FP16; B.DATR FP32, Null; B.DIM zero, 2, ->LB0; B.DIM LB1, 32
B.IOT T#1, T#2, mask=1111, <last>, ->T<2>
BSTOP
; CHECK:      BSTART.SFU TROWEXPANDEXPDIF, FP16
; CHECK-NEXT: B.DATR DataType=FP32, PadValue=Null
; CHECK-NEXT: B.DIM LB0=2
; CHECK-NEXT: B.DIM LB1=32
; CHECK-NEXT: B.IOT T#1, T#2, mask=1111, last, ->T<2>
; CHECK-NEXT: BSTOP

BSTART.TEPL 3, 0, U8     // not in ptoc's catalogue: printed in TEPL form
B.DATR {NORM, FP32, Zero, None, RNE, 0, 0}
B.DIM a0, 16, ->LB0
B.IOR a0, a1
.word 0xDEADBEEF
BSTOP
; CHECK:      BSTART.TEPL 3, 0, U8
; CHECK-NEXT: B.DATR DataType=FP32, PadValue=Zero, RMode=RNE
; CHECK-NEXT: B.DIM a0, 16, ->LB0
; CHECK-NEXT: B.IOR a0, a1, zero, ->zero
; CHECK-NEXT: .word 0xDEADBEEF  ; word 0xdeadbeef
; CHECK-NEXT: BSTOP
