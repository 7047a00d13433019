//! Which exits of a test process are failures: a target that calls
//! `process::exit` during a test. The engines disagree, and a reduction
//! must fail where the engine that found the input did.

/// Which exit statuses of a test process fail the test.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Exits {
    /// Every one: libFuzzer's `atexit` hook reports "fuzz target exited" as
    /// a crash, whatever the status.
    #[default]
    Fail,
    /// Only this status, and none without one: AFL++ counts an exit as a
    /// crash only when `AFL_CRASH_EXITCODE` is set to its status; any
    /// other exit ends the run as a pass.
    FailWith(Option<u8>),
}

impl Exits {
    /// Whether an exit with `status` (0 to 255, as `WEXITSTATUS` gives
    /// it) fails the test.
    pub(crate) fn fails(self, status: i32) -> bool {
        match self {
            Exits::Fail => true,
            Exits::FailWith(code) => code.is_some_and(|c| i32::from(c) == status),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libfuzzer_fails_every_exit_afl_only_the_crash_exit_code() {
        assert!(Exits::Fail.fails(0) && Exits::Fail.fails(3));
        assert!(!Exits::FailWith(None).fails(3));
        assert!(Exits::FailWith(Some(3)).fails(3));
        assert!(!Exits::FailWith(Some(3)).fails(4));
        assert!(Exits::FailWith(Some(255)).fails(255));
    }
}
