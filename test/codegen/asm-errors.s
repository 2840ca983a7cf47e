; Assembler errors name file:line:col of the offending token, and every bad line is reported.
; RUN: not ptoc asm %s -o %t.bin 2>&1 | FileCheck %s -DFILE=%s

; CHECK: [[FILE]]:[[@LINE+1]]:12: error: TDIV runs on the SFU engine: write BSTART.SFU TDIV
BSTART.VEC TDIV, FP32
; CHECK: [[FILE]]:[[@LINE+1]]:17: error: PE mask '0011' cannot be encoded
B.IOT T#1, mask=0011, last
; CHECK: [[FILE]]:[[@LINE+1]]:11: error: dimension must be a number in 0..=131071
B.DIM LB0=131072
; CHECK: [[FILE]]:[[@LINE+1]]:1: error: unknown mnemonic or directive 'B.FROB'
B.FROB T#1
; CHECK: [[FILE]]:[[@LINE+1]]:25: error: destination register numbers cannot be encoded
B.IOT T#1, mask=1111, ->T0<1>
; CHECK: [[FILE]]:[[@LINE+1]]:16: error: Mode 0 Function 5 is not an accepted TEPL selector
BSTART.TEPL 0, 5, FP32
