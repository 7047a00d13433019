//! `cargo reduce ice --strategy`: the syntax reducer's strategy chosen as
//! `cargo reduce file` takes it, here one that stops before renaming and
//! the token passes.

use crate::fuzz_fixture::repo;
use crate::ice_mode::{compile, ice_toolchain, reduce_ice};
use crate::util::{message, Sandbox};

#[test]
fn a_strategy_without_renaming_keeps_the_crate_s_names_and_the_ice() {
    if !ice_toolchain("a_strategy_without_renaming_keeps_the_crate_s_names_and_the_ice") {
        return;
    }
    let manifest = repo().join("cargo-reduce/tests-fixtures/ice-crate/Cargo.toml");
    let sandbox = Sandbox::new();
    let mcve = sandbox.join("scene.ice.rs");
    let run = reduce_ice(
        &sandbox,
        &manifest,
        &mcve,
        &["--strategy", "coarse-hdd+hdd"],
    );
    let messages = run.messages();
    let started = message(&messages, "reduction-started");
    assert_eq!(started["strategy"], "coarse-hdd+hdd");
    let location = message(&messages, "ice-found")["location"]
        .as_str()
        .unwrap()
        .to_string();
    let command = message(&messages, "ice-reported")["command"]
        .as_str()
        .unwrap()
        .to_string();
    let stderr = compile(&command, &mcve);
    assert!(stderr.contains(&location), "{stderr}");
    // HDD deletes, it does not rename: the crate's trait keeps its name,
    // which `best` would have shortened to a letter.
    let code = std::fs::read_to_string(&mcve).unwrap();
    assert!(code.contains("AddChild"), "{code}");
}
