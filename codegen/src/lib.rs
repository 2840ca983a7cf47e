//! (filled by later work)
