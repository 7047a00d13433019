//! A failure's severity class ([`Severity`], docs/signatures.md), from what
//! its signature holds: the kind, and for AddressSanitizer's bugs the
//! access (`READ 4`, `WRITE 1`).

use rustix::process::Signal;

use super::{FailureKind, Signature};
pub(crate) use cargo_reduce_messages::message::Severity;

impl Signature {
    /// How serious this failure is.
    pub(crate) fn severity(&self) -> Severity {
        severity(self.kind, self.message.as_deref())
    }
}

fn severity(kind: FailureKind, access: Option<&str>) -> Severity {
    match kind {
        FailureKind::Panic | FailureKind::Exit(_) => Severity::Abort,
        FailureKind::StackOverflow => Severity::StackOverflow,
        FailureKind::Oom | FailureKind::Timeout => Severity::Resource,
        FailureKind::Signal(n) => signal(n),
        FailureKind::Sanitizer(bug) => {
            let writes = access.is_some_and(|a| a.starts_with("WRITE"));
            sanitizer(bug.name(), writes)
        }
    }
}

/// A death by signal `n` without a sanitizer's report.
fn signal(n: i32) -> Severity {
    let faults = [Signal::SEGV, Signal::BUS, Signal::ILL, Signal::FPE];
    match faults.iter().any(|s| s.as_raw() == n) {
        true => Severity::InvalidAccess,
        false => Severity::Abort,
    }
}

/// AddressSanitizer's bug type `name`; `writes`: its access is a write.
fn sanitizer(name: &str, writes: bool) -> Severity {
    match name {
        "double-free" | "bad-free" | "wild-addr-write" | "wild-jump" => Severity::MemoryWrite,
        "wild-addr-read" => Severity::MemoryRead,
        // A fault ASan cannot place (most often a null pointer).
        "SEGV" | "BUS" | "FPE" => Severity::InvalidAccess,
        "stack-overflow" => Severity::StackOverflow,
        "out-of-memory"
        | "allocation-size-too-big"
        | "calloc-overflow"
        | "reallocarray-overflow"
        | "invalid-allocation-alignment"
        | "memory-leak" => Severity::Resource,
        "heap-buffer-overflow"
        | "heap-use-after-free"
        | "stack-buffer-overflow"
        | "stack-buffer-underflow"
        | "stack-use-after-return"
        | "stack-use-after-scope"
        | "dynamic-stack-buffer-overflow"
        | "global-buffer-overflow"
        | "container-overflow"
        | "use-after-poison"
        | "intra-object-overflow"
        | "unknown-crash" => match writes {
            true => Severity::MemoryWrite,
            false => Severity::MemoryRead,
        },
        // Misuses the allocator or the runtime caught before any access.
        _ => Severity::Abort,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::pool::Failure;

    fn of(tag: &str, message: Option<&str>) -> Severity {
        let failure = Failure {
            kind: FailureKind::from_tag(tag).unwrap(),
            message: message.map(String::from),
            location: None,
            call_path: Vec::new(),
            overflow_depth: None,
            alloc_request: None,
        };
        failure.signature().severity()
    }

    /// The classes rank as docs/signatures.md says: a write out of bounds
    /// or after free above a read, above a fault, above a panic or abort,
    /// above a stack overflow, above resources.
    #[test]
    fn classes_rank_writes_first_and_resources_last() {
        let ranked = [
            of("asan-heap-use-after-free", Some("WRITE 8")),
            of("asan-heap-buffer-overflow", Some("READ 4")),
            of("signal-11", None),
            of("panic", Some("index out of bounds")),
            of("stack-overflow", None),
            of("timeout", None),
        ];
        assert_eq!(ranked, Severity::ALL);
        assert!(ranked.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn each_kind_has_its_class() {
        assert_eq!(of("asan-double-free", None), Severity::MemoryWrite);
        assert_eq!(of("asan-SEGV", Some("WRITE")), Severity::InvalidAccess);
        assert_eq!(of("asan-stack-overflow", None), Severity::StackOverflow);
        assert_eq!(of("asan-out-of-memory", None), Severity::Resource);
        assert_eq!(of("asan-memory-leak", None), Severity::Resource);
        assert_eq!(of("asan-alloc-dealloc-mismatch", None), Severity::Abort);
        assert_eq!(of("signal-6", None), Severity::Abort);
        assert_eq!(of("signal-7", None), Severity::InvalidAccess);
        assert_eq!(of("exit-1", None), Severity::Abort);
        assert_eq!(of("out-of-memory", None), Severity::Resource);
    }
}
