//! The Local tile register file: which registers hold a tile, where the naming model puts the
//! next destination of a hand, what a B.IOT source code names, and the core's capacity
//! (docs/isa.md §3.4, §9 decisions 1–2 and 12). The allocator, the lowering and the interpreter
//! all keep one of these, so the rules cannot drift apart.
//!
//! Registers here are physical: 64 slots, 16 per hand. Under `absolute` naming a source code is
//! the slot itself and a destination takes the lowest free slot of its hand. Under `queue` naming
//! each hand is an ordered list of its live slots, newest first; code `T#k` names the k-th newest,
//! and a push onto a hand that already holds 16 retires the oldest in the same commit.

use crate::geometry::{Hand, PeMask, SizeCode, TileReg, LOCAL_REGISTERS, REGISTERS_PER_HAND};
use crate::profile::{NamingModel, PROFILE};

/// The 64 Local registers and the capacity their tiles take.
#[derive(Clone, Debug)]
pub struct RegisterFile {
    naming: NamingModel,
    /// The capacity each allocated register's tile takes; `None` for a free register.
    footprints: [Option<u64>; LOCAL_REGISTERS as usize],
    allocated_bytes: u64,
    /// Queue naming: each hand's live slots, newest first.
    queues: [Vec<TileReg>; 4],
}

/// Where a new destination goes: its physical slot and, under queue naming, the tile its push
/// retires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The register the destination gets.
    pub reg: TileReg,
    /// The tile the push retired to make room, if any.
    pub retired: Option<TileReg>,
}

/// Why a destination cannot be placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaceError {
    /// Absolute naming: all 16 registers of the hand are allocated.
    HandFull(Hand),
    /// The tile would take the core past its capacity.
    Capacity(CapacityExceeded),
}

