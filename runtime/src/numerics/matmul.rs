//! Matrix-product arithmetic: `TileProfileMatrixAccumulate` and `TileProfileMatrixBias` under the
//! profile's decision (docs/isa.md §18.3, §9 decision 51). The interpreter's CUBE commit and the
//! reference evaluator both compute through [`MatrixArith::product`], so they agree by
//! construction; `ptoc verify` checks them against the linalg program's own `mulf`/`addf`.

use super::convert::Conversion;
use super::format::FP32;
use super::{float_arith, integer, Flags};
use ptoc_isa::profile::{MatrixAccumulate, PROFILE};
use ptoc_isa::{DataType, NumericControl, TypeClass};

/// The arithmetic of one matrix op: its input types and the accumulator type they sum in.
#[derive(Clone, Copy, Debug)]
pub struct MatrixArith {
    left: DataType,
    right: DataType,
    acc: DataType,
}

/// Operand shapes of one product: `M×K · K×N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProductShape {
    /// Rows of the left operand and the result.
    pub m: usize,
    /// Columns of the right operand and the result.
    pub n: usize,
    /// The inner dimension.
    pub k: usize,
}

impl MatrixArith {
    /// The arithmetic for AType `left` and BType `right`; `None` unless both are matrix input
    /// types ptoc computes with and of one class (docs/isa.md §18.4).
    pub fn of(left: DataType, right: DataType) -> Option<MatrixArith> {
        let inputs = ptoc_isa::dtype::MATRIX_INPUTS;
        (inputs.contains(&left) && inputs.contains(&right) && left.same_matrix_class(right)).then(
            || MatrixArith {
                left,
                right,
                acc: left.matrix_accumulator(),
            },
        )
    }

    /// The accumulator type: FP32, S32 or U32.
    pub fn accumulator(&self) -> DataType {
        self.acc
    }

    /// An input element widened exactly to the accumulator type: floats convert (a signalling
    /// NaN raises NV and becomes the canonical NaN), integers sign- or zero-extend.
    fn widen(&self, from: DataType, bits: u64) -> (u64, Flags) {
        match from.class() {
            TypeClass::Float if from.bits() == 32 => (bits & 0xFFFF_FFFF, 0),
            TypeClass::Float => Conversion::of(from, DataType::FP32, NumericControl::default())
                .map_or((bits, 0), |c| c.apply(bits)),
            TypeClass::Signed => (
                integer::sign_extend(from.bits(), bits) as u64 & 0xFFFF_FFFF,
                0,
            ),
            TypeClass::Unsigned | TypeClass::Other => (bits & from.carrier_mask(), 0),
        }
    }

    /// One accumulation step: `sum + a·b` on widened operands.
    #[inline]
    fn step(&self, sum: u64, a: u64, b: u64) -> (u64, Flags) {
        match PROFILE.matrix_accumulate {
            MatrixAccumulate::ProductThenSum => {
                if self.acc == DataType::FP32 {
                    let (p, f1) = float_arith::mul(&FP32, a, b);
                    let (s, f2) = float_arith::add(&FP32, sum, p);
                    (s, f1 | f2)
                } else {
                    (integer::add(32, sum, integer::mul(32, a, b)), 0)
                }
            }
        }
    }

    /// `D = init + Σ_k A[m,k]·B[k,n] (+ bias[n])`, row-major: `left` is M×K, `right` K×N, `init`
    /// (the `_ACC` forms' C) and the result M×N, `bias` N entries; init and bias are already in
    /// the accumulator type. The sum of each element runs over k in ascending order from `init`
    /// or +0, as `TileProfileMatrixAccumulate` is called by `MatrixProductResultFromTiles`.
    pub fn product(
        &self,
        shape: ProductShape,
        left: &[u64],
        right: &[u64],
        init: Option<&[u64]>,
        bias: Option<&[u64]>,
    ) -> (Vec<u64>, Flags) {
        let ProductShape { m, n, k } = shape;
        let mut flags = 0;
        let mut widen_all = |from: DataType, values: &[u64]| -> Vec<u64> {
            values
                .iter()
                .map(|&v| {
                    let (w, f) = self.widen(from, v);
                    flags |= f;
                    w
                })
                .collect()
        };
        let a = widen_all(self.left, &left[..m * k]);
        let b = widen_all(self.right, &right[..k * n]);
        let mut out = Vec::with_capacity(m * n);
        for row in 0..m {
            let a_row = &a[row * k..(row + 1) * k];
            for col in 0..n {
                let mut sum = init.map_or(0, |c| c[row * n + col]);
                for (inner, &x) in a_row.iter().enumerate() {
                    let (s, f) = self.step(sum, x, b[inner * n + col]);
                    sum = s;
                    flags |= f;
                }
                if let Some(bias) = bias {
                    let (s, f) = self.add(sum, bias[col]);
                    sum = s;
                    flags |= f;
                }
                out.push(sum);
            }
        }
        (out, flags)
    }

