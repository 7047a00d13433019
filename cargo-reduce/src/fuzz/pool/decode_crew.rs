//! Decoding a typed target's inputs without running the target: a crew of
//! one worker started with `RUST_LIBFUZZER_DEBUG_PATH`, under which the
//! stand-in's `fuzz_target!` writes the decoded value's `Debug` form (as
//! libfuzzer-sys does for `cargo fuzz fmt`) and, when the target was built
//! against the instrumented `arbitrary`, the draws the decoding made
//! (`<path>.draws`). The typed reduction ([`crate::typed`]) reads both.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use super::crew::Crew;
use super::error::PoolError;
use super::round::run_round;
use super::shm::Batch;
use super::PoolOptions;
use crate::engine::OracleError;
use crate::typed::{trace, Decoded};

/// A decoding worker and the files it writes.
#[derive(Debug)]
pub(crate) struct DecodeCrew {
    crew: Mutex<Crew>,
    debug: PathBuf,
    draws: PathBuf,
    _dir: tempfile::TempDir,
}

impl DecodeCrew {
    /// Starts the decoding worker of `binary` (a typed target's plain build).
    pub(crate) fn start(binary: &Path, options: &PoolOptions) -> Result<Self, PoolError> {
        let dir = scratch_dir()?;
        let debug = dir.path().join("debug.txt");
        let draws = dir.path().join("debug.txt.draws");
        let env = vec![(
            OsString::from("RUST_LIBFUZZER_DEBUG_PATH"),
            debug.clone().into_os_string(),
        )];
        let crew = Crew::start(binary, options, env)?;
        Ok(DecodeCrew {
            crew: Mutex::new(crew),
            debug,
            draws,
            _dir: dir,
        })
    }

    /// What decoding `input` gives: its `Debug` form and, with the
    /// instrumented `arbitrary`, its draws (empty without). `None` if the
    /// input does not decode.
    pub(crate) fn decode_input(&self, input: &[u8]) -> Result<Option<Decoded>, PoolError> {
        let mut crew = self.crew.lock().unwrap_or_else(PoisonError::into_inner);
        for path in [&self.debug, &self.draws] {
            remove(path)?;
        }
        let batch = Batch {
            data: input.to_vec(),
            ends: vec![input.len() as u64],
        };
        crew.load(&batch, true)?;
        run_round(&mut crew, 1, &|_| true)?;
        let Some(debug) = read(&self.debug)? else {
            return Ok(None);
        };
        let draws = read(&self.draws)?
            .and_then(|text| trace::parse(&text))
            .unwrap_or_default();
        Ok(Some(Decoded {
            draws,
            debug: Some(debug.trim_end().to_string()),
        })
        .filter(|d| {
            !d.debug
                .as_deref()
                .unwrap_or("")
                .starts_with("Arbitrary Error:")
        }))
    }
}

impl crate::typed::Decoder for DecodeCrew {
    fn decode(&self, input: &[u8]) -> Result<Option<Decoded>, OracleError> {
        Ok(self.decode_input(input)?)
    }
}

/// Where the decoder's files go: a memory file system when there is one
/// (`/dev/shm`), as every decoding writes and removes two files, which a
/// disk-backed `/tmp` makes slower.
fn scratch_dir() -> std::io::Result<tempfile::TempDir> {
    let shm = Path::new("/dev/shm");
    match shm.is_dir() {
        true => tempfile::tempdir_in(shm).or_else(|_| tempfile::tempdir()),
        false => tempfile::tempdir(),
    }
}

fn remove(path: &Path) -> Result<(), PoolError> {
    match std::fs::remove_file(path) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err.into()),
        _ => Ok(()),
    }
}

