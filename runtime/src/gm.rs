//! Global memory as the interpreter models it: one byte buffer per memref argument, each on a
//! 4 KiB boundary with unmapped space between buffers (docs/isa.md §9 decision 19, §15).
//!
//! A TLOAD or TSTORE names a base address; every element it touches must lie wholly inside the
//! buffer that base points into. Accesses are checked for the whole rectangle before any byte
//! moves, alignment first (Fault_DataAlignment), then the buffer (Fault_DataPage), in row-major
//! order, so the first failing element decides the fault (docs/isa.md §13.8, §17 decision 46).
//! Nothing here can read or write outside a buffer of the host.

use ptoc_isa::FaultClass;

/// Buffers start on this boundary.
pub const PAGE: u64 = 4096;
/// The first buffer's address: address 0 stays unmapped, so a zero base always faults.
const FIRST_BASE: u64 = 0x1_0000;

/// One mapped buffer.
#[derive(Clone, Debug)]
struct Buffer {
    base: u64,
    bytes: Vec<u8>,
}

impl Buffer {
    fn end(&self) -> u64 {
        self.base + self.bytes.len() as u64
    }
}

/// The GM buffers of one kernel run.
#[derive(Clone, Debug, Default)]
pub struct Gm {
    buffers: Vec<Buffer>,
}

/// A GM access fault: class, why, and the element address (docs/isa.md §15).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GmFault {
    pub class: FaultClass,
    pub address: u64,
    pub message: String,
}

/// The element rectangle one tile memory op touches: `base + r·stride + c·bytes` for `r <
/// rows`, `c < cols`, modulo 2^64 (docs/isa.md §13.3).
#[derive(Clone, Copy, Debug)]
pub struct Rect {
    pub base: u64,
    pub stride: u64,
    pub rows: u32,
    pub cols: u32,
    /// Element size in bytes (1, 2, 4 or 8).
    pub bytes: u32,
}

impl Rect {
    fn address(&self, r: u32, c: u32) -> u64 {
        self.base
            .wrapping_add((r as u64).wrapping_mul(self.stride))
            .wrapping_add(c as u64 * self.bytes as u64)
    }
}

impl Gm {
    /// Map a buffer holding `bytes` and return its base address: the next 4 KiB boundary at least
    /// one page past the previous buffer's end.
    pub fn map(&mut self, bytes: Vec<u8>) -> u64 {
        let base = self
            .buffers
            .last()
            .map_or(FIRST_BASE, |b| (b.end() + 2 * PAGE - 1) / PAGE * PAGE);
        self.buffers.push(Buffer { base, bytes });
        base
    }

    /// The bytes of the buffer mapped at `base`.
    pub fn buffer(&self, base: u64) -> Option<&[u8]> {
        self.buffers
            .iter()
            .find(|b| b.base == base)
            .map(|b| b.bytes.as_slice())
    }

    /// Index of the buffer holding `address`.
    fn containing(&self, address: u64) -> Option<usize> {
        self.buffers
            .iter()
            .position(|b| (b.base..b.end()).contains(&address))
    }

    /// Check every element of `rect` before anything moves; returns the buffer they lie in.
    fn preflight(&self, rect: &Rect, what: &str) -> Result<usize, GmFault> {
        let buffer = self.containing(rect.base);
        for r in 0..rect.rows {
            for c in 0..rect.cols {
                let address = rect.address(r, c);
                if !address.is_multiple_of(rect.bytes as u64) {
                    return Err(GmFault {
                        class: FaultClass::DataAlignment,
                        address,
                        message: format!(
                            "{what} element [{r}, {c}] at {address:#x} is not aligned to its {} bytes",
                            rect.bytes
                        ),
                    });
                }
                let inside = buffer.is_some_and(|i| {
                    let b = &self.buffers[i];
                    address >= b.base
                        && address
                            .checked_add(rect.bytes as u64)
                            .is_some_and(|e| e <= b.end())
                });
                if !inside {
                    let whose = match buffer {
                        Some(i) => format!(
                            "outside the buffer at {:#x} ({} bytes) its base points into",
                            self.buffers[i].base,
                            self.buffers[i].bytes.len()
                        ),
                        None => format!(
                            "outside every GM buffer (its base {:#x} points into none)",
                            rect.base
                        ),
                    };
                    return Err(GmFault {
                        class: FaultClass::DataPage,
                        address,
                        message: format!("{what} element [{r}, {c}] at {address:#x} is {whose}"),
                    });
                }
            }
        }
        // Zero elements touch nothing; any buffer index will do.
        Ok(buffer.unwrap_or(0))
    }

