//! Hand-built functions for the passes' unit tests: one op per source line of `k.mlir`.

use ptoc_ir::{Function, Location, TileType, ValueDef, ValueId};
use ptoc_isa::ops::by_mnemonic;

/// `16x64xf32` (or `?x?xf32, valid=…`) as a tile type.
pub fn ty(text: &str) -> TileType {
    TileType::parse(&format!("!pto.tile<{text}>")).unwrap()
}

pub struct Builder {
    pub func: Function,
    line: u32,
}

impl Builder {
    pub fn new() -> Builder {
        Builder {
            func: Function::new("k", Location::new("k.mlir", 1, 1)),
            line: 1,
        }
    }

    pub fn arg(&mut self, name: &str, t: &str) -> ValueId {
        self.func.add_arg(Some(name.to_string()), ty(t))
    }

    /// `%name = "pto.<mnemonic>"(operands) : … -> t` on the next line.
    pub fn op(&mut self, name: &str, mnemonic: &str, operands: &[ValueId], t: &str) -> ValueId {
        self.line += 1;
        let info = by_mnemonic(mnemonic).unwrap();
        self.func.push_op(
            info,
            operands.to_vec(),
            ty(t),
            Some(name.to_string()),
            Location::new("k.mlir", self.line, 3),
        )
    }

    pub fn ret(mut self, results: &[ValueId]) -> Function {
        self.func.results = results.to_vec();
        self.func
    }
}

/// Every op result is defined by the op at its position, and operands precede their uses.
pub fn assert_consistent(func: &Function) {
    for (i, op) in func.ops.iter().enumerate() {
        assert_eq!(
            func.value(op.result).def,
            ValueDef::Op(ptoc_ir::OpId(i as u32))
        );
        for v in &op.operands {
            if let ValueDef::Op(d) = func.value(*v).def {
                assert!((d.0 as usize) < i, "operand defined after its use");
            }
        }
    }
}
