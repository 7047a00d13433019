//! Type-aware splicing of two generated programs: a prefix of one, a
//! suffix of the other, with each reference of the suffix to a variable the
//! cut dropped remapped by graph type, to a prefix variable of a compatible
//! type or, when there is none, to a new value of that type built by the
//! walk. Plain [`crate::crossover`] turns such references into `undefined`,
//! which makes the statement throw.

use crate::gen::{Generator, Walk};
use crate::index::Ty;
use crate::mutate::write_within;
use crate::program::{parse_program, Expr, Program};
use crate::rng::Rng;

/// Splices `a` and `b` for libFuzzer's `fuzz_crossover!` (or as AFL++'s
/// fallback), typed by `generator`'s graph: written to `out`, at most
/// `out.len()` bytes. Returns the size written; deterministic for the
/// inputs and `seed`.
pub fn splice(a: &[u8], b: &[u8], out: &mut [u8], seed: u32, generator: &Generator) -> usize {
    let mut rng = Rng::new(u64::from(seed));
    let a = parsed(a);
    let b = parsed(b);
    let cut_a = rng.below(a.stmts.len() + 1);
    let cut_b = rng.below(b.stmts.len() + 1);
    let mut prefix_types = generator.var_types(&a);
    prefix_types.truncate(cut_a);
    let dropped_types = {
        let mut t = generator.var_types(&b);
        t.truncate(cut_b);
        t
    };
    let mut joined = Program {
        stmts: a.stmts[..cut_a].to_vec(),
    };
    // b's statements move from `cut_b` to `cut_a`; a reference to one of
    // b's first `cut_b` statements gets a value of its type instead.
    let moved = |v: u32| v - cut_b as u32 + cut_a as u32;
    for mut stmt in b.stmts[cut_b..].iter().cloned() {
        for expr in stmt.exprs_mut() {
            expr.replace_vars(&mut |v| {
                if v as usize >= cut_b {
                    return Expr::Var(moved(v));
                }
                let ty = dropped_types.get(v as usize).copied().flatten();
                stand_in(generator, &mut rng, &prefix_types, ty)
            });
        }
        if let Some(var) = stmt.var_mut() {
            *var = moved(*var);
        }
        joined.stmts.push(stmt);
    }
    joined.renumber();
    let max = out.len();
    write_within(&mut joined, out, max)
}

/// A renumbered program: statement `i` defines `vi`.
fn parsed(data: &[u8]) -> Program {
    let mut p = parse_program(&String::from_utf8_lossy(data));
    p.renumber();
    p
}

/// A stand-in for a dropped variable of type `ty`: a prefix variable of a
/// compatible type, else a new value of the type (any value when unknown).
fn stand_in(generator: &Generator, rng: &mut Rng, vars: &[Option<Ty>], ty: Option<Ty>) -> Expr {
    let index = &generator.index;
    let fitting: Vec<u32> = (0..vars.len() as u32)
        .filter(|&v| match (vars[v as usize], ty) {
            (Some(have), Some(want)) => index.compatible(have, want),
            _ => false,
        })
        .collect();
    if !fitting.is_empty() {
        return Expr::Var(*rng.pick(&fitting));
    }
    let mut walk = Walk {
        index,
        config: &generator.config,
        rng,
        vars,
    };
    let depth = generator.config.max_depth;
    match ty {
        Some(t) => walk.value(t, depth),
        None => walk.any(depth),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::learned;
    use crate::gen::Config;
    use crate::program::Stmt;

    fn splice_text(g: &Generator, a: &str, b: &str, seed: u32) -> String {
        let mut out = vec![0; 8192];
        let n = splice(a.as_bytes(), b.as_bytes(), &mut out, seed, g);
        String::from_utf8(out[..n].to_vec()).unwrap()
    }

    #[test]
    fn references_to_dropped_variables_get_a_value_of_their_type() {
        let g = Generator::new(&learned(), Config::default()).unwrap();
        let a = "try { var v0 = new (this.Map)(); } catch (e) {}\n";
        let b = "try { var v0 = new (this.Map)(); } catch (e) {}\n\
                 try { var v1 = v0.get(1); } catch (e) {}\n";
        let mut remapped = 0;
        for seed in 0..200 {
            let text = splice_text(&g, a, b, seed);
            let p = parse_program(&text);
            for (i, s) in p.stmts.iter().enumerate() {
                assert_eq!(s.defines(), Some(i as u32), "{text}");
            }
            // b's `v0.get(1)` after a cut that dropped b's v0: the receiver
            // is a's Map (v0) or a new value of the Map instance type, never
            // `undefined` as plain crossover leaves it.
            if let Some(line) = text.lines().find(|l| l.contains(".get(1)")) {
                assert!(!line.contains("(undefined).get"), "{text}");
                remapped += usize::from(p.stmts.len() == 2 && line.contains("v0.get(1)"));
            }
        }
        assert!(remapped > 0);
    }

    #[test]
    fn splices_are_deterministic_and_fit() {
        let g = Generator::new(&learned(), Config::default()).unwrap();
        let (a, b) = (g.program(1, 8).render(), g.program(2, 8).render());
        for seed in 0..50 {
            assert_eq!(splice_text(&g, &a, &b, seed), splice_text(&g, &a, &b, seed));
            let mut small = vec![0; 200];
            let n = splice(a.as_bytes(), b.as_bytes(), &mut small, seed, &g);
            assert!(n <= 200);
            let p = parse_program(std::str::from_utf8(&small[..n]).unwrap());
            assert!(p.stmts.iter().all(Stmt::is_generated));
        }
    }
}
