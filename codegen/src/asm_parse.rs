//! The assembler: canonical PTO bundle assembly and the spec's variants → kernels.
//!
//! Accepted syntax, one statement per line or several separated by `;` (a `;` starting a line, or
//! followed by something that is not a mnemonic or directive, begins a comment; so does `//`):
//!
//! - `BSTART.SFU OP, DT` / `BSTART.VEC OP, DT` (the alias must be the op's engine) and
//!   `BSTART.TEPL Mode, Function, DT`;
//! - `B.DATR` with `Key=Value` items (`DataType`, `PadValue`, `ByteId`, `CMode`, `RMode`, `Sat`,
//!   `Canonicalize`, `Layout`), bare values (`B.DATR FP32, Zero`), or the 7-field
//!   `{Layout, DataType, Pad, CMode, RMode, Sat, Canonicalize}` form; omitted fields are 0;
//! - `BSTART.TMATMUL DT`, `BSTART.TMATMUL.ACC DT`, … (the CUBE starts) and
//!   `B.FPATR PreQuantMode, ReluMode, GroupNCode, RowMaxEn, GroupMaxEn, RowMaxInit, MaxAbsEn,
//!   TransA, TransB` (numbers; `None` for a zero mode);
//! - `B.DIM LB0=16`, `B.DIM LB0, 16`, `B.DIM zero, 16, ->LB0`;
//! - `B.IOT [T#k[, T#k],] mask=1111[, last|<last>][, ->T<SizeCode>]`;
//! - `B.IOR [gpr[, gpr[, gpr]]][, ->gpr]`, `B.IOS Sn, mask=1111[, ->S<SizeCode>]`, `BSTOP`;
//! - `.word 0x…` (any 32-bit word), and the kernel directives `.kernel`, `.pe_mask`, `.spec`,
//!   `.arg`, `.result` (see `codegen/METADATA.md`).
//!
//! Every error is a [`Diagnostic`] at the offending token's `file:line:col`.

use crate::metadata::{self, parse_register, MemRefMeta, ScalarMeta, ScalarType, TileMeta};
use crate::syntax::{
    cmode_by_name, gpr_by_name, layout_by_name, rmode_by_name, DTYPE_NONE_NAME, GPR_NAMES,
};
use crate::{group_bundles, Kernel, KernelMeta};
use ptoc_ir::{Diagnostic, Location};
use ptoc_isa::encoding::{
    BStart, CubeStart, Datr, Dim, Fpatr, Ior, Ios, Iot, IotSources, StdStart, TlsuOp, TlsuStart,
    Transfer,
};
use ptoc_isa::ops::{self, tepl_function_accepted};
use ptoc_isa::profile::NamingModel;
use ptoc_isa::scalar::{self, Format, Modifier, ScalarInfo, ScalarInst};
use ptoc_isa::{DataType, Hand, Instruction, PadValue, PeMask, SizeCode, TileReg, SPEC_VERSION};
use std::collections::HashSet;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Word,
    Str,
    Comma,
    Eq,
    Lt,
    Gt,
    Arrow,
    LBrace,
    RBrace,
    Semi,
}

#[derive(Clone, Debug)]
struct Tok {
    kind: Kind,
    text: String,
    col: u32,
}

fn is_word_char(c: char, next: Option<char>) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(c, '_' | '.' | '#' | '$' | '+')
        || (c == '-' && next != Some('>'))
}

/// Mnemonics and directives that may follow a `;` separator (anything else after `;` is a
/// comment).
const STATEMENT_WORDS: &[&str] = &[
    "B.DATR", "B.FPATR", "B.DIM", "B.IOT", "B.IOR", "B.IOS", "BSTOP", "C.B.DIMI", "C.BSTOP",
    "L.BSTOP", ".WORD", ".KERNEL", ".PE_MASK", ".SPEC", ".ARG", ".RESULT", ".PROFILE", ".MEMREF",
    ".SCALAR",
];

/// Does a statement start with this word (so a `;` before it separates rather than comments)?
fn starts_statement(word: &str) -> bool {
    let w = word.to_ascii_uppercase();
    w.starts_with("BSTART.")
        || STATEMENT_WORDS.contains(&w.as_str())
        || scalar::by_mnemonic(&w).is_some()
}

/// Split one line into tokens, dropping comments. Errors carry the 1-based column.
fn lex_line(line: &str) -> Result<Vec<Tok>, (u32, String)> {
    let chars: Vec<char> = line.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i as u32 + 1;
        let next = chars.get(i + 1).copied();
        let single = |kind| Tok {
            kind,
            text: c.to_string(),
            col,
        };
        match c {
            c if c.is_whitespace() => i += 1,
            '/' if next == Some('/') => break,
            ';' => {
                let word: String = chars[i + 1..]
                    .iter()
                    .skip_while(|c| c.is_whitespace())
                    .take_while(|&&c| is_word_char(c, None))
                    .collect();
                if toks.is_empty() || !starts_statement(&word) {
                    break;
                }
                toks.push(single(Kind::Semi));
                i += 1;
            }
            ',' | '=' | '<' | '>' | '{' | '}' => {
                toks.push(single(match c {
                    ',' => Kind::Comma,
                    '=' => Kind::Eq,
                    '<' => Kind::Lt,
                    '>' => Kind::Gt,
                    '{' => Kind::LBrace,
                    _ => Kind::RBrace,
                }));
                i += 1;
            }
            '-' if next == Some('>') => {
                toks.push(Tok {
                    kind: Kind::Arrow,
                    text: "->".into(),
                    col,
                });
                i += 2;
            }
            '"' => {
                let (text, len) = lex_string(&chars[i..]).map_err(|(off, m)| (col + off, m))?;
                toks.push(Tok {
                    kind: Kind::Str,
                    text,
                    col,
                });
                i += len;
            }
            c if is_word_char(c, next) => {
                let start = i;
                while i < chars.len() && is_word_char(chars[i], chars.get(i + 1).copied()) {
                    i += 1;
                }
                toks.push(Tok {
                    kind: Kind::Word,
                    text: chars[start..i].iter().collect(),
                    col,
                });
            }
            c => return Err((col, format!("unexpected character {c:?}"))),
        }
    }
    Ok(toks)
}

