//! Ordered reductions (docs/isa.md §1.5, §10): strictly increasing index, left fold, no reassociation.
//!
//! SUM starts from the all-zero encoding, PROD from the typed one, MAX/MIN/ARG from element 0.
//! ARG keeps the earlier index on ties: the index moves to `i` only when the MAX/MIN step result
//! equals element `i` bit for bit and differs from the accumulator.

use super::lane::{ElementFn, Lane};
use super::Flags;
use ptoc_isa::Reduction;

/// Fold `elems` (at least one; an empty sequence gives the fold's start value) with `red`.
/// ARG reductions return the index as the result bits (a U32 destination).
#[inline]
pub fn fold<L: Lane>(red: Reduction, mut elems: impl Iterator<Item = u64>) -> (u64, Flags) {
    let mut flags = 0;
    let mut step = |acc: u64, x: u64, f: ElementFn| {
        let (r, fl) = f(acc, x);
        flags |= fl;
        r
    };
    let result = match red {
        Reduction::Sum => elems.fold(0, |acc, x| step(acc, x, L::add)),
        Reduction::Prod => elems.fold(L::DTYPE.one(), |acc, x| step(acc, x, L::mul)),
        Reduction::Max | Reduction::Min => {
            let pick = if red == Reduction::Max {
                L::max
            } else {
                L::min
            };
            match elems.next() {
                Some(first) => elems.fold(first, |acc, x| step(acc, x, pick)),
                None => 0,
            }
        }
        Reduction::ArgMax | Reduction::ArgMin => {
            let pick = if red == Reduction::ArgMax {
                L::max
            } else {
                L::min
            };
            let Some(mut acc) = elems.next() else {
                return (0, 0);
            };
            let mut index = 0u64;
            for (i, x) in elems.enumerate() {
                let r = step(acc, x, pick);
                if r == x && r != acc {
                    index = i as u64 + 1;
                }
                acc = r;
            }
            index
        }
    };
    (result, flags)
}

#[cfg(test)]
mod tests {
    use super::super::lane::*;
    use super::super::NV;
    use super::*;
    use Reduction::*;

    fn f<L: Lane>(red: Reduction, v: &[u64]) -> (u64, Flags) {
        fold::<L>(red, v.iter().copied())
    }

    #[test]
    fn hardware_reduction_vectors_of_facts_1_5() {
        let qnan = 0x7FC0_0000;
        assert_eq!(f::<U32>(ArgMax, &[5, 7, 7, 3]).0, 1);
        let (m, _) = f::<Fp32>(
            Min,
            &[qnan, 4f32.to_bits() as u64, (-2f32).to_bits() as u64],
        );
        assert_eq!(m, (-2f32).to_bits() as u64);
        let one = 1f32.to_bits() as u64;
        assert_eq!(f::<Fp32>(Sum, &[one, qnan, 2f32.to_bits() as u64]).0, qnan);
        assert_eq!(f::<Fp32>(Max, &[0x8000_0000, 0]).0, 0);
        // SUM of all -0 is +0 (starts from +0).
        assert_eq!(f::<Fp32>(Sum, &[0x8000_0000, 0x8000_0000]).0, 0);
    }

    #[test]
    fn avs_integer_reduction_vectors_of_facts_6_and_10() {
        assert_eq!(f::<U8>(Sum, &[250, 10]).0, 4);
        assert_eq!(f::<U8>(Prod, &[20, 20]).0, 144);
        assert_eq!(f::<U16>(Max, &[0xFFFF, 1]).0, 0xFFFF);
        assert_eq!(f::<S8>(Min, &[0xFF, 1]).0, 0xFF);
        assert_eq!(f::<U8>(ArgMax, &[1, 9, 9]).0, 1);
        assert_eq!(f::<U8>(ArgMin, &[4, 2, 2]).0, 1);
        assert_eq!(f::<U8>(Sum, &[0xFF; 6]).0, 0xFA);
        // Signed ARG compares at the element's signed width.
        assert_eq!(f::<S8>(ArgMax, &[0xFF, 0x01, 0x80]).0, 1);
        assert_eq!(f::<S16>(ArgMin, &[0x0001, 0x8000, 0x7FFF]).0, 1);
    }

    #[test]
    fn arg_with_nans_follows_the_update_rule_literally() {
        let (q, nq) = (0x7FC0_0000, 0xFFC0_0000);
        let one = 1f32.to_bits() as u64;
        assert_eq!(f::<Fp32>(ArgMax, &[nq, q]).0, 1);
        assert_eq!(f::<Fp32>(ArgMax, &[q, nq]).0, 0);
        assert_eq!(f::<Fp32>(ArgMax, &[q, one]).0, 1);
        assert_eq!(f::<Fp32>(ArgMax, &[one, q]).0, 0);
        assert_eq!(f::<Fp32>(ArgMax, &[one, 0x7F80_0001]), (0, NV));
    }
}
