//! [`LineVec`]: element storage that starts on a 64-byte cache line.
//!
//! Why not `Vec<T>`: the allocator aligns a vector of `u32` to 16 bytes only, so every 512-bit
//! store of a kernel's output row straddles two cache lines, and a 64 KiB TROWEXPANDMAX ran about
//! 15% slower than with aligned rows (measured on AVX-512; see `benches/interp`). Allocating in
//! whole cache lines gives every tile's elements the alignment the widest vector wants, whatever
//! the allocator. The lines are carved out of a plain byte allocation with room to spare, not
//! asked of the allocator with 64-byte alignment: glibc serves aligned requests by splitting a
//! larger chunk and freeing the ends, and those small frees made every later free of a 64 KiB
//! tile consolidate the heap (about 4% of a 64 KiB bundle's time, measured with perf).

use std::fmt;
use std::marker::PhantomData;
use std::mem::{size_of, MaybeUninit};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use crate::elements::Carrier;

/// One cache line of storage, the unit [`LineVec`] allocates in.
#[repr(C, align(64))]
struct Line([u8; 64]);

const LINE: usize = size_of::<Line>();

/// A growable sequence of element carriers whose first element starts a cache line. It reads
/// as a slice (`Deref<Target = [T]>`); growing copies the elements to new lines.
pub struct LineVec<T> {
    /// The allocation (its length stays 0; only its capacity is used): `room` carriers from
    /// byte `start`, the first line boundary in it.
    bytes: Vec<MaybeUninit<u8>>,
    start: usize,
    room: usize,
    /// The first `len` carriers are initialised.
    len: usize,
    elements: PhantomData<T>,
}

impl<T: Carrier> LineVec<T> {
    const PER_LINE: usize = LINE / size_of::<T>();

    /// An empty sequence with room for `count` elements.
    #[inline]
    pub fn with_capacity(count: usize) -> LineVec<T> {
        let room = count.div_ceil(Self::PER_LINE) * Self::PER_LINE;
        let bytes: Vec<MaybeUninit<u8>> = if room == 0 {
            Vec::new()
        } else {
            Vec::with_capacity(room * size_of::<T>() + LINE - 1)
        };
        LineVec {
            start: bytes.as_ptr().align_offset(LINE),
            bytes,
            room,
            len: 0,
            elements: PhantomData,
        }
    }

    /// The first slot, on a line boundary (a dangling one when there is no room).
    fn base(&self) -> *const MaybeUninit<T> {
        if self.room == 0 {
            return NonNull::<Line>::dangling().as_ptr().cast();
        }
        // SAFETY: `start` is within the allocation: it holds `LINE - 1` spare bytes.
        unsafe { self.bytes.as_ptr().add(self.start).cast() }
    }

    /// [`LineVec::base`], for writing.
    fn base_mut(&mut self) -> *mut MaybeUninit<T> {
        if self.room == 0 {
            return NonNull::<Line>::dangling().as_ptr().cast();
        }
        // SAFETY: as in `base`.
        unsafe { self.bytes.as_mut_ptr().add(self.start).cast() }
    }

    /// `count` copies of `value`.
    pub fn from_elem(value: T, count: usize) -> LineVec<T> {
        let mut v = LineVec::with_capacity(count);
        v.resize(count, value);
        v
    }

    /// How many elements fit without growing.
    pub fn capacity(&self) -> usize {
        self.room
    }

    /// Drop every element, keeping the room.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Room for at least `total` elements in all (not `additional`, unlike `Vec::reserve`).
    pub fn reserve_total(&mut self, total: usize) {
        if total <= self.capacity() {
            return;
        }
        let mut grown = LineVec::with_capacity(total);
        grown.spare_capacity_mut()[..self.len].copy_from_slice(self.as_uninit());
        grown.len = self.len;
        *self = grown;
    }

    /// The room after the elements, to initialise before [`LineVec::set_len`].
    pub fn spare_capacity_mut(&mut self) -> &mut [MaybeUninit<T>] {
        let (len, spare) = (self.len, self.capacity() - self.len);
        // SAFETY: the allocation holds `room` carriers from `base`, 64-byte aligned (so aligned
        // for `T`, a plain integer: see `Carrier`); slots from `len` on are handed out as possibly
        // uninitialised.
        unsafe { std::slice::from_raw_parts_mut(self.base_mut().add(len), spare) }
    }

    /// Make the first `len` slots the elements.
    ///
    /// # Safety
    /// `len` is at most the capacity and every slot below it is initialised.
    pub unsafe fn set_len(&mut self, len: usize) {
        debug_assert!(len <= self.capacity());
        self.len = len;
    }

    /// Grow with copies of `value`, or cut, to `count` elements.
    pub fn resize(&mut self, count: usize, value: T) {
        if count > self.len {
            self.reserve_total(count);
            let len = self.len;
            for slot in &mut self.spare_capacity_mut()[..count - len] {
                slot.write(value);
            }
        }
        self.len = count;
    }

    fn as_uninit(&self) -> &[MaybeUninit<T>] {
        // SAFETY: as in `spare_capacity_mut`; the first `len` slots, read as possibly
        // uninitialised (they are initialised).
        unsafe { std::slice::from_raw_parts(self.base(), self.len) }
    }
}

impl<T: Carrier> Deref for LineVec<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the first `len` slots are initialised carriers, aligned for `T`.
        unsafe { std::slice::from_raw_parts(self.base().cast(), self.len) }
    }
}

impl<T: Carrier> DerefMut for LineVec<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, borrowed mutably through `self`.
        unsafe { std::slice::from_raw_parts_mut(self.base_mut().cast(), self.len) }
    }
}

impl<T: Carrier> From<&[T]> for LineVec<T> {
    fn from(values: &[T]) -> LineVec<T> {
        let mut v = LineVec::with_capacity(values.len());
        for (slot, &x) in v.spare_capacity_mut().iter_mut().zip(values) {
            slot.write(x);
        }
        v.len = values.len();
        v
    }
}

impl<T: Carrier> Clone for LineVec<T> {
    fn clone(&self) -> LineVec<T> {
        LineVec::from(&**self)
    }
}

impl<T: Carrier + PartialEq> PartialEq for LineVec<T> {
    fn eq(&self, other: &LineVec<T>) -> bool {
        **self == **other
    }
}

impl<T: Carrier + Eq> Eq for LineVec<T> {}

impl<T: Carrier + fmt::Debug> fmt::Debug for LineVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_start_a_cache_line_and_survive_growth() {
        let mut v = LineVec::<u32>::from_elem(7, 5);
        assert_eq!(v.as_ptr() as usize % 64, 0);
        assert_eq!(&v[..], &[7; 5]);
        v.resize(40, 9);
        assert_eq!(v.as_ptr() as usize % 64, 0);
        assert_eq!((v.len(), v[4], v[5], v[39]), (40, 7, 9, 9));
        v.resize(3, 0);
        assert_eq!(&v[..], &[7, 7, 7]);
        let c = v.clone();
        v.clear();
        assert!(v.is_empty() && v.capacity() >= 40);
        assert_eq!(c, LineVec::from(&[7u32, 7, 7][..]));
        assert_eq!(format!("{c:?}"), "[7, 7, 7]");
        let empty = LineVec::<u8>::with_capacity(0);
        assert!(empty.is_empty() && (empty.as_ptr() as usize).is_multiple_of(64));
    }
}