/// A `"…"` string at the start of `chars`: its value and its length in chars.
fn lex_string(chars: &[char]) -> Result<(String, usize), (u32, String)> {
    let mut out = String::new();
    let mut i = 1;
    while let Some(&c) = chars.get(i) {
        match c {
            '"' => return Ok((out, i + 1)),
            '\\' => {
                match chars.get(i + 1) {
                    Some('"') => out.push('"'),
                    Some('\\') => out.push('\\'),
                    Some('u') if chars.get(i + 2) == Some(&'{') => {
                        let hex: String =
                            chars[i + 3..].iter().take_while(|&&c| c != '}').collect();
                        let ch = u32::from_str_radix(&hex, 16)
                            .ok()
                            .filter(|_| chars.get(i + 3 + hex.len()) == Some(&'}'))
                            .and_then(char::from_u32)
                            .ok_or((i as u32, "bad \\u{…} escape".to_string()))?;
                        out.push(ch);
                        i += hex.len() + 2;
                    }
                    _ => return Err((i as u32, "unknown escape in string".into())),
                }
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err((0, "unterminated string".into()))
}

/// The tokens of one statement being parsed.
struct Cursor<'a> {
    toks: &'a [Tok],
    pos: usize,
    file: &'a Arc<str>,
    line: u32,
    /// Column just after the statement, for "expected … at end" errors.
    end_col: u32,
}

type PResult<T> = Result<T, Diagnostic>;

impl<'a> Cursor<'a> {
    fn loc(&self, col: u32) -> Location {
        Location::new(self.file.clone(), self.line, col)
    }
    fn error_at<T>(&self, col: u32, message: impl Into<String>) -> PResult<T> {
        Err(Diagnostic::error(self.loc(col), message))
    }
    fn col(&self) -> u32 {
        self.toks.get(self.pos).map_or(self.end_col, |t| t.col)
    }
    fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.pos)
    }
    fn at(&self, kind: Kind) -> bool {
        self.peek().is_some_and(|t| t.kind == kind)
    }
    fn eat(&mut self, kind: Kind) -> bool {
        let hit = self.at(kind);
        if hit {
            self.pos += 1;
        }
        hit
    }
    fn found(&self) -> String {
        self.peek()
            .map_or("end of statement".into(), |t| format!("'{}'", t.text))
    }
    fn expect(&mut self, kind: Kind, what: &str) -> PResult<&'a Tok> {
        match self.peek() {
            Some(t) if t.kind == kind => {
                self.pos += 1;
                Ok(t)
            }
            _ => self.error_at(
                self.col(),
                format!("expected {what}, found {}", self.found()),
            ),
        }
    }
    fn word(&mut self, what: &str) -> PResult<&'a Tok> {
        self.expect(Kind::Word, what)
    }
    fn comma(&mut self) -> PResult<()> {
        self.expect(Kind::Comma, "','").map(|_| ())
    }
    fn end(&self) -> PResult<()> {
        match self.peek() {
            None => Ok(()),
            Some(t) => self.error_at(t.col, format!("unexpected '{}'", t.text)),
        }
    }
    /// A decimal or `0x` number in `0..=max`.
    fn number(&mut self, what: &str, max: u64) -> PResult<u64> {
        let tok = self.word(what)?;
        parse_number(&tok.text).filter(|&n| n <= max).map_or_else(
            || {
                self.error_at(
                    tok.col,
                    format!("{what} must be a number in 0..={max}, found '{}'", tok.text),
                )
            },
            Ok,
        )
    }
    /// A word looked up with `find`, or an error naming `what` it should be.
    fn named<T>(&mut self, what: &str, find: impl Fn(&str) -> Option<T>) -> PResult<T> {
        let tok = self.word(what)?;
        find(&tok.text).map_or_else(
            || self.error_at(tok.col, format!("unknown {what} '{}'", tok.text)),
            Ok,
        )
    }
    fn dtype(&mut self) -> PResult<DataType> {
        let tok = self.word("a DataType")?;
        if tok.text.eq_ignore_ascii_case(DTYPE_NONE_NAME) {
            return self.error_at(tok.col, "DTYPE_NONE is reserved in BSTART");
        }
        DataType::from_name(&tok.text).map_or_else(
            || self.error_at(tok.col, format!("unknown DataType '{}'", tok.text)),
            Ok,
        )
    }
    /// `mask=1111` with an encodable mask.
    fn mask(&mut self) -> PResult<PeMask> {
        self.word("'mask'")?;
        self.expect(Kind::Eq, "'='")?;
        let tok = self.word("a 4-digit PE mask")?;
        PeMask::parse(&tok.text).map_or_else(
            || {
                self.error_at(
                    tok.col,
                    format!(
                        "PE mask '{}' cannot be encoded (PEMode encodes 0000, 1000, 0100, 0010, \
                         0001, 1100, 1110, 1111)",
                        tok.text
                    ),
                )
            },
            Ok,
        )
    }
    /// `-> H < n >` with `n` in `1..=max`; `H` is the hand letter (or `S` for shared).
    fn destination(&mut self, hands: &str, max: u64) -> PResult<(char, u64)> {
        self.expect(Kind::Arrow, "'->'")?;
        let tok = self.word("a destination hand")?;
        let mut chars = tok.text.chars();
        let letter = chars.next().map(|c| c.to_ascii_uppercase());
        match letter {
            Some(l) if hands.contains(l) && chars.as_str().is_empty() => {}
            Some(l) if hands.contains(l) => {
                return self.error_at(
                    tok.col,
                    format!("destination register numbers cannot be encoded (the hardware renames); write ->{l}<SizeCode>"),
                )
            }
            _ => return self.error_at(tok.col, format!("unknown destination hand '{}'", tok.text)),
        }
        self.expect(Kind::Lt, "'<'")?;
        let col = self.col();
        let size = self.number("SizeCode", max)?;
        if size == 0 {
            return self.error_at(col, format!("SizeCode must be in 1..={max}"));
        }
        self.expect(Kind::Gt, "'>'")?;
        Ok((letter.unwrap_or('T'), size))
    }
}

