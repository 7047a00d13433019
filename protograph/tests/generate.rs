//! Generation is pinned: a seed and a committed graph give the same program
//! forever (the promise of `src/rng.rs`, which fuzzer corpora and bug
//! reports rely on). The known answers of `src/rng.rs` pin the random
//! stream; this pins everything built on it: the graph index, the walks and
//! the literal tables.

use std::path::Path;

use protograph::{Config, Generator, Graph};

/// `protograph generate --graph corpus/js/boa-learned.json -n 12 --seed 2024`
/// at the time this test was written.
const SEED_2024: &str = r#"try { var v0 = this.BigInt64Array.prototype.BYTES_PER_ELEMENT.toLocaleString(); } catch (e) {}
try { var v1 = this.Object.is(new (this.Map)(), new (this.Map)()).toString(); } catch (e) {}
try { var v2 = new (this.SyntaxError)((function () {}).bind.name); } catch (e) {}
try { var v3 = (undefined).call(new (this.RegExp)(undefined, -18446744073709551617n), this.RegExp.name); } catch (e) {}
try { var v4 = this.BigInt.asIntN.apply(false, "utf-8"); } catch (e) {}
try { var v5 = this.EvalError.name.endsWith(this.DataView.name); } catch (e) {}
try { var v6 = (new (this.ReferenceError)()).valueOf(); } catch (e) {}
try { var v7 = this.Proxy(Symbol("12:34:56.789"), new (this.WeakSet)()); } catch (e) {}
try { var v8 = this.RegExp("day", "halfExpand"); } catch (e) {}
try { var v9 = v5.__lookupSetter__.length.valueOf(); } catch (e) {}
try { var v10 = new (this.Error)(v1.toUpperCase.call(false)); } catch (e) {}
try { var v11 = v6.name.normalize(); } catch (e) {}
"#;

#[test]
fn a_seed_gives_the_same_program_forever() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/js/boa-learned.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let generator = Generator::new(&Graph::from_json(&text).unwrap(), Config::default()).unwrap();
    let program = generator.program(2024, 12).render();
    assert!(
        program == SEED_2024,
        "seed 2024 now generates a different program:\n{program}\n\
         Generation must not change for a seed and graph. If (and only if) \
         corpus/js/boa-learned.json was regenerated on purpose, update SEED_2024 \
         to the program above."
    );
}