    /// `TileProfileMatrixBias`: one rounded (floats) or wrapping (integers) add.
    fn add(&self, value: u64, bias: u64) -> (u64, Flags) {
        match PROFILE.matrix_accumulate {
            MatrixAccumulate::ProductThenSum if self.acc == DataType::FP32 => {
                float_arith::add(&FP32, value, bias)
            }
            MatrixAccumulate::ProductThenSum => (integer::add(32, value, bias), 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPE_2X2X2: ProductShape = ProductShape { m: 2, n: 2, k: 2 };

    fn f32s(values: &[f32]) -> Vec<u64> {
        values.iter().map(|v| v.to_bits() as u64).collect()
    }

    #[test]
    fn fp32_rounds_the_product_then_the_sum() {
        // x = 1 + 2^-12: x·x = 1 + 2^-11 + 2^-24 rounds (a tie, to even) to 1 + 2^-11, so
        // -1·1 + x·x is 2^-11; one fused rounding would keep 2^-11 + 2^-24 exactly.
        let x = 1.0f32 + 2f32.powi(-12);
        let arith = MatrixArith::of(DataType::FP32, DataType::FP32).unwrap();
        let shape = ProductShape { m: 1, n: 1, k: 2 };
        let (out, flags) = arith.product(shape, &f32s(&[-1.0, x]), &f32s(&[1.0, x]), None, None);
        assert_eq!(f32::from_bits(out[0] as u32), 2f32.powi(-11));
        assert_ne!(flags & super::super::NX, 0, "the product was inexact");
    }

    #[test]
    fn sums_run_over_k_in_order_from_zero_or_c() {
        // [[1,2],[3,4]]·[[5,6],[7,8]] = [[19,22],[43,50]]; with C = 0.5 each, +0.5.
        let arith = MatrixArith::of(DataType::FP32, DataType::FP32).unwrap();
        let a = f32s(&[1.0, 2.0, 3.0, 4.0]);
        let b = f32s(&[5.0, 6.0, 7.0, 8.0]);
        let (out, _) = arith.product(SHAPE_2X2X2, &a, &b, None, None);
        assert_eq!(out, f32s(&[19.0, 22.0, 43.0, 50.0]));
        let c = f32s(&[0.5; 4]);
        let (out, _) = arith.product(SHAPE_2X2X2, &a, &b, Some(&c), None);
        assert_eq!(out, f32s(&[19.5, 22.5, 43.5, 50.5]));
        // Order is visible: 2^24 + 1 + 1 in order is 2^24 (each +1 rounds away), not 2^24 + 2.
        let big = 16_777_216.0f32;
        let shape = ProductShape { m: 1, n: 1, k: 3 };
        let (out, _) = arith.product(shape, &f32s(&[big, 1.0, 1.0]), &f32s(&[1.0; 3]), None, None);
        assert_eq!(f32::from_bits(out[0] as u32), big);
        // -0·1 summed from +0 is +0 (RNE: +0 + -0 = +0).
        let shape = ProductShape { m: 1, n: 1, k: 1 };
        let (out, _) = arith.product(shape, &f32s(&[-0.0]), &f32s(&[1.0]), None, None);
        assert_eq!(out, vec![0]);
    }

    #[test]
    fn narrow_floats_widen_exactly_and_bias_adds_once() {
        // FP16 1.5 (0x3E00) · BF16-free FP16 2.0 (0x4000) = 3.0 in FP32; bias 0.25 → 3.25.
        let arith = MatrixArith::of(DataType::FP16, DataType::FP16).unwrap();
        assert_eq!(arith.accumulator(), DataType::FP32);
        let shape = ProductShape { m: 1, n: 1, k: 1 };
        let bias = f32s(&[0.25]);
        let (out, flags) = arith.product(shape, &[0x3E00], &[0x4000], None, Some(&bias));
        assert_eq!((f32::from_bits(out[0] as u32), flags), (3.25, 0));
        let bf = MatrixArith::of(DataType::BF16, DataType::BF16).unwrap();
        let (out, _) = bf.product(shape, &[0x3FC0], &[0xC000], None, None); // 1.5 · -2
        assert_eq!(f32::from_bits(out[0] as u32), -3.0);
    }

    #[test]
    fn integers_extend_and_wrap() {
        // S8 -128 · -128 = 16384; four of them and C = i32::MAX wrap.
        let arith = MatrixArith::of(DataType::S8, DataType::S8).unwrap();
        assert_eq!(arith.accumulator(), DataType::S32);
        let shape = ProductShape { m: 1, n: 1, k: 4 };
        let c = [i32::MAX as u32 as u64];
        let (out, _) = arith.product(shape, &[0x80; 4], &[0x80; 4], Some(&c), None);
        assert_eq!(out[0] as u32 as i32, i32::MAX.wrapping_add(4 * 16384));
        let u = MatrixArith::of(DataType::U8, DataType::U8).unwrap();
        assert_eq!(u.accumulator(), DataType::U32);
        let (out, _) = u.product(shape, &[255; 4], &[255; 4], None, None);
        assert_eq!(out[0], 4 * 255 * 255);
        assert!(MatrixArith::of(DataType::S8, DataType::U8).is_none());
        assert!(MatrixArith::of(DataType::FP64, DataType::FP64).is_none());
    }
}