fn parse_number(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(hex, 16).ok()
        }
        Some(_) => None,
        None if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => text.parse().ok(),
        None => None,
    }
}

/// One statement's result.
enum Stmt {
    Word(u32),
    Kernel(String),
    PeMask(PeMask),
    Spec(String),
    Arg(TileMeta),
    Result(TileMeta),
    Profile(NamingModel),
    MemRef(MemRefMeta),
    Scalar(ScalarMeta),
}

fn parse_statement(c: &mut Cursor) -> PResult<Stmt> {
    let head = c.word("an instruction or directive")?;
    let upper = head.text.to_ascii_uppercase();
    if let Some(alias) = upper.strip_prefix("BSTART.") {
        let inst = match alias {
            "TEPL" => parse_tepl(c)?,
            "SFU" | "VEC" => parse_bstart_alias(c, alias)?,
            "STD" => parse_std(c)?,
            "TLOAD" => parse_tlsu(c, TlsuOp::Load)?,
            "TSTORE" => parse_tlsu(c, TlsuOp::Store)?,
            "TMOV" => parse_tlsu(c, TlsuOp::Mov)?,
            _ if CubeStart::function_of(alias).is_some() => {
                let function = CubeStart::function_of(alias).expect("checked");
                let dtype = c.dtype()?;
                Instruction::BStartCube(CubeStart { function, dtype })
            }
            _ => {
                return c.error_at(
                    head.col,
                    format!(
                        "'{}' is not a block start ptoc knows (BSTART.STD, BSTART.SFU, \
                         BSTART.VEC, BSTART.TEPL, BSTART.TLOAD, BSTART.TSTORE, BSTART.TMOV, \
                         BSTART.TMATMUL[.BIAS|.ACC], BSTART.TGEMV[.BIAS|.ACC])",
                        head.text
                    ),
                )
            }
        };
        return finish(c, inst);
    }
    let inst = match upper.as_str() {
        "B.DATR" => parse_datr(c)?,
        "B.FPATR" => parse_fpatr(c)?,
        "B.DIM" => parse_dim(c)?,
        "B.IOT" => parse_iot(c)?,
        "B.IOR" => parse_ior(c)?,
        "B.IOS" => parse_ios(c)?,
        "BSTOP" => Instruction::BStop,
        "C.B.DIMI" | "C.BSTOP" | "L.BSTOP" => {
            return c.error_at(
                head.col,
                format!(
                    "{} is not a 32-bit instruction; ptoc emits only 32-bit words",
                    head.text
                ),
            )
        }
        ".WORD" => {
            let w = c.number("a 32-bit word", u32::MAX as u64)? as u32;
            c.end()?;
            return Ok(Stmt::Word(w));
        }
        ".KERNEL" => {
            let name = name(c)?;
            c.end()?;
            return Ok(Stmt::Kernel(name));
        }
        ".PE_MASK" => {
            let tok = c.word("a PE mask")?;
            let mask = PeMask::parse(&tok.text).map_or_else(
                || c.error_at(tok.col, format!("PE mask '{}' cannot be encoded", tok.text)),
                Ok,
            )?;
            c.end()?;
            return Ok(Stmt::PeMask(mask));
        }
        ".SPEC" => {
            let tok = c.word("a spec version")?;
            if tok.text != SPEC_VERSION {
                return c.error_at(
                    tok.col,
                    format!(
                        "spec version '{}' is not the supported {SPEC_VERSION}",
                        tok.text
                    ),
                );
            }
            c.end()?;
            return Ok(Stmt::Spec(tok.text.clone()));
        }
        ".PROFILE" => {
            let profile = c.named("target profile (queue, absolute)", NamingModel::from_name)?;
            c.end()?;
            return Ok(Stmt::Profile(profile));
        }
        ".MEMREF" => return parse_memref(c).map(Stmt::MemRef),
        ".SCALAR" => return parse_scalar_arg(c).map(Stmt::Scalar),
        ".ARG" => return parse_tile(c).map(Stmt::Arg),
        ".RESULT" => return parse_tile(c).map(Stmt::Result),
        _ if scalar::by_mnemonic(&upper).is_some() => {
            parse_scalar(c, scalar::by_mnemonic(&upper).expect("checked"))?
        }
        _ => {
            return c.error_at(
                head.col,
                format!("unknown mnemonic or directive '{}'", head.text),
            )
        }
    };
    finish(c, inst)
}

/// Check the statement is over and the instruction encodes to itself.
fn finish(c: &mut Cursor, inst: Instruction) -> PResult<Stmt> {
    c.end()?;
    let word = inst.encode();
    match Instruction::decode(word) {
        Ok(back) if back == inst => Ok(Stmt::Word(word)),
        Ok(_) => c.error_at(
            c.toks.first().map_or(1, |t| t.col),
            "instruction has no exact encoding",
        ),
        Err(e) => c.error_at(c.toks.first().map_or(1, |t| t.col), e.to_string()),
    }
}

