//! What the op table's rows mean for operands and results: geometry and DataType.
//!
//! Every consumer (pto-verify, shape inference, fusion, lowering, the interpreter and the
//! reference evaluator) asks these functions instead of restating a rule, the way an MLIR op
//! carries its own `inferReturnTypes`. The rules are those of the reduce-and-expand contracts
//! and the elementwise ops (docs/isa.md §1.3–§1.6).

use crate::dtype::{DataType, ARG_RESULTS, ARITHMETIC, EXPDIF_PAIRS, PREDICATE_DTYPE};
use crate::ops::{Axis, ElementOp, OpKind, ResultKind};

/// The part of a tile's geometry the op rules relate: physical columns and the valid shape.
/// Physical rows follow from each tile's SizeCode and are never constrained between operands.
/// `D` is `u32` where every dimension is known and a possibly-unknown dimension in the IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry<D> {
    /// Physical columns.
    pub cols: D,
    /// Valid rows.
    pub valid_rows: D,
    /// Valid columns.
    pub valid_cols: D,
}

impl<D: Copy> Geometry<D> {
    /// `same` holds for each pair of corresponding dimensions (for the IR: "equal, or one of
    /// them not known yet").
    pub fn matches(self, other: Geometry<D>, same: impl Fn(D, D) -> bool) -> bool {
        same(self.cols, other.cols)
            && same(self.valid_rows, other.valid_rows)
            && same(self.valid_cols, other.valid_cols)
    }
}

impl<D: Copy> Geometry<D> {
    /// The valid shape TTRANS gives a destination of this source: `(valid rows, valid
    /// columns)` swapped, as `TileOperandsLegal_TTRANS` requires (docs/isa.md §19). The
    /// destination's physical columns are its own (see [`Geometry::transposed`]).
    pub fn transposed_valid(self) -> (D, D) {
        (self.valid_cols, self.valid_rows)
    }
}

impl Geometry<u32> {
    /// The destination ptoc gives a TTRANS of this source: the swapped valid shape in the
    /// fewest physical columns that hold it, the smallest power of two not below the new valid
    /// columns (as `SmallestTilePhysicalColumns` picks them); `None` past 2^15 columns.
    pub fn transposed(self) -> Option<Geometry<u32>> {
        let (valid_rows, valid_cols) = self.transposed_valid();
        let cols = valid_cols.checked_next_power_of_two()?;
        (cols <= 1 << 15).then_some(Geometry {
            cols,
            valid_rows,
            valid_cols,
        })
    }
}

impl Axis {
    /// Both axes, rows first.
    pub const ALL: [Axis; 2] = [Axis::Row, Axis::Col];

    /// The vector a row or column op keeps for a full-shape tile: a row op one value per valid
    /// row in one physical column (`VR×1`), a column op one value per valid column over the full
    /// tile's physical columns (`1×VC`). Reduction results and the broadcast sources of expands
    /// both have this geometry.
    pub fn vector<D: From<u32>>(self, full: Geometry<D>) -> Geometry<D> {
        match self {
            Axis::Row => Geometry {
                cols: D::from(1),
                valid_rows: full.valid_rows,
                valid_cols: D::from(1),
            },
            Axis::Col => Geometry {
                cols: full.cols,
                valid_rows: D::from(1),
                valid_cols: full.valid_cols,
            },
        }
    }

    /// The axis along which `vector` is a broadcast of `full`, if any: it has the axis's vector
    /// geometry and `full` does not (a tile equal to its own vector is no broadcast of it).
    pub fn broadcast_of<D: From<u32> + Copy + PartialEq>(
        full: Geometry<D>,
        vector: Geometry<D>,
    ) -> Option<Axis> {
        Axis::ALL.into_iter().find(|axis| {
            let want = axis.vector(full);
            vector == want && full != want
        })
    }
}

impl ResultKind {
    /// The result DataTypes the op's legality rule admits for a `src` source (no allocation: the
    /// interpreter asks once per bundle).
    pub fn legal_results(self, src: DataType) -> impl Iterator<Item = DataType> {
        let (same, listed, expdif): (Option<DataType>, &'static [DataType], bool) = match self {
            ResultKind::SameAsSource
            | ResultKind::Reduced
            | ResultKind::Broadcast
            | ResultKind::Transposed => (Some(src), &[], false),
            ResultKind::Index => (None, ARG_RESULTS, false),
            ResultKind::ExpDif => (None, &[], true),
            ResultKind::Predicate => (Some(PREDICATE_DTYPE), &[], false),
            // `HardwareTCVTTypePairSupported` refuses only E8M0 destinations from most sources;
            // between the 16 arithmetic types every pair is legal (docs/isa.md §1.10).
            ResultKind::Converted => (None, ARITHMETIC, false),
            ResultKind::Matrix => (Some(src.matrix_accumulator()), &[], false),
        };
        let pairs = EXPDIF_PAIRS
            .iter()
            .filter(move |(s, _)| expdif && *s == src)
            .map(|&(_, d)| d);
        same.into_iter().chain(listed.iter().copied()).chain(pairs)
    }

