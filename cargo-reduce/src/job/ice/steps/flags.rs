//! rustc's command line reduced after the code: the flags the ICE does not
//! need (lint levels, `--cfg`s, `-C` and `-Z` options, `--extern`s…) are
//! dropped, so that the report's command is as small as its MCVE. A crate
//! with a `[lints]` table gives rustc dozens of `--warn=…`, a default
//! feature set a `--cfg` each: noise in an issue, and a reader cannot
//! tell which of them matters. The crate name, edition and crate type
//! stay: an MCVE states them.

use crate::engine::{
    ddmin, Cancel, Candidate, Context, DdminOptions, Oracle, OracleError, Outcome,
};
use crate::job::ice::oracle::{IceOracle, Verdict};
use crate::job::ice::rustc::args::{RustcArgs, Units};

/// Whether rustc, with a candidate's flags, ICEs as expected.
struct FlagOracle<'a> {
    invocation: &'a RustcArgs,
    same_ice: &'a SameIceBy<'a>,
    units: &'a Units,
}

/// What rustc says of the code when compiled by a command line.
pub(crate) type SameIceBy<'a> = dyn Fn(RustcArgs, &Cancel<'_>) -> Verdict + Sync + 'a;

impl Oracle<usize> for FlagOracle<'_> {
    fn test(
        &self,
        candidate: &Candidate<'_, usize>,
        cancel: &Cancel<'_>,
    ) -> Result<Option<Outcome>, OracleError> {
        let invocation = self.units.with(self.invocation, candidate.iter().copied());
        (self.same_ice)(invocation, cancel).outcome()
    }
}

/// `ice`'s command line without the flags `code` does not need to ICE
/// the same way ([`reduce_invocation`]).
pub(crate) fn reduce_flags(
    code: &[u8],
    ice: &IceOracle,
    ctx: &Context<'_, usize>,
) -> Result<Option<RustcArgs>, OracleError> {
    let same_ice = |invocation, cancel: &Cancel<'_>| {
        ice.same_ice_by(&ice.rustc.with_invocation(invocation), code, cancel)
    };
    reduce_invocation(&ice.rustc.invocation, &same_ice, ctx)
}

