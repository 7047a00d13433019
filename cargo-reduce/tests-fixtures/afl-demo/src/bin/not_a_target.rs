//! A binary of the crate that is not a fuzz target.
fn main() {
    println!("hello");
}