    /// Does the legality rule admit a `dst` result from a `src` source?
    pub fn admits(self, src: DataType, dst: DataType) -> bool {
        self.legal_results(src).any(|t| t == dst)
    }

    /// The DataType the encoded op writes when the program asks for `requested`: EXPDIF and TCVT
    /// write the B.DATR type they are given, ARG reductions always U32 (the legality rule also admits S32,
    /// which no encoding can select; docs/isa.md §9 decision 3), every other op its source's
    /// type.
    pub fn encoded(self, src: DataType, requested: DataType) -> DataType {
        match self {
            ResultKind::ExpDif | ResultKind::Converted => requested,
            ResultKind::Index => DataType::U32,
            ResultKind::Predicate => PREDICATE_DTYPE,
            ResultKind::SameAsSource
            | ResultKind::Reduced
            | ResultKind::Broadcast
            | ResultKind::Transposed => src,
            ResultKind::Matrix => src.matrix_accumulator(),
        }
    }
}

/// The B.DATR fields besides PadValue an op reads, which may therefore be nonzero
/// (`datr_contract.allowed_nonzero_fields` of each op's header; `TileOperationDATRFieldsLegal`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DatrFields {
    /// DataType selects the destination type (EXPDIF, TCVT); elsewhere it is ignored
    /// (docs/isa.md §9 decision 4).
    pub data_type: bool,
    /// CMode names TCMP's relation (docs/isa.md §1.9).
    pub cmode: bool,
    /// RMode picks the rounding (TCVT, docs/isa.md §1.10).
    pub rmode: bool,
    /// Sat saturates (TCVT).
    pub sat: bool,
    /// Canonicalize (TCVT).
    pub canonicalize: bool,
    /// Layout (TCVT, TMOV, TTRANS).
    pub layout: bool,
    /// The op ignores the pad and its B.DATR PadValueOrByteId must be 00 (`pad_union:
    /// must-zero` in the header's `datr_contract`: TMOV, TTRANS); every other op reads it.
    pub pad_must_be_zero: bool,
}

impl OpKind {
    /// Which B.DATR fields the op reads (docs/isa.md §1.3, §1.4, §1.9, §1.10, §2.3).
    pub fn datr_fields(self) -> DatrFields {
        match self {
            OpKind::Expand(_, Some(ElementOp::ExpDif)) => DatrFields {
                data_type: true,
                ..DatrFields::default()
            },
            OpKind::Compare => DatrFields {
                cmode: true,
                ..DatrFields::default()
            },
            OpKind::Convert => DatrFields {
                data_type: true,
                cmode: false,
                rmode: true,
                sat: true,
                canonicalize: true,
                layout: true,
                pad_must_be_zero: false,
            },
            // TMOV reads only Layout; a DataType other than DTYPE_NONE retypes the copy
            // (docs/isa.md §13.5), which ptoc never asks for.
            OpKind::Move => DatrFields {
                layout: true,
                pad_must_be_zero: true,
                ..DatrFields::default()
            },
            // TTRANS reads only Layout, which ptoc keeps NORM (docs/isa.md §19 decision 57),
            // and always leaves its padding Null whatever the pad field says.
            OpKind::Transpose => DatrFields {
                layout: true,
                pad_must_be_zero: true,
                ..DatrFields::default()
            },
            // The matrix ops: BType (the right operand's type), RMode and Sat
            // (`BundleTMATMULDataAttributesLegal`, docs/isa.md §18.2).
            OpKind::Matmul { .. } => DatrFields {
                data_type: true,
                rmode: true,
                sat: true,
                ..DatrFields::default()
            },
            OpKind::Reduce(..)
            | OpKind::Expand(..)
            | OpKind::Binary(_)
            | OpKind::Unary(_)
            | OpKind::Select
            | OpKind::TileScalar(_)
            | OpKind::FillScalar => DatrFields::default(),
        }
    }