    /// Read the rectangle as little-endian element bits, row-major.
    pub fn read(&self, rect: &Rect) -> Result<Vec<u64>, GmFault> {
        let index = self.preflight(rect, "TLOAD")?;
        let mut out = Vec::with_capacity(rect.rows as usize * rect.cols as usize);
        if out.capacity() == 0 {
            return Ok(out);
        }
        let b = &self.buffers[index];
        for r in 0..rect.rows {
            for c in 0..rect.cols {
                let at = (rect.address(r, c) - b.base) as usize;
                let mut bits = 0u64;
                for (i, &byte) in b.bytes[at..at + rect.bytes as usize].iter().enumerate() {
                    bits |= (byte as u64) << (8 * i);
                }
                out.push(bits);
            }
        }
        Ok(out)
    }

    /// Write row-major element bits (their low `rect.bytes` bytes, little-endian) to the rectangle;
    /// where elements overlap, the later one wins (docs/isa.md §13.7).
    pub fn write(&mut self, rect: &Rect, elements: &[u64]) -> Result<(), GmFault> {
        let index = self.preflight(rect, "TSTORE")?;
        if elements.is_empty() {
            return Ok(());
        }
        let b = &mut self.buffers[index];
        let base = b.base;
        for r in 0..rect.rows {
            for c in 0..rect.cols {
                let bits = elements[(r * rect.cols + c) as usize];
                let at = (rect.address(r, c) - base) as usize;
                for (i, byte) in b.bytes[at..at + rect.bytes as usize].iter_mut().enumerate() {
                    *byte = (bits >> (8 * i)) as u8;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_page_aligned_with_gaps() {
        let mut gm = Gm::default();
        let a = gm.map(vec![0; 10]);
        let b = gm.map(vec![0; 4096]);
        let c = gm.map(vec![0; 1]);
        assert_eq!(a % PAGE, 0);
        assert!(b >= a + 10 + PAGE && b % PAGE == 0);
        assert!(c >= b + 4096 + PAGE && c % PAGE == 0);
        assert_ne!(a, 0);
    }

    fn rect(base: u64, stride: u64, rows: u32, cols: u32, bytes: u32) -> Rect {
        Rect {
            base,
            stride,
            rows,
            cols,
            bytes,
        }
    }

    /// The strided load of docs/isa.md §13.9 (`block-exec-bstart-tload-stride-001.asl`), moved
    /// into a buffer: stride 12 bytes, U32 [[1,2],[3,4]].
    #[test]
    fn strided_read_and_write() {
        let mut gm = Gm::default();
        let mut bytes = vec![0u8; 0x20];
        for (at, v) in [(0x0, 1u8), (0x4, 2), (0xC, 3), (0x10, 4)] {
            bytes[at] = v;
        }
        let base = gm.map(bytes);
        assert_eq!(gm.read(&rect(base, 12, 2, 2, 4)), Ok(vec![1, 2, 3, 4]));
        // Stride 0: every row reads row 0.
        assert_eq!(gm.read(&rect(base, 0, 2, 2, 4)), Ok(vec![1, 2, 1, 2]));
        // A zero-stride store: the last row wins.
        gm.write(&rect(base, 0, 2, 2, 4), &[19, 20, 21, 22])
            .unwrap();
        assert_eq!(gm.read(&rect(base, 0, 1, 2, 4)), Ok(vec![21, 22]));
        // Little-endian multi-byte elements, only the low bytes of each carrier.
        gm.write(&rect(base + 8, 0, 1, 1, 2), &[0xFF_A1B2]).unwrap();
        assert_eq!(&gm.buffer(base).unwrap()[8..10], &[0xB2, 0xA1]);
    }

    /// `block-fault-bstart-tload-preflight-001.asl`: the second element leaves the buffer, so
    /// nothing moves and the fault names that element's address.
    #[test]
    fn faults_are_precise() {
        let mut gm = Gm::default();
        let base = gm.map(vec![0xAA; 8]);
        let err = gm.read(&rect(base + 4, 2, 1, 2, 4)).unwrap_err();
        assert_eq!((err.class, err.address), (FaultClass::DataPage, base + 8));
        let err = gm.write(&rect(base + 4, 0, 1, 2, 4), &[1, 2]).unwrap_err();
        assert_eq!(err.class, FaultClass::DataPage);
        assert_eq!(gm.buffer(base).unwrap(), &[0xAA; 8], "no byte moved");
        // Alignment is checked first, at element (0, 0).
        let err = gm.read(&rect(base + 2, 4, 1, 1, 4)).unwrap_err();
        assert_eq!(
            (err.class, err.address),
            (FaultClass::DataAlignment, base + 2)
        );
        // A stride that is not a multiple of the element size faults at row 1.
        let err = gm.read(&rect(base, 2, 2, 1, 4)).unwrap_err();
        assert_eq!(
            (err.class, err.address),
            (FaultClass::DataAlignment, base + 2)
        );
        // A base in no buffer, or an address that wraps around 2^64.
        assert_eq!(
            gm.read(&rect(0, 0, 1, 1, 4)).unwrap_err().class,
            FaultClass::DataPage
        );
        let wrap = gm.read(&rect(base, u64::MAX - 3, 2, 1, 4)).unwrap_err();
        assert_eq!(wrap.class, FaultClass::DataPage);
    }
}