/// `invocation` without the flags that `same_ice` does not need; `None`
/// when it needs all of them. No flag is needed most often, so that is
/// tried first, in one test; else ddmin finds a 1-minimal set.
pub(crate) fn reduce_invocation(
    invocation: &RustcArgs,
    same_ice: &SameIceBy<'_>,
    ctx: &Context<'_, usize>,
) -> Result<Option<RustcArgs>, OracleError> {
    let units = Units::of(invocation);
    if units.optional.is_empty() {
        return Ok(None);
    }
    let oracle = FlagOracle {
        invocation,
        same_ice,
        units: &units,
    };
    let cancel = Cancel::by_limits(ctx.limits);
    let none = ctx.test(&oracle, &Candidate::whole(&[]), &cancel)?;
    let needed = match none.is_some_and(Outcome::is_interesting) {
        true => Vec::new(),
        false if ctx.limits.stop_reason().is_some() => return Ok(None),
        false => {
            let all = (0..units.optional.len()).collect();
            let reduction =
                ddmin(all, &oracle, &DdminOptions::default(), ctx).map_err(|e| e.source)?;
            reduction.atoms
        }
    };
    Ok((needed.len() < units.optional.len()).then(|| units.with(invocation, needed)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::Range;
    use std::path::Path;

    fn invocation(command: &str) -> RustcArgs {
        RustcArgs::parse(command, Path::new("/p")).unwrap()
    }

    #[test]
    fn a_flag_and_its_value_are_one_unit_and_the_mcve_s_own_flags_stay() {
        let inv = invocation(
            "rustc --crate-name a --edition=2021 a.rs --crate-type lib -C debuginfo=2 \
             --warn=unused_qualifications -W missing_docs -Copt-level=3 --cfg 'feature=\"std\"' --test",
        );
        let units = Units::of(&inv);
        let words = |r: &Range<usize>| inv.args[r.clone()].join(" ");
        let kept: Vec<String> = units.kept.iter().map(words).collect();
        assert_eq!(
            kept,
            [
                "--crate-name a",
                "--edition=2021",
                "a.rs",
                "--crate-type lib"
            ]
        );
        let optional: Vec<String> = units.optional.iter().map(words).collect();
        assert_eq!(
            optional,
            [
                "-C debuginfo=2",
                "--warn=unused_qualifications",
                "-W missing_docs",
                "-Copt-level=3",
                "--cfg feature=\"std\"",
                "--test"
            ]
        );
        let chosen = units.with(&inv, [3, 1]);
        assert_eq!(
            chosen.display("m.rs"),
            "rustc --crate-name a --edition=2021 m.rs --crate-type lib --warn=unused_qualifications -Copt-level=3"
        );
        assert_eq!(chosen.args[chosen.source], "a.rs");
    }

    /// rust-lang/rust#148095's MCVE (a panic of trait selection on rustc
    /// 1.95), compiled only with `--cfg mul`.
    const BEHIND_A_CFG: &str = "#[cfg(mul)]\n\
        impl<S> std::ops::Mul<Q<<f32 as std::ops::Mul<S>>::Output>> for f32 where Q<Self::Output>: {\n\
        type Output = ();\n\
        fn mul(self, _: Q<<f32 as std::ops::Mul<S>>::Output>) {}\n\
        }\n\
        pub struct Q<S>(S);\n";

    /// The flags `code` needs to ICE, as the report's command shows them
    /// (the crate root named `m.rs`), and the tests it took to find them.
    fn reduced(code: &str, flags: &str) -> (String, u64) {
        use crate::engine::{Counters, Limits};
        let command = format!("rustc --crate-name x --edition=2021 x.rs --crate-type lib {flags}");
        let oracle = crate::job::ice::oracle::oracle_for(code, &command);
        let (limits, counters) = (Limits::none(), Counters::default());
        let ctx = Context {
            jobs: 2,
            limits: &limits,
            cache: None,
            counters: &counters,
            observer: &(),
        };
        let fewer = reduce_flags(code.as_bytes(), &oracle, &ctx).unwrap();
        let shown = fewer.map(|inv| inv.display("m.rs"));
        (shown.unwrap_or_default(), counters.tests())
    }

    /// With the real rustc: the one `--cfg` the ICE needs stays; a lint
    /// level, a codegen option and a feature's `--cfg` go.
    #[test]
    fn the_flags_the_ice_needs_stay_and_the_others_go() {
        if !crate::job::ice::oracle::ice_toolchain("the_flags_the_ice_needs_stay_and_the_others_go")
        {
            return;
        }
        let flags = "-C debuginfo=2 --cfg mul -W missing_docs --cfg 'feature=\"std\"'";
        let (command, tests) = reduced(BEHIND_A_CFG, flags);
        assert_eq!(
            command,
            "rustc --crate-name x --edition=2021 m.rs --crate-type lib --cfg mul"
        );
        assert!(tests > 1, "{tests}");
    }

    /// With the real rustc: when the ICE needs none of the flags, one test
    /// finds it.
    #[test]
    fn flags_the_ice_does_not_need_go_in_one_test() {
        if !crate::job::ice::oracle::ice_toolchain("flags_the_ice_does_not_need_go_in_one_test") {
            return;
        }
        let code = BEHIND_A_CFG.replace("#[cfg(mul)]", "");
        let (command, tests) = reduced(&code, "-C debuginfo=2 --warn=unused_qualifications");
        assert_eq!(
            (command.as_str(), tests),
            (
                "rustc --crate-name x --edition=2021 m.rs --crate-type lib",
                1
            )
        );
        assert_eq!(reduced(&code, ""), (String::new(), 0));
    }
}