    /// Whether the op's TEPL bundle has a closed schema (`SelectedBundleClosed*SchemaLegal` in
    /// `asl/block/model/dispatch/`): one B.IOT laid out as the op's `bindings` say, LB0
    /// required, LB1 defaulting to 1 and LB2 to LB0, and no B.IOR unless the op reads a
    /// scalar. TTRANS has none: the generic path takes the bindings in any layout, an all-zero
    /// B.IOR, and each absent LBn from the source (`ResolveBundleTileDestinations`,
    /// docs/isa.md §19). TMOV (a TLSU op) and the matrix ops (CUBE) commit elsewhere.
    pub fn closed_schema(self) -> bool {
        match self {
            OpKind::Transpose | OpKind::Move | OpKind::Matmul { .. } => false,
            OpKind::Reduce(..)
            | OpKind::Expand(..)
            | OpKind::Binary(_)
            | OpKind::Unary(_)
            | OpKind::Compare
            | OpKind::Select
            | OpKind::Convert
            | OpKind::TileScalar(_)
            | OpKind::FillScalar => true,
        }
    }

    /// What a tile-scalar op reads of the B.IOR GPR's `raw` value on `dtype`: its low
    /// element-width bits, zero-extended, taken as an element of the type with no conversion
    /// (`TileRawElementValue`, docs/isa.md §14).
    pub fn scalar_element(dtype: DataType, raw: u64) -> u64 {
        raw & dtype.carrier_mask()
    }