fn parse_bstart_alias(c: &mut Cursor, alias: &str) -> PResult<Instruction> {
    let tok = c.word("a tile op mnemonic")?;
    let Some(op) = ops::by_mnemonic(&tok.text) else {
        return c.error_at(tok.col, format!("unknown tile op '{}'", tok.text));
    };
    if let ops::Carrier::Tlsu(t) = op.carrier {
        return c.error_at(
            tok.col,
            format!(
                "{} opens with its own block start: write BSTART.{} DataType",
                op.mnemonic,
                t.mnemonic()
            ),
        );
    }
    if op.engine.alias() != alias {
        return c.error_at(
            tok.col,
            format!(
                "{} runs on the {} engine: write BSTART.{} {}",
                op.mnemonic,
                op.engine.alias(),
                op.engine.alias(),
                op.mnemonic
            ),
        );
    }
    c.comma()?;
    let dtype = c.dtype()?;
    Ok(op.bstart(dtype))
}

/// `BSTART.STD FALL|IND|RET` or `BSTART.STD DIRECT|COND, .±N` (N: byte offset from this BSTART).
fn parse_std(c: &mut Cursor) -> PResult<Instruction> {
    let tok = c.word("a transfer (FALL, DIRECT, COND, IND, RET)")?;
    let transfer = [
        Transfer::Fall,
        Transfer::Direct,
        Transfer::Cond,
        Transfer::Ind,
        Transfer::Ret,
    ]
    .into_iter()
    .find(|t| t.name().eq_ignore_ascii_case(&tok.text));
    let Some(transfer) = transfer else {
        return c.error_at(
            tok.col,
            format!(
                "unknown transfer '{}' (FALL, DIRECT, COND, IND, RET)",
                tok.text
            ),
        );
    };
    let mut offset = 0;
    if transfer.has_target() {
        c.comma()?;
        let tok = c.word("a target '.+N' or '.-N'")?;
        let reach = StdStart::REACH as i64;
        offset = tok
            .text
            .strip_prefix('.')
            .and_then(parse_signed)
            .filter(|&n| n % 2 == 0 && (-reach..reach).contains(&n))
            .map_or_else(
                || {
                    c.error_at(
                        tok.col,
                        format!(
                            "target '{}' must be '.+N' or '.-N' with N an even byte offset \
                             below {reach}",
                            tok.text
                        ),
                    )
                },
                Ok,
            )? as i32;
    }
    Ok(Instruction::BStartStd(StdStart { transfer, offset }))
}

/// `B.FPATR` with its nine fields in the spec's order; a mode may be written `None` for 0.
fn parse_fpatr(c: &mut Cursor) -> PResult<Instruction> {
    let field = |c: &mut Cursor, what: &str, max: u64, first: bool| -> PResult<u64> {
        if !first {
            c.comma()?;
        }
        if c.peek()
            .is_some_and(|t| t.text.eq_ignore_ascii_case("none"))
            && max > 1
        {
            c.word(what)?;
            return Ok(0);
        }
        c.number(what, max)
    };
    let pre_quant = field(c, "PreQuantMode", 63, true)? as u8;
    let relu = field(c, "ReluMode", 7, false)? as u8;
    let group_n = field(c, "GroupNCode", 15, false)? as u8;
    let mut flags = [false; 6];
    for (slot, name) in flags.iter_mut().zip([
        "RowMaxEn",
        "GroupMaxEn",
        "RowMaxInit",
        "MaxAbsEn",
        "TransA",
        "TransB",
    ]) {
        *slot = field(c, name, 1, false)? == 1;
    }
    let [row_max, group_max, row_max_init, max_abs, trans_a, trans_b] = flags;
    Ok(Instruction::BFpatr(Fpatr {
        pre_quant,
        relu,
        group_n,
        row_max,
        group_max,
        row_max_init,
        max_abs,
        trans_a,
        trans_b,
    }))
}

/// `BSTART.TLOAD DT`, `BSTART.TSTORE DT`, `BSTART.TMOV DT|DTYPE_NONE`.
fn parse_tlsu(c: &mut Cursor, op: TlsuOp) -> PResult<Instruction> {
    let tok = c.word("a DataType")?;
    let dtype = match datr_dtype(&tok.text) {
        Some(None) if op != TlsuOp::Mov => {
            return c.error_at(
                tok.col,
                format!("DTYPE_NONE is reserved in BSTART.{}", op.mnemonic()),
            )
        }
        Some(d) => d,
        None => return c.error_at(tok.col, format!("unknown DataType '{}'", tok.text)),
    };
    Ok(Instruction::BStartTlsu(TlsuStart { op, dtype }))
}

/// A decimal or `0x` number with an optional sign.
fn parse_signed(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let n = i64::try_from(parse_number(digits)?).ok()?;
    Some(if negative { -n } else { n })
}

/// A signed immediate in `min..=max`.
fn immediate(c: &mut Cursor, what: &str, min: i64, max: i64) -> PResult<i64> {
    let tok = c.word(what)?;
    parse_signed(&tok.text)
        .filter(|n| (min..=max).contains(n))
        .map_or_else(
            || {
                c.error_at(
                    tok.col,
                    format!(
                        "{what} must be a number in {min}..={max}, found '{}'",
                        tok.text
                    ),
                )
            },
            Ok,
        )
}

/// A scalar source register (`a0`, `r7`, `t#1`, `u#4`).
fn scalar_source(c: &mut Cursor) -> PResult<u8> {
    c.named("scalar source register", scalar::parse_source)
}

/// `->rd` of a scalar instruction (`->a0`, `->t`, `->u`, `->zero`).
fn scalar_destination(c: &mut Cursor) -> PResult<u8> {
    c.comma()?;
    c.expect(Kind::Arrow, "'->'")?;
    c.named("scalar destination register", scalar::parse_destination)
}

/// An optional `<<N` after a right operand or immediate.
fn left_shift(c: &mut Cursor, max: u64) -> PResult<u8> {
    if !c.at(Kind::Lt) {
        return Ok(0);
    }
    c.expect(Kind::Lt, "'<<'")?;
    c.expect(Kind::Lt, "'<<'")?;
    Ok(c.number("shift amount", max)? as u8)
}

