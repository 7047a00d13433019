//! AddressSanitizer's bug types, the kind of a failure ASan reported
//! (`super::asan_report` reads them from the report).

/// The bug types AddressSanitizer reports (its `SUMMARY:` line's word),
/// in a fixed order: a failure kind holds an index into it.
const BUG_TYPES: &[&str] = &[
    "unknown-crash",
    "heap-buffer-overflow",
    "heap-use-after-free",
    "stack-buffer-overflow",
    "stack-buffer-underflow",
    "stack-use-after-return",
    "stack-use-after-scope",
    "dynamic-stack-buffer-overflow",
    "global-buffer-overflow",
    "container-overflow",
    "use-after-poison",
    "intra-object-overflow",
    "double-free",
    "bad-free",
    "alloc-dealloc-mismatch",
    "new-delete-type-size-mismatch",
    "memcpy-param-overlap",
    "negative-size-param",
    "calloc-overflow",
    "reallocarray-overflow",
    "allocation-size-too-big",
    "invalid-allocation-alignment",
    "out-of-memory",
    "SEGV",
    "BUS",
    "FPE",
    "stack-overflow",
    "wild-addr-read",
    "wild-addr-write",
    "wild-jump",
    "odr-violation",
    "initialization-order-fiasco",
    "invalid-pointer-pair",
    // LeakSanitizer's (its report names no type: "detected memory leaks").
    "memory-leak",
];

/// One of AddressSanitizer's bug types (`unknown-crash` for one this
/// version of cargo-reduce does not know).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct AsanBug(u8);

impl AsanBug {
    /// `unknown-crash`: a report whose bug type is not in the list.
    pub(crate) const UNKNOWN: AsanBug = AsanBug(0);
    /// `memory-leak`: LeakSanitizer's report.
    pub(crate) const LEAK: AsanBug = AsanBug(BUG_TYPES.len() as u8 - 1);

    /// The bug type named `name`, as ASan writes it.
    pub(crate) fn from_name(name: &str) -> Option<AsanBug> {
        let index = BUG_TYPES.iter().position(|b| *b == name)?;
        u8::try_from(index).ok().map(AsanBug)
    }

    /// Its name, as ASan writes it.
    pub(crate) fn name(self) -> &'static str {
        BUG_TYPES.get(usize::from(self.0)).unwrap_or(&BUG_TYPES[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bug_names_read_back() {
        for name in BUG_TYPES {
            assert_eq!(AsanBug::from_name(name).unwrap().name(), *name);
        }
        assert_eq!(AsanBug::from_name("heap-use-after-free "), None);
    }
}