    /// Why the closed tile-scalar schema refuses the scalar `raw` on `dtype`
    /// (`SelectedBundleClosedTileScalarBinarySchemaLegal`, docs/isa.md §14): an invalid
    /// encoding (TF32/HF32 low bits set) or an integer zero divisor. TEXPANDS checks nothing
    /// (§17 decision 48); ops without a scalar have none to refuse.
    pub fn scalar_violation(self, dtype: DataType, raw: u64) -> Option<String> {
        let op = match self {
            OpKind::TileScalar(op) => op,
            OpKind::FillScalar
            | OpKind::Reduce(..)
            | OpKind::Expand(..)
            | OpKind::Binary(_)
            | OpKind::Unary(_)
            | OpKind::Compare
            | OpKind::Select
            | OpKind::Convert
            | OpKind::Move
            | OpKind::Transpose
            | OpKind::Matmul { .. } => return None,
        };
        let bits = OpKind::scalar_element(dtype, raw);
        let low = (1u64 << dtype.required_zero_low_bits()) - 1;
        if bits & low != 0 {
            return Some(format!(
                "the scalar {bits:#x} is not a valid {dtype} encoding (its low {} bits must be zero)",
                dtype.required_zero_low_bits()
            ));
        }
        if op == ElementOp::Div && dtype.is_integer() && bits == 0 {
            return Some(format!("integer division by zero: the {dtype} scalar is 0"));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(cols: u32, valid_rows: u32, valid_cols: u32) -> Geometry<u32> {
        Geometry {
            cols,
            valid_rows,
            valid_cols,
        }
    }

    #[test]
    fn vectors_follow_the_contracts() {
        // A 16x64 tile with valid 12x50: row vector 12x1 in 1 column, column vector 1x50 over 64.
        assert_eq!(Axis::Row.vector(g(64, 12, 50)), g(1, 12, 1));
        assert_eq!(Axis::Col.vector(g(64, 12, 50)), g(64, 1, 50));
    }

    #[test]
    fn transposes_swap_the_valid_shape() {
        // A 16x64 tile, valid 16x64, becomes valid 64x16 in 16 columns; valid 2x3 in 4 columns
        // becomes valid 3x2 in 2 columns; valid 5x1 becomes 1x5 in 8 columns.
        assert_eq!(g(64, 16, 64).transposed(), Some(g(16, 64, 16)));
        assert_eq!(g(4, 2, 3).transposed(), Some(g(2, 3, 2)));
        assert_eq!(g(1, 5, 1).transposed(), Some(g(8, 1, 5)));
        assert_eq!(g(1, 32769, 1).transposed(), None);
        assert_eq!(g(8, 3, 7).transposed_valid(), (7, 3));
    }

    #[test]
    fn broadcasts_are_recognised_only_between_different_shapes() {
        let full = g(64, 16, 64);
        assert_eq!(Axis::broadcast_of(full, g(1, 16, 1)), Some(Axis::Row));
        assert_eq!(Axis::broadcast_of(full, g(64, 1, 64)), Some(Axis::Col));
        assert_eq!(Axis::broadcast_of(full, full), None);
        assert_eq!(Axis::broadcast_of(full, g(1, 8, 1)), None);
        // A column tile is its own row vector; a one-row tile its own column vector.
        assert_eq!(Axis::broadcast_of(g(1, 16, 1), g(1, 16, 1)), None);
        assert_eq!(Axis::broadcast_of(g(64, 1, 64), g(64, 1, 64)), None);
        // A 16x1 column against a 1x1: the column is no broadcast of the scalar.
        assert_eq!(Axis::broadcast_of(g(1, 1, 1), g(1, 16, 1)), None);
    }

    #[test]
    fn result_types() {
        use DataType::*;
        let legal = |k: ResultKind, t| k.legal_results(t).collect::<Vec<_>>();
        assert_eq!(legal(ResultKind::Reduced, FP16), [FP16]);
        assert_eq!(legal(ResultKind::Index, FP16), [U32, S32]);
        assert_eq!(legal(ResultKind::ExpDif, BF16), [BF16, FP32]);
        assert!(legal(ResultKind::ExpDif, S8).is_empty());
        assert!(ResultKind::ExpDif.admits(FP16, FP32) && !ResultKind::ExpDif.admits(FP32, FP16));
        assert_eq!(ResultKind::Index.encoded(FP32, S32), U32);
        assert_eq!(ResultKind::ExpDif.encoded(FP16, FP32), FP32);
        assert_eq!(ResultKind::SameAsSource.encoded(S8, S16), S8);
        assert_eq!(legal(ResultKind::Predicate, FP32), [U8]);
        assert_eq!(legal(ResultKind::Converted, S8).len(), 16);
        assert_eq!(ResultKind::Converted.encoded(FP32, U8), U8);
        // TTRANS: "same data type" (`TileOperandsLegal_TTRANS`).
        assert_eq!(legal(ResultKind::Transposed, BF16), [BF16]);
        assert_eq!(ResultKind::Transposed.encoded(U16, U16), U16);
    }

    /// `tile-bound-tcvt-datr-001.asl`: TCVT reads PadValue, Sat, Canonicalize, DataType, RMode
    /// and Layout (not CMode); the expand header lists only PadValue (EXPDIF also DataType);
    /// TCMP reads only CMode and PadValue, TSEL only PadValue (docs/isa.md §1.9).
    #[test]
    fn datr_fields_per_op() {
        let cvt = OpKind::Convert.datr_fields();
        assert!(cvt.data_type && cvt.rmode && cvt.sat && cvt.canonicalize && cvt.layout);
        assert!(!cvt.cmode);
        let expdif = OpKind::Expand(Axis::Row, Some(ElementOp::ExpDif)).datr_fields();
        assert!(expdif.data_type && !expdif.rmode && !expdif.sat && !expdif.cmode);
        assert_eq!(
            OpKind::Binary(ElementOp::Add).datr_fields(),
            DatrFields::default()
        );
        assert_eq!(
            OpKind::Compare.datr_fields(),
            DatrFields {
                cmode: true,
                ..DatrFields::default()
            }
        );
        assert_eq!(OpKind::Select.datr_fields(), DatrFields::default());
        assert_eq!(OpKind::FillScalar.datr_fields(), DatrFields::default());
        // TTRANS.asl `datr_contract`: allowed_nonzero_fields ["Layout"], pad_union "must-zero".
        assert_eq!(
            OpKind::Transpose.datr_fields(),
            DatrFields {
                layout: true,
                pad_must_be_zero: true,
                ..DatrFields::default()
            }
        );
        assert!(
            !OpKind::Transpose.closed_schema()
                && OpKind::Unary(crate::UnaryOp::Abs).closed_schema()
        );
    }

    /// `TDIVS/tile-bound-tdivs-zero-001.asl`: a U32 zero divisor is illegal, FP32 +0 and −0 are
    /// legal; only the low element-width bits count (docs/isa.md §14).
    #[test]
    fn scalar_rules() {
        use DataType::*;
        let divs = OpKind::TileScalar(ElementOp::Div);
        assert!(divs.scalar_violation(U32, 0).is_some());
        assert!(divs.scalar_violation(U32, 1 << 32).is_some());
        assert!(divs.scalar_violation(U32, 1).is_none());
        assert!(divs.scalar_violation(FP32, 0).is_none());
        assert!(divs.scalar_violation(FP32, 0x8000_0000).is_none());
        assert!(OpKind::TileScalar(ElementOp::Add)
            .scalar_violation(S8, 0)
            .is_none());
        // TF32 keeps bits 12:0 zero; TEXPANDS never checks (§17 decision 48).
        let adds = OpKind::TileScalar(ElementOp::Add);
        assert!(adds.scalar_violation(TF32, 0x3F80_0001).is_some());
        assert!(adds.scalar_violation(TF32, 0x3F80_2000).is_none());
        assert!(OpKind::FillScalar.scalar_violation(TF32, 1).is_none());
        assert_eq!(OpKind::scalar_element(U8, 0x1FF), 0xFF);
        assert_eq!(OpKind::scalar_element(U64, u64::MAX), u64::MAX);
    }
}
