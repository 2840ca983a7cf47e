; Tile-scalar ops in a hand-written GM kernel (docs/isa.md §14): each scalar argument reaches its
; op through B.IOR RegSrc0. x = arange(32)/2 - 3 as 4x8, so x[r][c] = (8r+c)/2 - 3.
;   out     = min(max(x * alpha + beta, 0), hi)   (TMULS, TADDS, TMAXS without B.IOR: +0.0, TMINS)
;   shifted = (x - beta) / alpha                   (TSUBS, TDIVS on x, still in the queue as T#5)
;   fill    = hi in every element                  (TEXPANDS)
; With alpha = 0.5, beta = -1, hi = 4 (values computed by hand): x*alpha + beta = (8r+c)/4 - 2.5,
; clamped to [0, 4]; shifted = 2x + 2 = 8r + c - 4; every result is exact (flags 0). alpha = 0
; divides by +0: (x+1)/0 is -inf, NaN (0/0 at x = -1) or +inf, raising NV|DZ = 0x03.
; RUN: ptoc asm %s -o %t.bin
; RUN: ptoc run %t.bin --arg x=%S/Inputs/f32_4x8_x.npy --arg alpha=0.5 --arg beta=-1 --arg hi=4 | FileCheck %s
; RUN: ptoc run %t.bin --arg x=%S/Inputs/f32_4x8_x.npy --arg alpha=0x3f000000 --arg beta=0xbf800000 --arg hi=4 | FileCheck %s
; RUN: ptoc run %t.bin --arg x=%S/Inputs/f32_4x8_x.npy --arg alpha=0 --arg beta=-1 --arg hi=4 | FileCheck %s --check-prefix=DZ
; RUN: ptoc run %t.bin --arg x=%S/Inputs/f32_4x8_x.npy --arg alpha=0 --arg beta=-1 --arg hi=4 --format json | FileCheck %s --check-prefix=BITS
; RUN: ptoc disasm %t.bin | FileCheck %s --check-prefix=ASM
;
; CHECK:      kernel clamp_affine: ok, flags 0x00
; CHECK-NEXT: out = memref FP32 4x8
; CHECK-NEXT:   [0, 0, 0, 0, 0, 0, 0, 0]
; CHECK-NEXT:   [0, 0, 0, 0.25, 0.5, 0.75, 1, 1.25]
; CHECK-NEXT:   [1.5, 1.75, 2, 2.25, 2.5, 2.75, 3, 3.25]
; CHECK-NEXT:   [3.5, 3.75, 4, 4, 4, 4, 4, 4]
; CHECK-NEXT: shifted = memref FP32 4x8
; CHECK-NEXT:   [-4, -3, -2, -1, 0, 1, 2, 3]
; CHECK-NEXT:   [4, 5, 6, 7, 8, 9, 10, 11]
; CHECK-NEXT:   [12, 13, 14, 15, 16, 17, 18, 19]
; CHECK-NEXT:   [20, 21, 22, 23, 24, 25, 26, 27]
; CHECK-NEXT: fill = memref FP32 1x8
; CHECK-NEXT:   [4, 4, 4, 4, 4, 4, 4, 4]
;
; DZ:      kernel clamp_affine: ok, flags 0x03
; DZ:      shifted = memref FP32 4x8
; DZ-NEXT:   [-inf, -inf, -inf, -inf, NaN, inf, inf, inf]
; DZ-NEXT:   [inf, inf, inf, inf, inf, inf, inf, inf]
;
; The NaN is FP32's canonical NaN (docs/isa.md §5.2):
; BITS: "name":"shifted","dtype":"FP32","rows":4,"cols":8,"elements":["0xff800000","0xff800000","0xff800000","0xff800000","0x7fc00000","0x7f800000"
;
; ASM:      BSTART.VEC TMULS, FP32
; ASM:      B.IOT T#1, mask=1111, last, ->T<1>
; ASM-NEXT: B.IOR a2, zero, zero, ->zero
; ASM:      BSTART.SFU TDIVS, FP32
; ASM:      BSTART.VEC TEXPANDS, FP32
; ASM-NEXT: B.DIM LB0=8
; ASM-NEXT: B.IOT mask=1111, last, ->T<1>
; ASM-NEXT: B.IOR a4, zero, zero, ->zero

.kernel clamp_affine
.profile queue
.memref x, a0, FP32, 4x8, pos=0
.memref out, a1, FP32, 4x8, pos=1, stored
.scalar alpha, a2, FP32, pos=2
.scalar beta, a3, FP32, pos=3
.scalar hi, a4, FP32, pos=4
.memref shifted, a5, FP32, 4x8, pos=5, stored
.memref fill, a6, FP32, 1x8, pos=6, stored

BSTART.STD FALL
addi zero, 32, ->s1
BSTOP
BSTART.TLOAD FP32
B.DIM LB0=8
B.DIM LB1=4
B.IOT mask=1111, last, ->T<1>
B.IOR a0, s1, zero, ->zero
BSTOP
BSTART.VEC TMULS, FP32
B.DIM LB0=8
B.DIM LB1=4
B.IOT T#1, mask=1111, last, ->T<1>
B.IOR a2, zero, zero, ->zero
BSTOP
BSTART.VEC TADDS, FP32
B.DIM LB0=8
B.DIM LB1=4
B.IOT T#1, mask=1111, last, ->T<1>
B.IOR a3
BSTOP
BSTART.VEC TMAXS, FP32
B.DIM LB0=8
B.DIM LB1=4
B.IOT T#1, mask=1111, last, ->T<1>
BSTOP
BSTART.VEC TMINS, FP32
B.DIM LB0=8
B.DIM LB1=4
B.IOT T#1, mask=1111, last, ->T<1>
B.IOR a4
BSTOP
BSTART.TSTORE FP32
B.IOT T#1, mask=1111, last
B.IOR a1, s1, zero, ->zero
BSTOP
BSTART.VEC TSUBS, FP32
B.DIM LB0=8
B.DIM LB1=4
B.IOT T#5, mask=1111, last, ->T<1>
B.IOR a3
BSTOP
BSTART.SFU TDIVS, FP32
B.DIM LB0=8
B.DIM LB1=4
B.IOT T#1, mask=1111, last, ->T<1>
B.IOR a2
BSTOP
BSTART.TSTORE FP32
B.IOT T#1, mask=1111, last
B.IOR a5, s1, zero, ->zero
BSTOP
BSTART.VEC TEXPANDS, FP32
B.DIM LB0=8
B.IOT mask=1111, last, ->T<1>
B.IOR a4
BSTOP
BSTART.TSTORE FP32
B.IOT T#1, mask=1111, last
B.IOR a6, zero, zero, ->zero
BSTOP
