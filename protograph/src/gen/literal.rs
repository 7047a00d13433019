//! Literals for the types that have them: the primitives, plus `({})`, `[…]`
//! and `(function () {})` for plain objects, arrays and functions.
//!
//! The tables favour boundary values (powers of two, ±0, NaN, the largest
//! safe integer, lone surrogates) because those are where engines take
//! special paths.

use crate::program::{Expr, Lit};
use crate::rng::Rng;

/// The kinds of values a literal can produce, one per graph type id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LitKind {
    Undefined,
    Null,
    Boolean,
    Number,
    String,
    BigInt,
    Symbol,
    Object,
    Array,
    Function,
}

/// `(type id, kind)` for every type a literal can produce.
const KINDS: [(&str, LitKind); 10] = [
    ("undefined", LitKind::Undefined),
    ("null", LitKind::Null),
    ("boolean", LitKind::Boolean),
    ("number", LitKind::Number),
    ("string", LitKind::String),
    ("bigint", LitKind::BigInt),
    ("symbol", LitKind::Symbol),
    ("{Object.prototype}", LitKind::Object),
    ("{Array.prototype}", LitKind::Array),
    ("{Function.prototype}", LitKind::Function),
];

/// The primitive kinds, for arguments of unknown type.
pub(crate) const PRIMITIVE_KINDS: [LitKind; 7] = [
    LitKind::Undefined,
    LitKind::Null,
    LitKind::Boolean,
    LitKind::Number,
    LitKind::String,
    LitKind::BigInt,
    LitKind::Symbol,
];

const NUMBERS: [&str; 34] = [
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "8",
    "16",
    "31",
    "32",
    "64",
    "255",
    "256",
    "1024",
    "65535",
    "65536",
    "2147483647",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9007199254740991",
    "9007199254740992",
    "0.5",
    "-0.5",
    "1.5",
    "1e21",
    "1e-7",
    "1.7976931348623157e308",
    "5e-324",
    "NaN",
    "Infinity",
    "-Infinity",
    "0.1",
];

/// Strings: boundary cases first, then the shapes that date, time and
/// Temporal parsers, unit and option arguments accept (a random string would
/// make those calls throw at once and never reach the arithmetic behind them).
const STRINGS: [&str; 40] = [
    r#""""#,
    r#""a""#,
    r#""abc""#,
    r#""0""#,
    r#""-1""#,
    r#""1e3""#,
    r#""length""#,
    r#""prototype""#,
    r#""constructor""#,
    r#""__proto__""#,
    r#""toString""#,
    r#""valueOf""#,
    r#""\u0000""#,
    r#""\ud800""#,
    r#""😀""#,
    r#""(a|b)*c+""#,
    r#""g""#,
    r#""utf-8""#,
    r#""aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa""#,
    r#""x y""#,
    r#""2020-02-29""#,
    r#""1970-01-01T00:00:00Z""#,
    r#""2024-03-10T02:30:15.123456789-08:00[UTC]""#,
    r#""+275760-09-13T00:00Z""#,
    r#""-271821-04-19""#,
    r#""12:34:56.789""#,
    r#""2020-12""#,
    r#""--02-29""#,
    r#""P1Y2M3W4DT5H6M7.008009010S""#,
    r#""-PT36H""#,
    r#""PT0.000000001S""#,
    r#""UTC""#,
    r#""+05:30""#,
    r#""iso8601""#,
    r#""day""#,
    r#""hours""#,
    r#""nanosecond""#,
    r#""month""#,
    r#""halfExpand""#,
    r#""Thu, 01 Jan 1970 00:00:00 GMT""#,
];

const BIGINTS: [&str; 7] = [
    "0",
    "1",
    "-1",
    "255",
    "9007199254740993",
    "18446744073709551616",
    "-18446744073709551617",
];

impl LitKind {
    /// The literal kind producing values of graph type `id`, if any.
    pub(crate) fn for_type(id: &str) -> Option<LitKind> {
        KINDS.iter().find(|(t, _)| *t == id).map(|&(_, k)| k)
    }

    /// The graph type id of this kind's values.
    pub(crate) fn type_id(self) -> &'static str {
        KINDS
            .iter()
            .find(|(_, k)| *k == self)
            .map(|&(t, _)| t)
            .expect("every kind is listed")
    }

    /// The kind of an existing literal.
    pub(crate) fn of(lit: &Lit) -> LitKind {
        match lit {
            Lit::Undefined => LitKind::Undefined,
            Lit::Null => LitKind::Null,
            Lit::Bool(_) => LitKind::Boolean,
            Lit::Number(_) => LitKind::Number,
            Lit::Str(_) => LitKind::String,
            Lit::BigInt(_) => LitKind::BigInt,
            Lit::Symbol(_) => LitKind::Symbol,
            Lit::Object => LitKind::Object,
            Lit::Array(_) => LitKind::Array,
            Lit::Function => LitKind::Function,
        }
    }

    /// A random literal of this kind. Array elements are primitive literals.
    pub(crate) fn random(self, rng: &mut Rng) -> Lit {
        match self {
            LitKind::Undefined => Lit::Undefined,
            LitKind::Null => Lit::Null,
            LitKind::Boolean => Lit::Bool(rng.chance(1, 2)),
            LitKind::Number if rng.chance(1, 4) => {
                Lit::Number(rng.below(100_000).to_string().into())
            }
            LitKind::Number => Lit::Number((*rng.pick(&NUMBERS)).into()),
            LitKind::String => Lit::Str((*rng.pick(&STRINGS)).into()),
            LitKind::BigInt => Lit::BigInt((*rng.pick(&BIGINTS)).into()),
            LitKind::Symbol => Lit::Symbol((*rng.pick(&STRINGS)).into()),
            LitKind::Object => Lit::Object,
            LitKind::Array => {
                let items = (0..rng.below(4))
                    .map(|_| Expr::Lit(rng.pick(&PRIMITIVE_KINDS[..6]).random(rng)))
                    .collect();
                Lit::Array(items)
            }
            LitKind::Function => Lit::Function,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::parse_expr;

    #[test]
    fn strings_include_date_and_duration_shapes() {
        let mut rng = Rng::new(11);
        let drawn: Vec<Lit> = (0..2000)
            .map(|_| LitKind::String.random(&mut rng))
            .collect();
        let has = |text: &str| drawn.contains(&Lit::Str(text.into()));
        assert!(has(r#""2020-02-29""#));
        assert!(has(r#""P1Y2M3W4DT5H6M7.008009010S""#));
        assert!(has(r#""day""#));
        assert!(has(r#""""#));
    }

    #[test]
    fn every_literal_round_trips_through_the_parser() {
        let mut rng = Rng::new(3);
        for &(id, kind) in &KINDS {
            assert_eq!(LitKind::for_type(id), Some(kind));
            assert_eq!(kind.type_id(), id);
            for _ in 0..50 {
                let e = Expr::Lit(kind.random(&mut rng));
                assert_eq!(parse_expr(&e.to_string()).as_ref(), Some(&e), "{e}");
                if let Expr::Lit(lit) = &e {
                    assert_eq!(LitKind::of(lit), kind);
                }
            }
        }
        for n in NUMBERS.iter().chain(&BIGINTS) {
            assert!(
                n.trim_start_matches('-').parse::<f64>().is_ok()
                    || n.ends_with("Infinity")
                    || *n == "NaN",
                "{n}"
            );
        }
    }
}
