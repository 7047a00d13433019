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
            },
            Event::Idle { generation: 9 },
            Event::InitFailed {
                kind: NOTE_PANIC,
                text: b"init".to_vec(),
            },
        ];
        for event in events {
            let frame = event.encode();
            // One write each, never interleaved with the fork server's.
            if !matches!(event, Event::InitFailed { .. }) {
                assert!(frame.len() <= 512, "{event:?}");
            }
            let (body, len) = next_frame(&frame).unwrap();
            assert_eq!(len, frame.len());
            assert_eq!(Event::decode(body), Some(event));
        }
    }

    #[test]
    fn every_command_reads_back_as_written() {
        let commands = [
            Request::Round {
                generation: 3,
                shm_len: 1 << 20,
            },
            Request::Exit,
            Request::Resume,
            Request::Release,
        ];
        for command in commands {
            let frame = command.encode();
            let (body, len) = next_frame(&frame).unwrap();
            assert_eq!(len, frame.len());
            assert_eq!(Request::decode(body), Some(command));
        }
    }
}
