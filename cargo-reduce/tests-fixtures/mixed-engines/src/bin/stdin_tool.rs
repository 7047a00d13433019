//! A plain program that reads stdin: no fuzz target of either engine.
use std::io::Read;

fn main() {
    let mut input = Vec::new();
    std::io::stdin().read_to_end(&mut input).expect("stdin");
    println!("{} bytes", input.len());
}
