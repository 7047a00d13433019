//! The parent <-> worker protocol: shared-memory layout, pipe messages and
//! notes. The text is the harness's own `protocol.rs`, included here so both
//! sides always compile the same definitions.

include!("../../../harness/src/protocol.rs");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_reads_back_as_written() {
        let events = [
            Event::Hello {
                version: PROTOCOL_VERSION,
                typed: true,
                pid: 4242,
            },
            Event::ChildDied { status: 134 },
            Event::Failed {
                generation: 7,
                index: 3,
                kind: NOTE_STACK_OVERFLOW,
                text: Vec::new(),
            },
            Event::Failed {
                generation: 8,
                index: 0,
                kind: NOTE_PANIC,
                text: panic_text("src/a.rs:1:2", "boom", &[0x1234]),
            },
            Event::Idle { generation: 9 },
            Event::InitFailed {
                kind: NOTE_PANIC,
                text: b"init".to_vec(),
            },
        ];
        for event in events {
            let frame = event.encode();
            let (body, len) = next_frame(&frame).unwrap();
            assert_eq!(len, frame.len());
            assert_eq!(Event::decode(body), Some(event));
        }
    }
}
