//! Generation is pinned: a seed and a committed graph give the same program
//! forever (the promise of `src/rng.rs`, which fuzzer corpora and bug
//! reports rely on). The known answers of `src/rng.rs` pin the random
//! stream; this pins everything built on it: the graph index, the walks and
//! the literal tables.

use std::path::Path;

use protograph::{Config, Generator, Graph};

/// `protograph generate --graph corpus/js/boa-learned.json -n 12 --seed 2024`
/// since statements beyond calls (stores, loops, user code re-entering the
/// builtins) joined the walk.
const SEED_2024: &str = r#"try { var v0 = [].filter.call(("hours").repeat.name, (function () { return globalThis.String(Symbol("😀")); })); } catch (e) {}
try { var v1 = new ((class extends (new (this.BigUint64Array)(v0.concat(v0, this.NaN))).constructor {}))(["Thu, 01 Jan 1970 00:00:00 GMT"]); } catch (e) {}
try { for (var v2 of new (this.Uint16Array)(v0.length)) { new (this.Uint8Array)(this.Infinity); } } catch (e) {}
try { var v3 = new (this.URIError)(v2); } catch (e) {}
try { var v4 = this.Int32Array.toString(); } catch (e) {}
try { var v5 = this.encodeURI((true).hasOwnProperty.name); } catch (e) {}
try { var v6 = new (this.BigUint64Array)(this.Array(("2024-03-10T02:30:15.123456789-08:00[UTC]").length)); } catch (e) {}
try { var v7 = this.parseInt(null, null); } catch (e) {}
try { for (var v8 of new (this.BigInt64Array)(undefined, v5, "day")) { new (this.Uint32Array)(v2, v1, 8); } } catch (e) {}
try { var v9 = this.WeakSet.name.padStart(Symbol("length")); } catch (e) {}
try { var v10 = this.Int8Array.prototype.forEach.bind(undefined); } catch (e) {}
try { var v11 = this.RegExp.constructor = v3; } catch (e) {}
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
         corpus/js/boa-learned.json was regenerated, or the walk changed, on \
         purpose, update SEED_2024 to the program above."
    );
}
