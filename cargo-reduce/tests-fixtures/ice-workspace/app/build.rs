//! Writes the outline's transform into `OUT_DIR`, where the crate's root
//! includes it.

/// The generated items.
const OUTLINE: &str = r#"/// The outline, which its transform leaves as it is.
#[derive(shapes_derive::Transform)]
pub struct Outline;
"#;

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(format!("{out}/outline.rs"), OUTLINE).expect("OUT_DIR is writable");
}
