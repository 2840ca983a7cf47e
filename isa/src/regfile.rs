//! The Local tile register file: which registers hold a tile, where the renaming rule puts the
//! next destination of a hand, and the core's capacity (docs/isa.md §3.4, §9 decisions 1–2 and
//! 12). The allocator, the lowering's rename check and the interpreter all keep one of these, so
//! the rules cannot drift apart; a second naming model would be a second arm of [`rename`].
//!
//! [`rename`]: RegisterFile::rename

use crate::geometry::{Hand, PeMask, SizeCode, TileReg, LOCAL_REGISTERS, REGISTERS_PER_HAND};
use crate::profile::{NamingModel, PROFILE};

/// The 64 Local registers and the capacity their tiles take.
#[derive(Clone, Debug)]
pub struct RegisterFile {
    /// The capacity each allocated register's tile takes; `None` for a free register.
    footprints: [Option<u64>; LOCAL_REGISTERS as usize],
    allocated_bytes: u64,
}

impl Default for RegisterFile {
    fn default() -> Self {
        RegisterFile::new()
    }
}

/// A tile that would take the core past its capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapacityExceeded {
    /// The capacity allocated tiles would take with it.
    pub need: u64,
}

impl std::fmt::Display for CapacityExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "core tile capacity exceeded: {} > {} bytes",
            self.need,
            RegisterFile::CAPACITY_BYTES
        )
    }
}

/// `allocate` of a register that already holds a tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlreadyAllocated(pub TileReg);

impl RegisterFile {
    /// The core's tile capacity: Σ popcount(mask) × SizeCode bytes over allocated tiles may not
    /// exceed it (docs/isa.md §9 decision 12).
    pub const CAPACITY_BYTES: u64 = PROFILE.core_capacity_bytes as u64;

    /// No register allocated.
    pub fn new() -> RegisterFile {
        RegisterFile {
            footprints: [None; LOCAL_REGISTERS as usize],
            allocated_bytes: 0,
        }
    }

    /// The capacity a tile of `size` allocated under `mask` takes: one copy per enabled PE.
    pub fn footprint(size: SizeCode, mask: PeMask) -> u64 {
        mask.pe_count() as u64 * size.bytes() as u64
    }

    pub fn is_allocated(&self, reg: TileReg) -> bool {
        self.footprints[reg.index() as usize].is_some()
    }

    /// Σ footprint over the allocated registers.
    pub fn allocated_bytes(&self) -> u64 {
        self.allocated_bytes
    }

    /// Whether `bytes` more still fit the core's capacity.
    pub fn fits(&self, bytes: u64) -> bool {
        self.allocated_bytes + bytes <= Self::CAPACITY_BYTES
    }

    /// [`fits`](Self::fits), as an error saying by how much it does not.
    pub fn check_room(&self, bytes: u64) -> Result<(), CapacityExceeded> {
        if self.fits(bytes) {
            Ok(())
        } else {
            Err(CapacityExceeded {
                need: self.allocated_bytes + bytes,
            })
        }
    }

    /// The register the renaming rule gives the next destination of `hand`: the lowest-numbered
    /// free register of the hand (nothing is freed inside a program); `None` when it is full.
    pub fn rename(&self, hand: Hand) -> Option<TileReg> {
        match PROFILE.naming {
            NamingModel::AbsoluteNoFree => (1..=REGISTERS_PER_HAND)
                .filter_map(|k| TileReg::of(hand, k))
                .find(|&reg| !self.is_allocated(reg)),
        }
    }

    /// Where a tile that asks for the first hand with room (T, U, M, N order) is renamed to.
    pub fn rename_in_first_free_hand(&self) -> Option<TileReg> {
        Hand::ALL.into_iter().find_map(|hand| self.rename(hand))
    }

    /// Allocate `reg` for a tile taking `bytes` of capacity (checking capacity is the caller's:
    /// the allocator reports the whole shortfall, the interpreter faults on it).
    pub fn allocate(&mut self, reg: TileReg, bytes: u64) -> Result<(), AlreadyAllocated> {
        let slot = &mut self.footprints[reg.index() as usize];
        if slot.is_some() {
            return Err(AlreadyAllocated(reg));
        }
        *slot = Some(bytes);
        self.allocated_bytes += bytes;
        Ok(())
    }

    /// Free `reg` (the host unloading a result: no instruction frees a register); whether it was
    /// allocated.
    pub fn free(&mut self, reg: TileReg) -> bool {
        match self.footprints[reg.index() as usize].take() {
            Some(bytes) => {
                self.allocated_bytes -= bytes;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg(hand: Hand, k: u8) -> TileReg {
        TileReg::of(hand, k).unwrap()
    }

    #[test]
    fn renaming_takes_the_lowest_free_register_of_a_hand() {
        let mut file = RegisterFile::new();
        assert_eq!(file.rename(Hand::U), Some(reg(Hand::U, 1)));
        file.allocate(reg(Hand::U, 1), 512).unwrap();
        file.allocate(reg(Hand::U, 3), 512).unwrap();
        assert_eq!(file.rename(Hand::U), Some(reg(Hand::U, 2)));
        assert_eq!(
            file.allocate(reg(Hand::U, 3), 512),
            Err(AlreadyAllocated(reg(Hand::U, 3)))
        );
        for k in 1..=16 {
            let _ = file.allocate(reg(Hand::T, k), 512);
        }
        assert_eq!(file.rename(Hand::T), None);
        assert_eq!(file.rename_in_first_free_hand(), Some(reg(Hand::U, 2)));
        assert!(file.free(reg(Hand::T, 7)));
        assert!(!file.free(reg(Hand::T, 7)));
        assert_eq!(file.rename_in_first_free_hand(), Some(reg(Hand::T, 7)));
        assert_eq!(file.rename(Hand::T), Some(reg(Hand::T, 7)));
    }

    #[test]
    fn capacity_counts_one_copy_per_pe() {
        let size = SizeCode::new(10).unwrap(); // 64 KiB
        assert_eq!(RegisterFile::footprint(size, PeMask::ALL_PES), 4 * 65536);
        assert_eq!(
            RegisterFile::footprint(size, PeMask::parse("1100").unwrap()),
            2 * 65536
        );
        let mut file = RegisterFile::new();
        assert!(file.fits(RegisterFile::CAPACITY_BYTES));
        file.allocate(reg(Hand::T, 1), 4 * 65536).unwrap();
        assert_eq!(file.allocated_bytes(), 256 * 1024);
        assert!(!file.fits(1));
        file.free(reg(Hand::T, 1));
        assert_eq!(file.allocated_bytes(), 0);
    }
}
