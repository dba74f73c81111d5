//! Data only: the static word-piece vectors behind skillbook's meaning search, in a crate of
//! their own so that only programs that ask for meaning (the `meaning` feature of `skillbook`)
//! download and compile them.
//!
//! [`PIECES`] is the uncased English word-piece vocabulary of BERT as shipped with the sentence
//! model all-MiniLM-L6-v2, less its bracketed special pieces: one piece a line, a piece that
//! continues a word written `##piece`. [`VECTORS`] holds one vector a piece, distilled from that
//! model (Apache-2.0; see `NOTICE.md`), in this layout: `SKMV`; the row count and the
//! dimensions as little-endian `u32`; the direction every text shares as `f32`s; each row's
//! `f32` scale; then the rows as signed bytes.
//!
//! ```
//! assert_eq!(&skillbook_vectors::VECTORS[..4], b"SKMV");
//! assert!(skillbook_vectors::PIECES.lines().any(|piece| piece == "skill"));
//! ```

#![no_std]
#![deny(missing_docs)]

/// The word pieces, one a line, in the order of [`VECTORS`]' rows.
pub const PIECES: &str = include_str!("pieces.txt");

/// The vectors: a header, the shared direction, the row scales and one row of signed bytes a
/// piece (see the crate documentation for the layout).
pub const VECTORS: &[u8] = include_bytes!("vectors.bin");
