//! ptoc's pass pipeline over the tile IR, one pass per file.
//!
//! Default pipeline: `pto-verify`, `pto-infer-shapes`, `pto-fuse`, `pto-allocate`.
