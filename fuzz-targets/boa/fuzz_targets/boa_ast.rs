//! `boa_ast`: Boa's own way of fuzzing its VM, for comparison with
//! `boa_eval` (not one of the configurations `bench/protograph/run`
//! measures).
//!
//! A port of boa-dev/boa's `tests/fuzz` target `vm-implied` (Unlicense OR
//! MIT) to the published 0.22 crates: libFuzzer's bytes become an arbitrary
//! `boa_ast::StatementList` (`arbitrary` derive), its identifiers are folded
//! onto `a`…`h`, it is printed back to JavaScript and evaluated in a context
//! with an instruction budget. Built only with the cargo feature `boa-ast`
//! (it turns on `boa_engine/fuzz`):
//!
//! ```sh
//! cargo fuzz build -s none --fuzz-dir fuzz-targets/boa --features boa-ast boa_ast
//! ```
//!
//! With `BOA_AST_DUMP=DIR` the target also writes each input's JavaScript to
//! `DIR/<hash>.js`, so that this target's corpus can be replayed through
//! `boa_eval` (`boa_eval -runs=0 DIR`) and both measured in the same binary.
#![no_main]

use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::ControlFlow;
use std::path::Path;

use arbitrary::{Arbitrary, Unstructured};
use boa_ast::visitor::VisitorMut;
use boa_ast::StatementList;
use boa_engine::{Context, Source};
use boa_interner::{Interner, Sym, ToInternedString};
use libfuzzer_sys::{fuzz_target, Corpus};

/// VM instructions per input before Boa throws (as in Boa's target).
const INSTRUCTIONS: usize = 1 << 16;

/// An arbitrary program: the printed source and the interner its names use.
struct Program {
    interner: Interner,
    source: String,
}

impl<'a> Arbitrary<'a> for Program {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let mut interner = Interner::with_capacity(8);
        let names: Vec<Sym> = ('a'..='h')
            .map(|c| interner.get_or_intern(c.to_string().as_str()))
            .collect();
        let mut ast = StatementList::arbitrary(u)?;
        let _ = Rename { names: &names }.visit_statement_list_mut(&mut ast);
        let source = ast.to_interned_string(&interner);
        Ok(Self { interner, source })
    }
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Program:\n{}", self.source)
    }
}

/// Folds every symbol onto one of a few interned names, so that arbitrary
/// symbol numbers print as identifiers.
struct Rename<'s> {
    names: &'s [Sym],
}

impl<'ast> VisitorMut<'ast> for Rename<'_> {
    type BreakTy = ();

    fn visit_sym_mut(&mut self, node: &'ast mut Sym) -> ControlFlow<()> {
        *node = self.names[node.get() % self.names.len()];
        ControlFlow::Continue(())
    }
}

fuzz_target!(|program: Program| -> Corpus {
    if let Some(dir) = std::env::var_os("BOA_AST_DUMP") {
        let mut hasher = DefaultHasher::new();
        program.source.hash(&mut hasher);
        let file = Path::new(&dir).join(format!("{:016x}.js", hasher.finish()));
        std::fs::write(&file, &program.source)
            .unwrap_or_else(|e| panic!("BOA_AST_DUMP: cannot write {}: {e}", file.display()));
    }
    let Ok(mut context) = Context::builder()
        .interner(program.interner)
        .instructions_remaining(INSTRUCTIONS)
        .build()
    else {
        return Corpus::Reject;
    };
    let _ = context.eval(Source::from_bytes(&program.source));
    Corpus::Keep
});