/// The right operand `reg[.sw|.uw|.neg|.not][<<N]` of a register form.
fn modified_right(c: &mut Cursor, info: &ScalarInfo, inst: &mut ScalarInst) -> PResult<()> {
    let tok = c.word("a scalar source register")?;
    let (name, suffix) = match tok.text.split_once('.') {
        Some((n, s)) => (n, Some(s)),
        None => (tok.text.as_str(), None),
    };
    inst.right = scalar::parse_source(name).map_or_else(
        || c.error_at(tok.col, format!("unknown scalar source register '{name}'")),
        Ok,
    )?;
    let modifier = match suffix.map(str::to_ascii_lowercase).as_deref() {
        None => Modifier::None,
        Some("sw") => Modifier::Sw,
        Some("uw") => Modifier::Uw,
        Some("neg") => Modifier::Neg,
        Some("not") => Modifier::Not,
        Some(other) => return c.error_at(tok.col, format!("unknown modifier '.{other}'")),
    };
    inst.rtype = ScalarInst::rtype_for(info, modifier).map_or_else(
        || {
            c.error_at(
                tok.col,
                format!(
                    "{} has no '{}' modifier",
                    info.mnemonic.to_ascii_lowercase(),
                    modifier.suffix()
                ),
            )
        },
        Ok,
    )?;
    if info.format == Format::RegModified {
        inst.shamt = left_shift(c, 31)?;
    }
    Ok(())
}

/// One scalar instruction in the spec's syntax, destination last (docs/isa.md §11.7).
fn parse_scalar(c: &mut Cursor, info: &'static ScalarInfo) -> PResult<Instruction> {
    let mut inst = ScalarInst::of(info.mnemonic).expect("row of the table");
    match info.format {
        Format::RegModified | Format::Compare => {
            inst.left = scalar_source(c)?;
            c.comma()?;
            modified_right(c, info, &mut inst)?;
            inst.dst = scalar_destination(c)?;
        }
        Format::Reg => {
            inst.left = scalar_source(c)?;
            c.comma()?;
            inst.right = scalar_source(c)?;
            inst.dst = scalar_destination(c)?;
        }
        Format::ImmUnsigned | Format::ImmSigned | Format::Shift => {
            inst.left = scalar_source(c)?;
            c.comma()?;
            let (min, max) = match info.format {
                Format::ImmUnsigned => (0, 4095),
                Format::ImmSigned => (-2048, 2047),
                _ => (0, 63),
            };
            inst.imm = immediate(c, "immediate", min, max)?;
            inst.dst = scalar_destination(c)?;
        }
        Format::Upper => {
            inst.imm = immediate(c, "20-bit immediate", 0, 0xF_FFFF)?;
            inst.dst = scalar_destination(c)?;
        }
        Format::SetC => {
            inst.left = scalar_source(c)?;
            c.comma()?;
            modified_right(c, info, &mut inst)?;
        }
        Format::SetCImm { signed } => {
            inst.left = scalar_source(c)?;
            c.comma()?;
            let (min, max) = if signed { (-2048, 2047) } else { (0, 4095) };
            inst.imm = immediate(c, "immediate", min, max)?;
            inst.shamt = left_shift(c, 31)?;
        }
        Format::Select => {
            inst.pred = scalar_source(c)?;
            c.comma()?;
            inst.left = scalar_source(c)?;
            c.comma()?;
            modified_right(c, info, &mut inst)?;
            inst.dst = scalar_destination(c)?;
        }
    }
    Ok(Instruction::Scalar(inst))
}

fn parse_tepl(c: &mut Cursor) -> PResult<Instruction> {
    let mode = c.number("Mode", 3)? as u32;
    c.comma()?;
    let col = c.col();
    let function = c.number("Function", 31)? as u32;
    if !tepl_function_accepted(mode, function) {
        return c.error_at(
            col,
            format!("Mode {mode} Function {function} is not an accepted TEPL selector"),
        );
    }
    c.comma()?;
    let dtype = c.dtype()?;
    Ok(Instruction::BStart(BStart {
        mode: mode as u8,
        function: function as u8,
        dtype,
    }))
}

/// The B.DATR fields as they are given, so duplicates can be reported.
#[derive(Default)]
struct DatrFields {
    seen: HashSet<&'static str>,
    datr: Option<Datr>,
}

impl DatrFields {
    fn set(
        &mut self,
        c: &Cursor,
        col: u32,
        field: &'static str,
        apply: impl FnOnce(&mut Datr),
    ) -> PResult<()> {
        if !self.seen.insert(field) {
            return c.error_at(col, format!("B.DATR {field} given twice"));
        }
        apply(
            self.datr
                .get_or_insert(Datr::with(Some(DataType::FP64), PadValue::Zero)),
        );
        Ok(())
    }
}

/// A B.DATR DataType field value: a DataType or DTYPE_NONE.
fn datr_dtype(text: &str) -> Option<Option<DataType>> {
    if text.eq_ignore_ascii_case(DTYPE_NONE_NAME) {
        Some(None)
    } else {
        DataType::from_name(text).map(Some)
    }
}

fn flag(c: &mut Cursor, what: &str) -> PResult<bool> {
    Ok(c.number(what, 1)? == 1)
}

fn pad_value(c: &mut Cursor) -> PResult<PadValue> {
    let tok = c.word("a PadValue")?;
    PadValue::from_name(&tok.text)
        .or_else(|| {
            parse_number(&tok.text)
                .filter(|&n| n <= 3)
                .map(|n| PadValue::from_code(n as u32))
        })
        .map_or_else(
            || {
                c.error_at(
                    tok.col,
                    format!(
                        "unknown PadValue '{}' (Zero, Max, Min, Null or 0..=3)",
                        tok.text
                    ),
                )
            },
            Ok,
        )
}

