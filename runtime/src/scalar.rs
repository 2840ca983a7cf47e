//! The scalar core: 24 GPRs, the two 4-deep scalar queues, and what each scalar instruction
//! computes (docs/isa.md §11).
//!
//! Everything wraps modulo 2^64 and nothing traps (`asl/scalar/model/alu/semantics.asl`): division
//! by zero gives 0 (remainder: the dividend), `MIN / -1` gives `MIN`. The one fault is reading a
//! queue entry that was never pushed (Fault_IllegalInstruction, docs/isa.md §11.2).

use ptoc_isa::scalar::{AluOp, ImmOp, PlainOp, ScalarInst, ScalarOp};

/// Number of absolute GPRs (codes 0..23; 0 is `zero`).
pub const GPR_COUNT: usize = ptoc_isa::encoding::GPR_COUNT as usize;
/// Entries of each scalar queue (T and U).
const QUEUE_DEPTH: usize = 4;

/// GPRs and the scalar queues, at reset all zero and empty.
#[derive(Clone, Debug, Default)]
pub struct ScalarCore {
    gprs: [u64; GPR_COUNT],
    /// Newest first; `None` where nothing was pushed yet.
    t: [Option<u64>; QUEUE_DEPTH],
    u: [Option<u64>; QUEUE_DEPTH],
}

/// What a scalar instruction did, for the block it runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// A register (or queue) write, already done.
    Wrote,
    /// A SETC: the branch condition it computed.
    Condition(bool),
}

impl ScalarCore {
    /// The absolute GPRs (B.DIM and B.IOR read them; index 0 is always 0).
    pub fn gprs(&self) -> &[u64; GPR_COUNT] {
        &self.gprs
    }

    /// Write an absolute GPR; writes to `zero` (and outside 1..23) are dropped.
    pub fn set_gpr(&mut self, code: usize, value: u64) {
        if (1..GPR_COUNT).contains(&code) {
            self.gprs[code] = value;
        }
    }

    /// Read a Reg5 source code: a GPR, or the k-th newest entry of a queue.
    pub fn read(&self, code: u8) -> Result<u64, String> {
        let (queue, k, name) = match code {
            0..=23 => return Ok(self.gprs[code as usize]),
            24..=27 => (&self.t, code - 24, 't'),
            _ => (&self.u, (code & 31) - 28, 'u'),
        };
        queue[k as usize].ok_or_else(|| format!("{name}#{} names an empty queue entry", k + 1))
    }

    /// Write a Reg5 destination code: a GPR, a push on T (31) or U (30); other codes drop it.
    pub fn write(&mut self, code: u8, value: u64) {
        let queue = match code {
            1..=23 => return self.gprs[code as usize] = value,
            30 => &mut self.u,
            31 => &mut self.t,
            _ => return,
        };
        queue.rotate_right(1);
        queue[0] = Some(value);
    }

    /// Execute one instruction: read every source, then write the destination.
    pub fn execute(&mut self, inst: &ScalarInst) -> Result<Effect, String> {
        let left = self.read(inst.left)?;
        let right = || self.read(inst.right).map(|r| inst.modifier().apply(r));
        let value = match inst.info.op {
            ScalarOp::Alu { op, word } => {
                let r = right()? << inst.shamt;
                let v = alu(op, left, r);
                if word {
                    sign_extend_word(v)
                } else {
                    v
                }
            }
            ScalarOp::Plain(op) => plain(op, left, self.read(inst.right)?),
            ScalarOp::Imm(op) => immediate(op, left, inst.imm),
            ScalarOp::Lui => ((inst.imm << 44) >> 32) as u64,
            ScalarOp::Cmp { cond, imm } => {
                let r = if imm { inst.imm as u64 } else { right()? };
                cond.holds(left, r) as u64
            }
            ScalarOp::SetC { cond, imm } => {
                let r = if imm {
                    (inst.imm as u64) << inst.shamt
                } else {
                    right()?
                };
                return Ok(Effect::Condition(cond.holds(left, r)));
            }
            ScalarOp::Csel => {
                let p = self.read(inst.pred)?;
                if p != 0 {
                    left
                } else {
                    right()?
                }
            }
        };
        self.write(inst.dst, value);
        Ok(Effect::Wrote)
    }
}

fn sign_extend_word(v: u64) -> u64 {
    v as u32 as i32 as i64 as u64
}

fn alu(op: AluOp, l: u64, r: u64) -> u64 {
    match op {
        AluOp::Add => l.wrapping_add(r),
        AluOp::Sub => l.wrapping_sub(r),
        AluOp::And => l & r,
        AluOp::Or => l | r,
        AluOp::Xor => l ^ r,
    }
}

fn plain(op: PlainOp, l: u64, r: u64) -> u64 {
    let (sl, sr) = (l as i64, r as i64);
    match op {
        PlainOp::Sll => l << (r & 63),
        PlainOp::Srl => l >> (r & 63),
        PlainOp::Sra => (sl >> (r & 63)) as u64,
        PlainOp::Mul => l.wrapping_mul(r),
        PlainOp::MulW => sign_extend_word(l.wrapping_mul(r)),
        PlainOp::Div if r == 0 => 0,
        PlainOp::Div => sl.wrapping_div(sr) as u64,
        PlainOp::DivU => l.checked_div(r).unwrap_or(0),
        PlainOp::Rem if r == 0 => l,
        PlainOp::Rem => sl.wrapping_rem(sr) as u64,
        PlainOp::RemU => l.checked_rem(r).unwrap_or(l),
        PlainOp::Max => sl.max(sr) as u64,
        PlainOp::Min => sl.min(sr) as u64,
        PlainOp::MaxU => l.max(r),
        PlainOp::MinU => l.min(r),
    }
}

