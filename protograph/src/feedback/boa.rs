//! Boa as an [`Observe`]r, in-process (cargo feature `boa`): the engine the
//! fuzz target runs, with the same runtime limits.

use boa_engine::object::JsObject;
use boa_engine::{Context, JsString, JsValue, Source};

use super::{Observation, Observe};
use crate::program::Program;

/// Loop iterations, nesting and VM stack of the fuzz target's contexts
/// (`fuzz-targets/boa/shared/script.rs`), so that what throws here throws
/// there.
const LOOP_ITERATIONS: u64 = 100_000;
const RECURSION: usize = 400;
const STACK_SIZE: usize = 10 * 1024;

/// Runs each program in a fresh Boa context, statement by statement.
#[derive(Debug, Clone, Copy, Default)]
pub struct Boa;

impl Observe for Boa {
    fn observe(&mut self, program: &Program) -> Vec<Observation> {
        let mut context = Context::default();
        let limits = context.runtime_limits_mut();
        limits.set_loop_iteration_limit(LOOP_ITERATIONS);
        limits.set_recursion_limit(RECURSION);
        limits.set_stack_size_limit(STACK_SIZE);
        program
            .stmts
            .iter()
            .map(|stmt| {
                let mut source = String::new();
                stmt.write_action(&mut source);
                let threw = context.eval(Source::from_bytes(&source)).is_err();
                let ty = match stmt.defines() {
                    Some(var) if !threw => type_of_var(&mut context, var),
                    _ => None,
                };
                Observation { threw, ty }
            })
            .collect()
    }
}

/// The graph type id of the global `v{var}`.
fn type_of_var(context: &mut Context, var: u32) -> Option<String> {
    let name = JsString::from(format!("v{var}").as_str());
    let value = context.global_object().get(name, context).ok()?;
    type_id(&value, context)
}

/// The graph type id of `value`: its `typeof` for primitives, `null`, and
/// `{C.prototype}` for an object whose prototype is the global `C`'s
/// `prototype` (or `{%Tag%}` for a tagged builtin prototype such as an
/// iterator's), as `js/learn.js` names them.
fn type_id(value: &JsValue, context: &mut Context) -> Option<String> {
    if value.is_null() {
        return Some("null".into());
    }
    let Some(object) = value.as_object() else {
        return Some(value.type_of().to_string());
    };
    let proto = object.prototype()?;
    if let Some(name) = constructor_name(&proto, context) {
        return Some(format!("{{{name}.prototype}}"));
    }
    let tag = proto
        .get(boa_engine::JsSymbol::to_string_tag(), context)
        .ok()?;
    let tag = tag.as_string()?.to_std_string().ok()?;
    Some(format!("{{%{tag}%}}"))
}

/// `C` when `proto` is the `prototype` of the global constructor `C`.
fn constructor_name(proto: &JsObject, context: &mut Context) -> Option<String> {
    let constructor = proto.get(JsString::from("constructor"), context).ok()?;
    let name = constructor
        .as_object()?
        .get(JsString::from("name"), context)
        .ok()?;
    let name = name.as_string()?.to_std_string().ok()?;
    let global = context
        .global_object()
        .get(JsString::from(name.as_str()), context)
        .ok()?;
    let prototype = global
        .as_object()?
        .get(JsString::from("prototype"), context)
        .ok()?;
    let same = prototype
        .as_object()
        .is_some_and(|p| JsObject::equals(&p, proto));
    same.then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feedback::Guided;
    use crate::fixtures::learned;
    use crate::program::parse_program;
    use crate::Config;

    fn observe(source: &str) -> Vec<Observation> {
        Boa.observe(&parse_program(source))
    }

    #[test]
    fn observes_throws_and_types() {
        let seen = observe(
            "try { var v0 = this.Array(3); } catch (e) {}\n\
             try { var v1 = v0.nope(); } catch (e) {}\n\
             var v2 = new (this.Map)();\n\
             var v3 = v0.keys();\n\
             var v4 = v0.length;\n\
             v9.x = 1;\n",
        );
        let ty = |i: usize| seen[i].ty.as_deref();
        assert_eq!(ty(0), Some("{Array.prototype}"));
        assert!(seen[1].threw && ty(1).is_none());
        assert_eq!(ty(2), Some("{Map.prototype}"));
        assert_eq!(ty(3), Some("{%Array Iterator%}"));
        assert_eq!(ty(4), Some("number"));
        assert!(seen[5].threw, "v9 is not defined");
        assert_eq!(seen.iter().filter(|o| o.threw).count(), 2);
    }

    /// Statements that throw in `program`, and how many ran.
    fn throws(program: &Program) -> (usize, usize) {
        let seen = Boa.observe(program);
        (seen.iter().filter(|o| o.threw).count(), seen.len())
    }

    #[test]
    fn repair_regenerates_what_throws_and_drops_needless_trys() {
        let mut guided = Guided::new(&learned(), Config::default(), Boa).unwrap();
        let (mut before, mut after, mut total) = (0, 0, 0);
        for seed in 0..15 {
            let mut program = guided.generator().program(seed, 10);
            before += throws(&program).0;
            let seen = guided.repair_program(&mut program, seed);
            let (threw, ran) = throws(&program);
            after += threw;
            total += ran;
            for (stmt, o) in program.stmts.iter().zip(&seen) {
                let mut stmt = stmt.clone();
                assert_eq!(*stmt.guarded_mut().unwrap(), o.threw, "{program:?}");
            }
        }
        assert!(
            after * 2 < before,
            "{before} threw before repair, {after} after, of {total}"
        );
        assert!(guided.stats().regenerated > 0);
    }

    #[test]
    fn merges_the_signatures_it_observes() {
        let graph = learned();
        let mut guided = Guided::new(&graph, Config::default(), Boa).unwrap();
        for seed in 0..40 {
            guided.program(seed, 10);
        }
        assert!(guided.stats().merged > 0, "{:?}", guided.stats());
        assert!(guided.graph().signatures.len() > graph.signatures.len());
    }
}