fn parse_datr(c: &mut Cursor) -> PResult<Instruction> {
    let mut d = Datr::with(Some(DataType::FP64), PadValue::Zero);
    if c.eat(Kind::LBrace) {
        d.layout = c.named("Layout", layout_by_name)?;
        c.comma()?;
        d.dtype = c.named("B.DATR DataType", datr_dtype)?;
        c.comma()?;
        d.pad = pad_value(c)?;
        c.comma()?;
        d.cmode = c.named("CMode", cmode_by_name)?;
        c.comma()?;
        d.rmode = c.named("RMode", rmode_by_name)?;
        c.comma()?;
        d.sat = flag(c, "Sat")?;
        c.comma()?;
        d.canonicalize = flag(c, "Canonicalize")?;
        c.expect(Kind::RBrace, "'}'")?;
        return Ok(Instruction::BDatr(d));
    }
    let mut fields = DatrFields::default();
    let mut first = true;
    while c.peek().is_some() {
        if !first {
            c.comma()?;
        }
        first = false;
        let tok = c.word("a B.DATR field")?;
        let col = tok.col;
        if c.eat(Kind::Eq) {
            match tok.text.to_ascii_lowercase().as_str() {
                "datatype" => {
                    let v = c.named("B.DATR DataType", datr_dtype)?;
                    fields.set(c, col, "DataType", |d| d.dtype = v)?;
                }
                "padvalue" | "byteid" => {
                    let v = pad_value(c)?;
                    fields.set(c, col, "PadValue", |d| d.pad = v)?;
                }
                "cmode" => {
                    let v = c.named("CMode", cmode_by_name)?;
                    fields.set(c, col, "CMode", |d| d.cmode = v)?;
                }
                "rmode" => {
                    let v = c.named("RMode", rmode_by_name)?;
                    fields.set(c, col, "RMode", |d| d.rmode = v)?;
                }
                "layout" => {
                    let v = c.named("Layout", layout_by_name)?;
                    fields.set(c, col, "Layout", |d| d.layout = v)?;
                }
                "sat" => {
                    let v = flag(c, "Sat")?;
                    fields.set(c, col, "Sat", |d| d.sat = v)?;
                }
                "canonicalize" | "canon" => {
                    let v = flag(c, "Canonicalize")?;
                    fields.set(c, col, "Canonicalize", |d| d.canonicalize = v)?;
                }
                _ => return c.error_at(col, format!("unknown B.DATR field '{}'", tok.text)),
            }
            continue;
        }
        // A bare value: its spelling says which field it sets.
        let text = tok.text.as_str();
        if let Some(v) = datr_dtype(text) {
            fields.set(c, col, "DataType", |d| d.dtype = v)?;
        } else if let Some(v) = PadValue::from_name(text) {
            fields.set(c, col, "PadValue", |d| d.pad = v)?;
        } else if let Some(v) = rmode_by_name(text) {
            fields.set(c, col, "RMode", |d| d.rmode = v)?;
        } else if let Some(v) = layout_by_name(text) {
            fields.set(c, col, "Layout", |d| d.layout = v)?;
        } else if let Some(v) = cmode_by_name(text).filter(|_| !text.eq_ignore_ascii_case("None")) {
            fields.set(c, col, "CMode", |d| d.cmode = v)?;
        } else {
            return c.error_at(col, format!("unknown B.DATR value '{text}'"));
        }
    }
    Ok(Instruction::BDatr(fields.datr.unwrap_or(d)))
}

/// `LB0`/`LB1`/`LB2` → 0/1/2.
fn loop_bound(text: &str) -> Option<u8> {
    match text.to_ascii_uppercase().as_str() {
        "LB0" => Some(0),
        "LB1" => Some(1),
        "LB2" => Some(2),
        _ => None,
    }
}

const UIMM17_MAX: u64 = (1 << 17) - 1;

fn parse_dim(c: &mut Cursor) -> PResult<Instruction> {
    let tok = c.word("LB0/LB1/LB2 or a GPR")?;
    if let Some(lb) = loop_bound(&tok.text) {
        if !c.eat(Kind::Eq) {
            c.comma()?;
        }
        let imm = c.number("dimension", UIMM17_MAX)? as u32;
        return Ok(Instruction::BDim(Dim { lb, reg: 0, imm }));
    }
    let Some(reg) = gpr_by_name(&tok.text) else {
        return c.error_at(
            tok.col,
            format!(
                "expected LB0/LB1/LB2 or a GPR ({}), found '{}'",
                GPR_NAMES.join(", "),
                tok.text
            ),
        );
    };
    c.comma()?;
    let imm = c.number("immediate", UIMM17_MAX)? as u32;
    c.comma()?;
    c.expect(Kind::Arrow, "'->'")?;
    let lb = c.named("loop bound (LB0, LB1, LB2)", loop_bound)?;
    Ok(Instruction::BDim(Dim { lb, reg, imm }))
}

fn source_register(c: &mut Cursor) -> PResult<TileReg> {
    let tok = c.word("a source register")?;
    if let Some(r) = parse_register(&tok.text) {
        return Ok(r);
    }
    let numbered = tok.text.len() > 1 && tok.text[1..].bytes().all(|b| b.is_ascii_digit());
    if numbered && tok.text.starts_with(['T', 'U', 'M', 'N']) {
        return c.error_at(
            tok.col,
            format!(
                "write sources as absolute register names like {}#1, not '{}'",
                &tok.text[..1],
                tok.text
            ),
        );
    }
    c.error_at(
        tok.col,
        format!(
            "expected a source register (T#1…N#16), found '{}'",
            tok.text
        ),
    )
}

