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

    /// The first failure's note wins, but the stack the parent sampled
    /// gives way to a failure of the test's own.
    #[test]
    fn a_failure_of_the_tests_own_replaces_a_sampled_stack() {
        let mut words = vec![0u64; WORKER_AREA_SIZE / 8];
        let area = words.as_mut_ptr() as *mut u8;
        // SAFETY: `area` is a zeroed, aligned worker area.
        let write = |kind, text: &[u8]| unsafe { write_note(area, kind, 0, text) };
        assert!(write(NOTE_STACK, b"sampled"));
        assert!(!write(NOTE_STACK, b"sampled again"));
        assert!(write(NOTE_PANIC, b"its own"));
        assert!(!write(NOTE_SIGNAL, b"after it"));
        assert!(!write(NOTE_STACK, b"sampled after it"));
        // SAFETY: as above.
        let note = unsafe { read_note(area) }.map(|n| (n.kind, n.text));
        assert_eq!(note, Some((NOTE_PANIC, b"its own".to_vec())));
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

    #[test]
    fn feature_records_read_back_and_a_cut_one_is_skipped() {
        let mut log = Vec::new();
        let mut record = Vec::new();
        feature_record(3, 600, &[8, 17, 4095], &mut record);
        log.extend_from_slice(&record);
        feature_record(0, 600, &[], &mut record);
        log.extend_from_slice(&record);
        feature_record(9, 600, &[1, 2], &mut record);
        log.extend_from_slice(&record[..record.len() - 1]);
        let record = |index, features: &[u32]| FeatureRecord {
            index,
            counters: 600,
            features: features.to_vec(),
        };
        assert_eq!(
            feature_records(&log),
            vec![record(3, &[8, 17, 4095]), record(0, &[])]
        );
    }

    #[test]
    fn features_are_counted_as_libfuzzer_counts_them() {
        assert_eq!(
            [1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 127, 128, 255].map(counter_bucket),
            [0, 1, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]
        );
        let mut out = Vec::new();
        collect_features(&[&[0, 1, 0, 200], &[3]], 0, &mut out);
        assert_eq!(out, vec![8, 3 * 8 + 7, 4 * 8 + 2]);
        out.clear();
        collect_features(&[&[0, 0]], 8 * 100, &mut out);
        // 100 words: log2 6, 3 steps of 8 past the first 8, then 100 >> 3 & 7.
        assert_eq!(out, vec![16 + (3 + 1) * 8 + ((100 >> 3) & 7)]);
        assert_eq!([0, 5, 7, 8, 9].map(stack_depth_step), [0, 5, 7, 8, 9]);
    }

    proptest::proptest! {
        /// The word-at-a-time scan finds what a byte-by-byte one finds.
        #[test]
        fn every_nonzero_byte_is_found_in_order(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![4 => proptest::strategy::Just(0u8), 1 => 1u8..],
                0..300,
            ),
        ) {
            let mut found = Vec::new();
            for_each_nonzero(&bytes, |index, count| found.push((index, count)));
            let expected: Vec<(usize, u8)> =
                bytes.iter().copied().enumerate().filter(|&(_, c)| c != 0).collect();
            proptest::prop_assert_eq!(found, expected);
        }
    }
}
