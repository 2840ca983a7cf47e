//! Builds allocated functions by hand, with the attributes `pto-allocate` attaches.
#![allow(dead_code)]

use ptoc_ir::{Attr, Function, Location, TileType, ValueId};
use ptoc_isa::{ops, DataType, Hand, TileReg};
use std::collections::{BTreeMap, HashSet};

/// The allocation attributes for a tile of type `ty` in `reg`, with the smallest SizeCode.
pub fn alloc_attrs(reg: TileReg, ty: &TileType) -> BTreeMap<String, Attr> {
    let (size, derived) = ty.smallest_size(0).expect("shape fits a SizeCode");
    BTreeMap::from([
        ("pto.dst".to_string(), Attr::Str(reg.to_string())),
        ("pto.tsize".to_string(), Attr::Int(size.code() as i64)),
        ("pto.rows".to_string(), Attr::Int(derived as i64)),
    ])
}

/// A function under construction whose registers follow the renaming rule (lowest free register
/// of the hand, nothing freed).
pub struct Builder {
    pub f: Function,
    taken: HashSet<TileReg>,
}

impl Builder {
    pub fn new(name: &str) -> Builder {
        let mut f = Function::new(name, Location::new("kernel.mlir", 1, 1));
        f.attrs
            .insert("pto.pe_mask".into(), Attr::Str("1111".into()));
        Builder {
            f,
            taken: HashSet::new(),
        }
    }

    fn next_reg(&mut self, hand: Hand) -> TileReg {
        let reg = (1..=16)
            .filter_map(|k| TileReg::of(hand, k))
            .find(|r| !self.taken.contains(r))
            .expect("a free register");
        self.taken.insert(reg);
        reg
    }

    pub fn arg(&mut self, name: &str, ty: TileType) -> ValueId {
        let reg = self.next_reg(Hand::T);
        let v = self.f.add_arg(Some(name.into()), ty);
        *self.f.arg_attrs.last_mut().unwrap() = alloc_attrs(reg, &ty);
        v
    }

    /// Append `pto.<mnemonic>` at `kernel.mlir:line:8`, its result in hand T.
    pub fn op(&mut self, mnemonic: &str, operands: &[ValueId], ty: TileType, line: u32) -> ValueId {
        self.op_in(Hand::T, mnemonic, operands, ty, line)
    }

    pub fn op_in(
        &mut self,
        hand: Hand,
        mnemonic: &str,
        operands: &[ValueId],
        ty: TileType,
        line: u32,
    ) -> ValueId {
        let info = ops::by_mnemonic(mnemonic).expect("catalogue op");
        let name = (self.f.ops.len()).to_string();
        let v = self.f.push_op(
            info,
            operands.to_vec(),
            ty,
            Some(name),
            Location::new("kernel.mlir", line, 8),
        );
        let reg = self.next_reg(hand);
        self.f.ops.last_mut().unwrap().attrs = alloc_attrs(reg, &ty);
        v
    }

    pub fn ret(mut self, results: &[ValueId]) -> Function {
        self.f.results = results.to_vec();
        self.f
    }
}

pub fn tile(rows: u32, cols: u32, t: DataType) -> TileType {
    TileType::new(rows, cols, t)
}

/// The worked example of docs/isa.md §2.10: TROWEXPANDMAX FP32 8×16, sources T#1 and T#2, destination T#3
/// with SizeCode 3.
pub fn worked_example() -> Function {
    let mut b = Builder::new("k");
    let x = b.arg("x", tile(8, 16, DataType::FP32));
    let m = b.arg("m", tile(8, 1, DataType::FP32));
    let r = b.op("TROWEXPANDMAX", &[x, m], tile(8, 16, DataType::FP32), 3);
    b.ret(&[r])
}
