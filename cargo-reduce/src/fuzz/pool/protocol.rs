//! The parent <-> worker protocol: shared-memory layout, pipe messages and
//! notes. The text is the harness's own `protocol.rs`, included here so both
//! sides always compile the same definitions.

include!("../../../harness/src/protocol.rs");
