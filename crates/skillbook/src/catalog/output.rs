//! Where a catalog's text goes as it is rendered, a piece at a time: a counter that measures a
//! tier without keeping it, and a writer that passes each piece on and fingerprints it.

use std::fmt;
use std::io;

use super::{Fingerprint, FingerprintHasher};

/// Counts the characters of what is written to it, and keeps nothing.
#[derive(Debug, Default)]
pub(super) struct Counter {
    characters: usize,
}

impl Counter {
    /// The characters written so far.
    pub(super) fn characters(&self) -> usize {
        self.characters
    }
}

impl fmt::Write for Counter {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        self.characters += text.chars().count();
        Ok(())
    }
}

/// Passes what is written to it on to an [`io::Write`], fingerprinting it on the way; the first
/// error stops it (a [`fmt::Write`] cannot carry an [`io::Error`], so it is kept here).
#[derive(Debug)]
pub(super) struct Writer<W> {
    out: W,
    hasher: FingerprintHasher,
    error: Option<io::Error>,
}

impl<W: io::Write> Writer<W> {
    pub(super) fn new(out: W) -> Self {
        Writer {
            out,
            hasher: FingerprintHasher::new(),
            error: None,
        }
    }

    /// The fingerprint of all that was written, or the error that stopped the writing
    /// (`written` is what the rendering returned).
    pub(super) fn finish(self, written: fmt::Result) -> io::Result<Fingerprint> {
        match (self.error, written) {
            (Some(error), _) => Err(error),
            (None, Err(fmt::Error)) => Err(io::Error::other("the catalog could not be written")),
            (None, Ok(())) => Ok(self.hasher.finish()),
        }
    }
}

impl<W: io::Write> fmt::Write for Writer<W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        if self.error.is_some() {
            return Err(fmt::Error);
        }
        match self.out.write_all(text.as_bytes()) {
            Ok(()) => {
                self.hasher.update(text.as_bytes());
                Ok(())
            }
            Err(error) => {
                self.error = Some(error);
                Err(fmt::Error)
            }
        }
    }
}