impl std::fmt::Display for PlaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlaceError::HandFull(h) => write!(f, "no free register in hand {}", h.letter()),
            PlaceError::Capacity(c) => c.fmt(f),
        }
    }
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

    /// No register allocated, under the spec's executable model (absolute naming); the
    /// compiler's default profile is `PROFILE.naming`, chosen explicitly with
    /// [`RegisterFile::with_naming`].
    pub fn new() -> RegisterFile {
        RegisterFile::with_naming(NamingModel::AbsoluteNoFree)
    }

    /// No register allocated, under `naming`.
    pub fn with_naming(naming: NamingModel) -> RegisterFile {
        RegisterFile {
            naming,
            footprints: [None; LOCAL_REGISTERS as usize],
            allocated_bytes: 0,
            queues: Default::default(),
        }
    }

    #[inline]
    /// The naming model the file allocates with.
    pub fn naming(&self) -> NamingModel {
        self.naming
    }

    /// The physical register a B.IOT source code names, if it names a live tile.
    #[inline]
    pub fn resolve(&self, code: TileReg) -> Option<TileReg> {
        match self.naming {
            NamingModel::AbsoluteNoFree => self.is_allocated(code).then_some(code),
            NamingModel::Queue => self.queues[code.hand() as usize]
                .get(code.number() as usize - 1)
                .copied(),
        }
    }

    /// The source code that names physical register `reg` now (the inverse of [`resolve`]).
    ///
    /// [`resolve`]: RegisterFile::resolve
    pub fn code_of(&self, reg: TileReg) -> Option<TileReg> {
        match self.naming {
            NamingModel::AbsoluteNoFree => self.is_allocated(reg).then_some(reg),
            NamingModel::Queue => {
                let hand = reg.hand();
                let k = self.queues[hand as usize].iter().position(|&r| r == reg)?;
                TileReg::of(hand, k as u8 + 1)
            }
        }
    }

    /// Where the next destination of `hand`, taking `bytes`, would go; nothing changes.
    pub fn preview(&self, hand: Hand, bytes: u64) -> Result<Placement, PlaceError> {
        let placement = self.slot_for(hand)?;
        let released = placement
            .retired
            .and_then(|r| self.footprints[r.index() as usize])
            .unwrap_or(0);
        let need = self.allocated_bytes - released + bytes;
        if need > Self::CAPACITY_BYTES {
            return Err(PlaceError::Capacity(CapacityExceeded { need }));
        }
        Ok(placement)
    }

    /// The slot the naming model gives the next destination of `hand`, whatever the capacity.
    fn slot_for(&self, hand: Hand) -> Result<Placement, PlaceError> {
        let free = (1..=REGISTERS_PER_HAND)
            .filter_map(|k| TileReg::of(hand, k))
            .find(|&reg| !self.is_allocated(reg));
        let placement = match (self.naming, free) {
            (_, Some(reg)) => Placement { reg, retired: None },
            (NamingModel::AbsoluteNoFree, None) => return Err(PlaceError::HandFull(hand)),
            (NamingModel::Queue, None) => {
                let oldest = *self.queues[hand as usize]
                    .last()
                    .expect("a hand with no free slot holds 16 tiles");
                Placement {
                    reg: oldest,
                    retired: Some(oldest),
                }
            }
        };
        Ok(placement)
    }

    /// Place the next destination of `hand`: retire what its push retires, allocate its slot.
    pub fn place(&mut self, hand: Hand, bytes: u64) -> Result<Placement, PlaceError> {
        let placement = self.preview(hand, bytes)?;
        self.apply(hand, placement, bytes);
        Ok(placement)
    }

    /// Carry out a placement [`preview`](Self::preview) returned for `hand` and `bytes`, with
    /// nothing placed or freed in between (the interpreter checks a bundle, then publishes it).
    pub fn apply(&mut self, hand: Hand, placement: Placement, bytes: u64) {
        if let Some(old) = placement.retired {
            self.free(old);
        }
        self.footprints[placement.reg.index() as usize] = Some(bytes);
        self.allocated_bytes += bytes;
        if self.naming == NamingModel::Queue {
            self.queues[hand as usize].insert(0, placement.reg);
        }
    }

    /// The capacity a tile of `size` allocated under `mask` takes: one copy per enabled PE.
    pub fn footprint(size: SizeCode, mask: PeMask) -> u64 {
        mask.pe_count() as u64 * size.bytes() as u64
    }

    #[inline]
    /// Whether `reg` holds a tile.
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

    /// The physical register the next destination of `hand` takes, whatever the capacity;
    /// `None` when an absolute hand is full.
    pub fn rename(&self, hand: Hand) -> Option<TileReg> {
        self.slot_for(hand).ok().map(|p| p.reg)
    }

    /// Where a tile that asks for the first hand with room (T, U, M, N order) is renamed to.
    pub fn rename_in_first_free_hand(&self) -> Option<TileReg> {
        Hand::ALL.into_iter().find_map(|hand| self.rename(hand))
    }

    /// Allocate physical `reg` for a tile taking `bytes` of capacity (checking capacity is the
    /// caller's: the allocator reports the whole shortfall, the interpreter faults on it). Under
    /// queue naming the tile becomes the newest of its hand.
    pub fn allocate(&mut self, reg: TileReg, bytes: u64) -> Result<(), AlreadyAllocated> {
        let slot = &mut self.footprints[reg.index() as usize];
        if slot.is_some() {
            return Err(AlreadyAllocated(reg));
        }
        *slot = Some(bytes);
        self.allocated_bytes += bytes;
        if self.naming == NamingModel::Queue {
            self.queues[reg.hand() as usize].insert(0, reg);
        }
        Ok(())
    }

    /// Free physical `reg` (a queue retirement, or the host unloading a result); whether it was
    /// allocated.
    pub fn free(&mut self, reg: TileReg) -> bool {
        match self.footprints[reg.index() as usize].take() {
            Some(bytes) => {
                self.allocated_bytes -= bytes;
                self.queues[reg.hand() as usize].retain(|&r| r != reg);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(hand: Hand, k: u8) -> TileReg {
        TileReg::of(hand, k).unwrap()
    }

    /// docs/isa.md §9 decisions 1–2: newest first, `T#k` the k-th newest, a 17th push retires the
    /// oldest in the same commit, and the capacity check counts the tiles live after it.
    #[test]
    fn queue_naming_names_the_kth_newest() {
        let mut file = RegisterFile::with_naming(NamingModel::Queue);
        let mut placed = Vec::new();
        for _ in 0..16 {
            let p = file.place(Hand::T, 1024).unwrap();
            assert_eq!(p.retired, None);
            placed.push(p.reg);
        }
        assert_eq!(file.resolve(code(Hand::T, 1)), Some(placed[15]));
        assert_eq!(file.resolve(code(Hand::T, 16)), Some(placed[0]));
        assert_eq!(file.code_of(placed[3]), Some(code(Hand::T, 13)));
        assert_eq!(file.resolve(code(Hand::U, 1)), None);
        // The 17th push retires the oldest and reuses its slot.
        let p = file.place(Hand::T, 2048).unwrap();
        assert_eq!(
            p,
            Placement {
                reg: placed[0],
                retired: Some(placed[0])
            }
        );
        assert_eq!(file.resolve(code(Hand::T, 1)), Some(placed[0]));
        assert_eq!(file.resolve(code(Hand::T, 16)), Some(placed[1]));
        assert_eq!(file.allocated_bytes(), 15 * 1024 + 2048);
        // Capacity counts what is live after the retirement.
        let mut full = RegisterFile::with_naming(NamingModel::Queue);
        for _ in 0..16 {
            full.place(Hand::U, 16 * 1024).unwrap();
        }
        assert_eq!(full.allocated_bytes(), RegisterFile::CAPACITY_BYTES);
        assert!(
            full.place(Hand::U, 16 * 1024).is_ok(),
            "the push retires as much as it adds"
        );
        assert!(matches!(
            full.place(Hand::T, 128),
            Err(PlaceError::Capacity(_))
        ));
    }

    #[test]
    fn absolute_naming_never_retires() {
        let mut file = RegisterFile::with_naming(NamingModel::AbsoluteNoFree);
        for k in 1..=16 {
            assert_eq!(file.place(Hand::M, 128).unwrap().reg, code(Hand::M, k));
        }
        assert_eq!(file.place(Hand::M, 128), Err(PlaceError::HandFull(Hand::M)));
        assert_eq!(file.resolve(code(Hand::M, 5)), Some(code(Hand::M, 5)));
        assert_eq!(file.resolve(code(Hand::N, 5)), None);
    }

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
