//! The open block: what its BSTART started and what its header commands recorded (docs/isa.md
//! §2.3–2.8, §12.2–§12.3).
//!
//! Header rules checked as each word arrives: header commands only before the body (the first
//! other instruction starts it, docs/isa.md §17 decision 37), B.DATR at most once, each LB at most
//! once, at most one B.IOR, and the B.IOT binding stream (`PEMode=000` a strict no-op, nothing
//! after the L=1 binding, equal masks, at most [`PROFILE.max_bindings`] bindings). Everything that
//! needs the op or the tiles is checked at commit, in [`crate::machine`]. B.FPATR is accepted
//! once, in a CUBE block only (docs/isa.md §18.1).

use std::ops::Deref;

use ptoc_isa::encoding::{
    BStart, CubeStart, Datr, Fpatr, Ior, Ios, Iot, IotSources, StdStart, TlsuStart,
};
use ptoc_isa::profile::PROFILE;
use ptoc_isa::{FaultClass, Instruction, PeMask};

pub use crate::scalar::GPR_COUNT;

/// Which BSTART opened a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// A tile-element op (BSTART.TEPL and its SFU/VEC aliases).
    Tile(BStart),
    /// TLOAD, TSTORE or TMOV.
    Tlsu(TlsuStart),
    /// A matrix op (BSTART.TMATMUL, BSTART.TGEMV and their forms).
    Cube(CubeStart),
    /// A standard block for scalar code and branches.
    Std(StdStart),
}

/// A rejected header command: its class and reason.
pub type HeaderFault = (FaultClass, String);

/// A block's effective Local bindings, in order: at most [`PROFILE.max_bindings`], held in
/// place, since every tile bundle has some and a vector cost an allocation per bundle.
#[derive(Clone, Copy, Debug)]
pub struct Bindings {
    slots: [Iot; PROFILE.max_bindings],
    len: usize,
}

impl Default for Bindings {
    fn default() -> Bindings {
        let unused = Iot {
            sources: IotSources::None,
            last: false,
            mask: PeMask::default(),
            dst: None,
        };
        Bindings {
            slots: [unused; PROFILE.max_bindings],
            len: 0,
        }
    }
}

impl Deref for Bindings {
    type Target = [Iot];
    fn deref(&self) -> &[Iot] {
        &self.slots[..self.len]
    }
}

#[derive(Clone, Debug)]
pub struct Block {
    /// 0-based bundle index (BSTARTs executed before this one).
    pub index: usize,
    /// Byte address of the BSTART (BPC).
    pub pc: u64,
    pub start: Start,
    /// The body has begun: header commands are over (docs/isa.md §12.3).
    pub body: bool,
    /// The branch condition of a COND block's SETC, once one ran.
    pub taken: Option<bool>,
    pub datr: Option<Datr>,
    /// The B.FPATR of a CUBE block.
    pub fpatr: Option<Fpatr>,
    /// LB0, LB1, LB2 as written (`None` when omitted).
    pub dims: [Option<u32>; 3],
    /// Effective (nonzero-mask) Local bindings, in order.
    pub bindings: Bindings,
    /// A `PEMode=000` binding was seen (docs/isa.md §3.5 step 1).
    pub saw_noop_binding: bool,
    pub ior: Option<Ior>,
    pub ios: Vec<Ios>,
}

impl Block {
    pub fn open(index: usize, pc: u64, start: Start) -> Block {
        Block {
            index,
            pc,
            start,
            body: false,
            taken: None,
            datr: None,
            fpatr: None,
            dims: [None; 3],
            bindings: Bindings::default(),
            saw_noop_binding: false,
            ior: None,
            ios: Vec::new(),
        }
    }

    /// The binding mask all effective bindings share.
    pub fn mask(&self) -> Option<PeMask> {
        self.bindings.first().map(|b| b.mask)
    }

    fn closed(&self) -> bool {
        self.bindings.last().is_some_and(|b| b.last)
    }

    /// Record one header command. `gprs` are the scalar registers B.DIM adds to its immediate.
    pub fn header(
        &mut self,
        inst: &Instruction,
        gprs: &[u64; GPR_COUNT],
    ) -> Result<(), HeaderFault> {
        let control = |msg: String| Err((FaultClass::BundleControl, msg));
        if self.body {
            return control("a header command after the block's body began".into());
        }
        match *inst {
            Instruction::BDatr(d) => {
                if self.datr.is_some() {
                    return control("a second B.DATR in one bundle".into());
                }
                self.datr = Some(d);
            }
            // Exactly one, and only in a CUBE block (`asl/block/attributes/B.FPATR.asl`).
            Instruction::BFpatr(f) => {
                if !matches!(self.start, Start::Cube(_)) {
                    return control("B.FPATR outside a CUBE matrix block".into());
                }
                if self.fpatr.is_some() {
                    return control("a second B.FPATR in one bundle".into());
                }
                self.fpatr = Some(f);
            }
            Instruction::BDim(d) => {
                let lb = d.lb as usize;
                if self.dims[lb].is_some() {
                    return control(format!("LB{lb} written twice in one bundle"));
                }
                let base = gprs.get(d.reg as usize).copied().unwrap_or(0);
                self.dims[lb] = Some((base.wrapping_add(d.imm as u64) & 0xFFFF) as u32);
            }
            Instruction::BIot(iot) => {
                if iot.mask.is_noop() {
                    self.saw_noop_binding = true;
                    return Ok(());
                }
                if self.closed() {
                    return control("B.IOT after the binding marked last".into());
                }
                if self.mask().is_some_and(|m| m != iot.mask) {
                    return Err((
                        FaultClass::TileLegality,
                        format!(
                            "binding mask {} differs from the bundle's {}",
                            iot.mask,
                            self.mask().unwrap_or_default()
                        ),
                    ));
                }
                if self.bindings.len() >= PROFILE.max_bindings {
                    return Err((
                        FaultClass::TileLegality,
                        format!(
                            "more than {} Local bindings in one bundle",
                            PROFILE.max_bindings
                        ),
                    ));
                }
                self.bindings.slots[self.bindings.len] = iot;
                self.bindings.len += 1;
            }
            Instruction::BIor(r) => {
                if self.ior.is_some() {
                    return control("a second B.IOR in one bundle".into());
                }
                self.ior = Some(r);
            }
            Instruction::BIos(s) => self.ios.push(s),
            Instruction::BStart(_)
            | Instruction::BStartStd(_)
            | Instruction::BStartTlsu(_)
            | Instruction::BStartCube(_)
            | Instruction::BStop
            | Instruction::Scalar(_) => return control("not a header command".into()),
        }
        Ok(())
    }
}