fn read(path: &Path) -> Result<Option<String>, PoolError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(err.into()),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::tests::pool;
    use super::*;
    use crate::typed::layout::{Layout, Piece};
    use crate::typed::trace::{Draw, Kind};

    /// Ctrl-C stops the pool's rounds, not decoding: a stopped reduction
    /// still shows its value, and the typed passes stop on their limits.
    #[test]
    fn ctrl_c_does_not_stop_decoding() {
        use super::super::tests::stopped_by;
        let pool = stopped_by("typed_lengths", std::sync::Arc::new(true.into()));
        assert!(matches!(pool.run(b"xx"), Err(PoolError::Interrupted)));
        let debug = pool.debug_format(b"xx..yyGrm -rf\x06").unwrap();
        assert!(debug.unwrap().starts_with("Request {"));
    }

    /// The decoder sees each field's bytes: `path`'s length from the last
    /// byte, `path`, `verb`, then `body`, which takes the rest.
    #[test]
    fn the_decoder_reports_every_draw() {
        let pool = pool("typed_lengths");
        let decoder = pool.decoder().unwrap().expect("a typed target");
        let decoded = decoder.decode_input(b"xx..yyGrm -rf\x06").unwrap().unwrap();
        let draw = |kind, start, len, value| Draw {
            kind,
            start,
            len,
            value,
        };
        assert_eq!(
            decoded.draws,
            [
                draw(Kind::Length, 13, 1, 6),
                draw(Kind::Bytes, 0, 6, 0),
                draw(Kind::Fixed, 6, 1, 0),
                draw(Kind::Bytes, 7, 6, 0),
            ]
        );
        assert_eq!(
            decoded.debug.as_deref(),
            Some("Request {\n    path: \"xx..yy\",\n    verb: 71,\n    body: \"rm -rf\",\n}")
        );
        assert!(
            decoder.decode_input(b"").unwrap().is_none(),
            "shorter than the type's size hint: not decoded, as in libfuzzer-sys"
        );
    }

    /// Decodes `input` with the `typed_layout` fixture: its layout, or
    /// `None` if it does not decode.
    fn layout_of(decoder: &DecodeCrew, input: &[u8]) -> Option<(Layout, String)> {
        let decoded = decoder.decode_input(input).unwrap()?;
        Some((
            Layout::from_trace(input, &decoded.draws),
            decoded.debug.unwrap(),
        ))
    }

    /// The length of the shortest input the target decodes: below its
    /// type's `size_hint`, libfuzzer-sys rejects the input undecoded.
    fn shortest_decoded(decoder: &DecodeCrew) -> usize {
        static SHORTEST: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        *SHORTEST.get_or_init(|| {
            (0..64)
                .find(|&n| decoder.decode_input(&vec![0; n]).unwrap().is_some())
                .expect("a short input decodes")
        })
    }

    /// `layout` without the draws at its end that took no byte: once the
    /// data is used up, a length read from nothing is 0 and the draws after
    /// it take nothing, however many there are; the encoding may instead
    /// give that length a zero byte (the same value, fewer such draws).
    fn without_empty_tail(layout: &Layout) -> Vec<Piece> {
        let mut pieces = layout.pieces.clone();
        while matches!(pieces.last(), Some(Piece::Front { bytes, .. }) if bytes.is_empty()) {
            pieces.pop();
        }
        pieces
    }

    /// `layout` with the byte string at `at` shortened by `cut` characters
    /// (bytes, if it is not UTF-8) and its length rewritten.
    fn shortened(layout: &Layout, at: usize, cut: usize) -> Layout {
        let mut edited = layout.clone();
        let Piece::Front { bytes, .. } = &layout.pieces[at] else {
            unreachable!()
        };
        let cut = match std::str::from_utf8(bytes) {
            Ok(text) => {
                let chars = text.chars().count();
                text.char_indices()
                    .nth(chars.saturating_sub(cut))
                    .map_or(bytes.len(), |(i, _)| i)
            }
            Err(_) => bytes.len().saturating_sub(cut),
        };
        edited.pieces[at] = Piece::Front {
            kind: Kind::Bytes,
            bytes: bytes[..cut].to_vec(),
        };
        edited.pieces[at - 1] = Piece::Length(cut as u64);
        edited
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// For random inputs of a derived type with every kind of draw,
        /// many of them 253 to 260 bytes long, so the first length is read
        /// in 1 or 2 bytes and a cut of 1 to 3 characters crosses from
        /// one width to the other: the encoding of the decoded layout
        /// decodes to the same value, and a layout with one string
        /// shortened decodes to exactly the edited draws, so to the
        /// shortened value.
        #[test]
        fn encoded_layouts_decode_to_the_edited_value(
            input in prop_oneof![
                proptest::collection::vec(any::<u8>(), 253..261),
                proptest::collection::vec(any::<u8>(), 0..700),
            ],
            pick in any::<usize>(),
            cut in 1usize..4,
        ) {
            let pool = pool("typed_layout");
            let decoder = pool.decoder().unwrap().expect("a typed target");
            let Some((layout, debug)) = layout_of(&decoder, &input) else {
                return Ok(());
            };
            // libfuzzer-sys rejects an input shorter than the type's
            // `size_hint` before decoding it: such encodings are no values.
            let min = shortest_decoded(&decoder);
            let encoded = layout.encode();
            if encoded.len() < min {
                return Ok(());
            }
            let (again, again_debug) = layout_of(&decoder, &encoded).expect("decodes");
            prop_assert_eq!(without_empty_tail(&again), without_empty_tail(&layout));
            prop_assert_eq!(again_debug, debug);

            let strings: Vec<usize> = (1..layout.pieces.len())
                .filter(|&i| {
                    matches!(&layout.pieces[i], Piece::Front { kind: Kind::Bytes, bytes } if matches!(layout.pieces[i - 1], Piece::Length(v) if v == bytes.len() as u64))
                })
                .collect();
            if strings.is_empty() {
                return Ok(());
            }
            let edited = shortened(&layout, strings[pick % strings.len()], cut);
            if edited.encoded_len() < min {
                return Ok(());
            }
            let (decoded, _) = layout_of(&decoder, &edited.encode()).expect("decodes");
            prop_assert_eq!(without_empty_tail(&decoded), without_empty_tail(&edited));
        }
    }
}