/// An immediate form is its register form with the (already extended) immediate as the right
/// operand.
fn immediate(op: ImmOp, l: u64, imm: i64) -> u64 {
    let x = imm as u64;
    match op {
        ImmOp::AddI => alu(AluOp::Add, l, x),
        ImmOp::SubI => alu(AluOp::Sub, l, x),
        ImmOp::AndI => alu(AluOp::And, l, x),
        ImmOp::OrI => alu(AluOp::Or, l, x),
        ImmOp::XorI => alu(AluOp::Xor, l, x),
        ImmOp::SllI => plain(PlainOp::Sll, l, x),
        ImmOp::SrlI => plain(PlainOp::Srl, l, x),
        ImmOp::SraI => plain(PlainOp::Sra, l, x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptoc_isa::Instruction;

    fn run(core: &mut ScalarCore, word: u32) -> Result<Effect, String> {
        let Ok(Instruction::Scalar(inst)) = Instruction::decode(word) else {
            panic!("{word:#010x} is not a scalar instruction");
        };
        core.execute(&inst)
    }

    /// The spec's scalar vectors (docs/isa.md §11.8), each on a fresh core.
    #[test]
    fn spec_vectors() {
        let mut c = ScalarCore::default();
        c.set_gpr(1, u64::MAX);
        run(&mut c, 0x0010_8095).unwrap(); // addi R1, 1, ->R1
        assert_eq!(c.gprs()[1], 0);

        let mut c = ScalarCore::default();
        c.write(31, 5); // T#1 = 5
        run(&mut c, 0xFFFC_0F15).unwrap(); // addi t#1, 4095, ->u
        assert_eq!((c.read(28), c.read(24)), (Ok(4100), Ok(5)));

        let mut c = ScalarCore::default();
        run(&mut c, 0x0010_9095).unwrap(); // subi R1, 1, ->R1
        assert_eq!(c.gprs()[1], u64::MAX);

        let mut c = ScalarCore::default();
        c.set_gpr(1, 10);
        c.set_gpr(2, 3);
        run(&mut c, 0x0C20_8085).unwrap(); // add R1, R2.neg<<1, ->R1
        assert_eq!(c.gprs()[1], 4);

        let mut c = ScalarCore::default();
        c.write(31, 1);
        c.write(30, 1);
        run(&mut c, 0xFFCC_0F05).unwrap(); // add t#1, u#1<<31, ->u
        assert_eq!(c.read(28), Ok(0x8000_0001));

        let mut c = ScalarCore::default();
        run(&mut c, 0x8000_0117).unwrap(); // lui 0x80000, ->R2
        assert_eq!(c.gprs()[2], 0xFFFF_FFFF_8000_0000);

        let mut c = ScalarCore::default();
        c.set_gpr(1, (-2i64) as u64);
        c.set_gpr(2, 3);
        run(&mut c, 0x0020_81C7).unwrap(); // mul R1, R2, ->R3
        assert_eq!(c.gprs()[3] as i64, -6);

        let mut c = ScalarCore::default();
        c.set_gpr(1, 1);
        run(&mut c, 0x03F0_F095).unwrap(); // slli R1, 63, ->R1
        assert_eq!(c.gprs()[1], 1 << 63);

        let mut c = ScalarCore::default();
        c.set_gpr(1, 1 << 63);
        c.set_gpr(2, 0x1111);
        c.set_gpr(3, 7);
        run(&mut c, 0x0E31_0277).unwrap(); // csel R1, R2, R3.neg, ->R4
        assert_eq!(c.gprs()[4], 0x1111);
        c.set_gpr(1, 0);
        run(&mut c, 0x0E31_02F7).unwrap(); // the same with RegDst R5
        assert_eq!(c.gprs()[5] as i64, -7);

        // CSEL reading T#4 of an empty queue faults and writes nothing.
        let mut c = ScalarCore::default();
        assert!(run(&mut c, 0x0FB1_0277).is_err());
        assert_eq!(c.gprs()[4], 0);
    }

    /// `tests/asl/scalar/alu/ADD/scalar-exec-add-integer-001.asl` helper-level facts.
    #[test]
    fn wrapping_and_division_rules() {
        assert_eq!(plain(PlainOp::Sll, 1, 65), 2);
        assert_eq!(
            sign_extend_word(alu(AluOp::Add, 0x7FFF_FFFF, 1)),
            0xFFFF_FFFF_8000_0000
        );
        assert_eq!(plain(PlainOp::DivU, 10, 0), 0);
        assert_eq!(plain(PlainOp::RemU, 10, 0), 10);
        assert_eq!(plain(PlainOp::Div, 1 << 63, u64::MAX), 1 << 63);
        assert_eq!(plain(PlainOp::Rem, 1 << 63, u64::MAX), 0);
        assert_eq!(plain(PlainOp::Div, (-7i64) as u64, 2) as i64, -3);
        assert_eq!(plain(PlainOp::MaxU, u64::MAX, 1), u64::MAX);
        assert_eq!(plain(PlainOp::Max, u64::MAX, 1), 1);
    }

    #[test]
    fn queues_keep_four_newest() {
        let mut c = ScalarCore::default();
        for v in 1..=5 {
            c.write(31, v);
        }
        assert_eq!(
            [c.read(24), c.read(25), c.read(26), c.read(27)],
            [Ok(5), Ok(4), Ok(3), Ok(2)]
        );
        c.write(0, 9);
        c.write(25, 9);
        assert_eq!(c.read(24), Ok(5), "codes 0 and 24..29 drop the result");
    }
}