fn parse_iot(c: &mut Cursor) -> PResult<Instruction> {
    let mut regs = Vec::new();
    while !c
        .peek()
        .is_some_and(|t| t.text.eq_ignore_ascii_case("mask"))
    {
        if regs.len() == 2 {
            return c.error_at(
                c.col(),
                format!("expected 'mask=' after two sources, found {}", c.found()),
            );
        }
        regs.push(source_register(c)?);
        c.comma()?;
    }
    let mask = c.mask()?;
    let mut last = false;
    let mut dst = None;
    while c.eat(Kind::Comma) {
        if dst.is_some() {
            return c.error_at(c.col(), "the destination must come last");
        }
        if c.at(Kind::Arrow) {
            let (hand, size) = c.destination("TUMN", 10)?;
            let hand = Hand::from_letter(hand).unwrap_or(Hand::T);
            dst = SizeCode::new(size as u32).map(|s| (hand, s));
            continue;
        }
        let col = c.col();
        let bracketed = c.eat(Kind::Lt);
        let tok = c.word("'last' or a destination")?;
        if !tok.text.eq_ignore_ascii_case("last") || last {
            return c.error_at(
                col,
                format!("expected 'last' or '->' once, found '{}'", tok.text),
            );
        }
        if bracketed {
            c.expect(Kind::Gt, "'>'")?;
        }
        last = true;
    }
    let sources = match regs[..] {
        [a, b] => IotSources::Two(a, b),
        [a] => IotSources::One(a),
        _ if dst.is_none() => {
            return c.error_at(
                c.toks.first().map_or(1, |t| t.col),
                "a B.IOT without sources needs a destination",
            )
        }
        _ => IotSources::None,
    };
    Ok(Instruction::BIot(Iot {
        sources,
        last,
        mask,
        dst,
    }))
}

fn gpr(c: &mut Cursor) -> PResult<u8> {
    c.named("GPR", gpr_by_name)
}

fn parse_ior(c: &mut Cursor) -> PResult<Instruction> {
    let mut r = Ior {
        dst: 0,
        src: [0; 3],
    };
    let mut n = 0;
    while c.peek().is_some() {
        if n > 0 {
            c.comma()?;
        }
        if c.eat(Kind::Arrow) {
            r.dst = gpr(c)?;
            break;
        }
        if n == 3 {
            return c.error_at(c.col(), "B.IOR takes at most three sources");
        }
        r.src[n] = gpr(c)?;
        n += 1;
    }
    Ok(Instruction::BIor(r))
}

fn parse_ios(c: &mut Cursor) -> PResult<Instruction> {
    let tok = c.word("a shared tile S0..S255")?;
    let shared = tok
        .text
        .strip_prefix(['S', 's'])
        .and_then(parse_number)
        .filter(|&n| n <= 255 && tok.text[1..].bytes().all(|b| b.is_ascii_digit()));
    let Some(shared) = shared else {
        return c.error_at(
            tok.col,
            format!("expected a shared tile S0..S255, found '{}'", tok.text),
        );
    };
    c.comma()?;
    let mask = c.mask()?;
    let mut size_code = 0;
    if c.eat(Kind::Comma) {
        size_code = c.destination("S", 12)?.1 as u8;
    }
    Ok(Instruction::BIos(Ios {
        shared: shared as u8,
        size_code,
        mask,
    }))
}

/// A kernel or tile name: a bare word or a quoted string.
fn name(c: &mut Cursor) -> PResult<String> {
    match c.peek() {
        Some(t) if matches!(t.kind, Kind::Word | Kind::Str) => {
            c.pos += 1;
            if t.text.is_empty() {
                return c.error_at(t.col, "a name cannot be empty");
            }
            Ok(t.text.clone())
        }
        _ => c.error_at(c.col(), format!("expected a name, found {}", c.found())),
    }
}

/// `RxC` → (R, C).
fn shape(c: &mut Cursor, what: &str) -> PResult<(u32, u32)> {
    let tok = c.word(what)?;
    let parsed = tok.text.split_once('x').and_then(|(r, cols)| {
        let n = |s: &str| parse_number(s).and_then(|n| u32::try_from(n).ok());
        Some((n(r)?, n(cols)?))
    });
    parsed.map_or_else(
        || {
            c.error_at(
                tok.col,
                format!("expected {what} like 8x16, found '{}'", tok.text),
            )
        },
        Ok,
    )
}

/// `key=` before a value.
fn key(c: &mut Cursor, key: &str) -> PResult<()> {
    c.comma()?;
    let tok = c.word(&format!("'{key}='"))?;
    if !tok.text.eq_ignore_ascii_case(key) {
        return c.error_at(tok.col, format!("expected '{key}=', found '{}'", tok.text));
    }
    c.expect(Kind::Eq, "'='").map(|_| ())
}

/// `.arg NAME, T#1, FP32, 8x16, valid=8x12, size=3, pad=Null` (and `.result`).
fn parse_tile(c: &mut Cursor) -> PResult<TileMeta> {
    let start = c.col();
    let name = name(c)?;
    c.comma()?;
    let register = source_register(c)?;
    c.comma()?;
    let (storage, dtype) = c.named("DataType or PRED", metadata::storage_and_type)?;
    c.comma()?;
    let (rows, cols) = shape(c, "a physical shape")?;
    key(c, "valid")?;
    let (valid_rows, valid_cols) = shape(c, "a valid shape")?;
    key(c, "size")?;
    let col = c.col();
    let size = c.number("SizeCode", 10)? as u32;
    let Some(size_code) = SizeCode::new(size) else {
        return c.error_at(col, "SizeCode must be in 1..=10");
    };
    key(c, "pad")?;
    let pad = c.named("PadValue", PadValue::from_name)?;
    c.end()?;
    let tile = TileMeta {
        name,
        register,
        dtype,
        storage,
        rows,
        cols,
        valid_rows,
        valid_cols,
        size_code,
        pad,
        layout: ptoc_isa::Layout::Norm,
    };
    tile.check()
        .map_or_else(|m| c.error_at(start, m), |()| Ok(tile))
}

/// `pos=N`.
fn position(c: &mut Cursor) -> PResult<usize> {
    key(c, "pos")?;
    Ok(c.number("argument position", u16::MAX as u64)? as usize)
}

/// `.memref NAME, GPR, DT, RxC, pos=N[, stored][, workspace]`.
fn parse_memref(c: &mut Cursor) -> PResult<MemRefMeta> {
    let name = name(c)?;
    c.comma()?;
    let gpr = c.named("writable GPR (a0, s1, …)", metadata::parse_gpr)?;
    c.comma()?;
    let dtype = c.named("arithmetic DataType", |t| {
        DataType::from_name(t).filter(|t| ptoc_isa::dtype::ARITHMETIC.contains(t))
    })?;
    c.comma()?;
    let (rows, cols) = shape(c, "a memref shape")?;
    let position = position(c)?;
    // Then `stored` and `workspace`, each at most once and in that order.
    let (mut stored, mut workspace) = (false, false);
    while c.eat(Kind::Comma) {
        let tok = c.word("'stored' or 'workspace'")?;
        match tok.text.to_ascii_lowercase().as_str() {
            "stored" if !stored && !workspace => stored = true,
            "workspace" if !workspace => workspace = true,
            _ => {
                let want = if workspace {
                    "the end of the line"
                } else if stored {
                    "'workspace'"
                } else {
                    "'stored' or 'workspace'"
                };
                return c.error_at(tok.col, format!("expected {want}, found '{}'", tok.text));
            }
        }
    }
    c.end()?;
    Ok(MemRefMeta {
        name,
        position,
        gpr,
        dtype,
        rows,
        cols,
        stored,
        workspace,
    })
}

/// `.scalar NAME, GPR, TYPE, pos=N`.
fn parse_scalar_arg(c: &mut Cursor) -> PResult<ScalarMeta> {
    let name = name(c)?;
    c.comma()?;
    let gpr = c.named("writable GPR (a0, s1, …)", metadata::parse_gpr)?;
    c.comma()?;
    let ty = c.named(
        "scalar type (index or a DataType)",
        ScalarType::from_spec_name,
    )?;
    let position = position(c)?;
    c.end()?;
    Ok(ScalarMeta {
        name,
        position,
        gpr,
        ty,
    })
}

/// A kernel being assembled.
struct Building {
    name: String,
    /// Where the kernel's first statement is, for errors about the kernel as a whole.
    loc: Location,
    words: Vec<u32>,
    meta: KernelMeta,
    pe_mask_set: bool,
}

impl Building {
    fn new(name: String, loc: Location) -> Building {
        Building {
            name,
            loc,
            words: Vec::new(),
            meta: KernelMeta::default(),
            pe_mask_set: false,
        }
    }
    /// The kernel, after checking its argument lists agree (positions, GPRs, names).
    fn finish(self, diags: &mut Vec<Diagnostic>) -> Kernel {
        if let Err(m) = self.meta.check_arguments() {
            diags.push(Diagnostic::error(
                self.loc.clone(),
                format!("kernel '{}': {m}", self.name),
            ));
        }
        Kernel {
            name: self.name,
            bundles: group_bundles(&self.words),
            meta: self.meta,
        }
    }
}

/// The kernel name for statements before any `.kernel`: the file's stem, or `kernel`.
fn default_kernel_name(file: &str) -> String {
    let stem = std::path::Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("");
    if crate::syntax::is_plain_name(stem) {
        stem.to_string()
    } else {
        "kernel".to_string()
    }
}

/// Assemble `source` (named `file` in diagnostics) into kernels, or report every error.
pub fn assemble(source: &str, file: &str) -> Result<Vec<Kernel>, Vec<Diagnostic>> {
    let file: Arc<str> = Arc::from(file);
    let mut diags = Vec::new();
    let mut kernels: Vec<Kernel> = Vec::new();
    let mut names = HashSet::new();
    let mut current: Option<Building> = None;
    for (index, line) in source.lines().enumerate() {
        let line_no = index as u32 + 1;
        let toks = match lex_line(line) {
            Ok(t) => t,
            Err((col, m)) => {
                diags.push(Diagnostic::error(
                    Location::new(file.clone(), line_no, col),
                    m,
                ));
                continue;
            }
        };
        let end_col = line.chars().count() as u32 + 1;
        for stmt in toks.split(|t| t.kind == Kind::Semi) {
            let mut c = Cursor {
                toks: stmt,
                pos: 0,
                file: &file,
                line: line_no,
                end_col,
            };
            if stmt.is_empty() {
                continue;
            }
            let loc = c.loc(stmt[0].col);
            let parsed = parse_statement(&mut c);
            let stmt = match parsed {
                Ok(s) => s,
                Err(d) => {
                    diags.push(d);
                    continue;
                }
            };
            if let Stmt::Kernel(name) = stmt {
                if !names.insert(name.clone()) {
                    diags.push(Diagnostic::error(
                        loc.clone(),
                        format!("kernel '{name}' is defined twice"),
                    ));
                }
                kernels.extend(current.take().map(|b| b.finish(&mut diags)));
                current = Some(Building::new(name, loc));
                continue;
            }
            let k = current.get_or_insert_with(|| {
                let name = default_kernel_name(&file);
                names.insert(name.clone());
                Building::new(name, loc.clone())
            });
            match stmt {
                Stmt::Word(w) => k.words.push(w),
                Stmt::PeMask(m) if !k.pe_mask_set => {
                    k.meta.pe_mask = m;
                    k.pe_mask_set = true;
                }
                Stmt::PeMask(_) => diags.push(Diagnostic::error(
                    loc,
                    "the kernel's PE mask is already set",
                )),
                Stmt::Spec(s) => k.meta.spec_version = s,
                Stmt::Arg(t) => k.meta.args.push(t),
                Stmt::Result(t) => k.meta.results.push(t),
                Stmt::Profile(p) => k.meta.profile = p,
                Stmt::MemRef(m) => k.meta.memrefs.push(m),
                Stmt::Scalar(v) => k.meta.scalars.push(v),
                Stmt::Kernel(_) => {}
            }
        }
    }
    kernels.extend(current.map(|b| b.finish(&mut diags)));
    if diags.is_empty() {
        Ok(kernels)
    } else {
        Err(diags)
    }
}
