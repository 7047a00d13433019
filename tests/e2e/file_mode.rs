//! `cargo reduce file`: reductions with real commands.

use std::fs;
use std::process::Stdio;
use std::time::Duration;

use crate::util::{numbered_lines, Sandbox};

const TEXT: &str = "first line\nsecond line has the needle in it\nthird line\nfourth\n";

#[test]
fn reduces_with_grep_and_writes_beside_the_input() {
    let sb = Sandbox::new();
    sb.write("crash.txt", TEXT);
    sb.run(&["file", "crash.txt", "--", "grep", "-q", "needle"])
        .expect_code(0);
    assert_eq!(sb.read("crash.reduced.txt"), b"needle");
    assert_eq!(
        sb.read("crash.txt"),
        TEXT.as_bytes(),
        "INPUT is never modified"
    );
}

#[test]
fn cargo_s_invocation_with_the_reduce_word_works_too() {
    let sb = Sandbox::new();
    sb.write("crash.txt", TEXT);
    sb.run(&[
        "reduce",
        "file",
        "crash.txt",
        "-o",
        "out.txt",
        "--",
        "grep",
        "-q",
        "needle",
    ])
    .expect_code(0);
    assert_eq!(sb.read("out.txt"), b"needle");
}

#[test]
fn braces_become_the_candidate_path_under_the_input_s_name_and_the_command_runs_here() {
    let sb = Sandbox::new();
    sb.write("pattern", "needle");
    sb.write("in.log", TEXT);
    // `pattern` is found relative to the invoking directory; the candidate
    // keeps the name in.log; `{}` may appear more than once.
    let script = r#"case "$1" in /*/in.log) ;; *) exit 9;; esac; [ "$1" = "$2" ] && grep -q -f pattern "$1""#;
    sb.run(&["file", "in.log", "--", "sh", "-c", script, "sh", "{}", "{}"])
        .expect_code(0);
    assert_eq!(sb.read("in.reduced.log"), b"needle");
}

#[test]
fn python_oracle_keeps_the_exception_and_the_result_is_one_minimal() {
    let sb = Sandbox::new();
    let program = "n = 3\nprint('n', n)\nq = n / (n - 3)\n";
    sb.write("prog.py", program);
    let test = sb.script(
        "test.sh",
        "python3 -I -S \"$1\" 2>&1 | grep -q ZeroDivisionError",
    );
    let test = test.to_str().unwrap();
    sb.run(&["file", "prog.py", "--", test]).expect_code(0);
    let reduced = String::from_utf8(sb.read("prog.reduced.py")).unwrap();
    assert_eq!(reduced, "n=3\nq=n/(n-3)");
    // 1-minimal: removing any single character loses the exception.
    for i in 0..reduced.len() {
        let mut smaller = reduced.clone();
        smaller.remove(i);
        sb.write("probe.py", &smaller);
        let status = std::process::Command::new(test)
            .arg(sb.join("probe.py"))
            .status()
            .unwrap();
        assert!(
            !status.success(),
            "removing char {i} of {reduced:?} keeps the failure"
        );
    }
}

#[test]
fn json_messages_end_with_the_exact_summary_and_count_every_test() {
    let sb = Sandbox::new();
    sb.write("crash.txt", TEXT);
    // Every run appends a line to runs.log, so tests_run can be checked. At
    // -j1, since a cancelled parallel test may die before its first line.
    let test = sb.script(
        "t.sh",
        &format!(
            "echo run >> {}/runs.log; grep -q needle \"$1\"",
            sb.path().display()
        ),
    );
    let run = sb.run(&[
        "file",
        "crash.txt",
        "--message-format",
        "json",
        "-j1",
        "--",
        test.to_str().unwrap(),
    ]);
    run.expect_code(0);
    let messages = run.messages();
    assert!(messages.iter().all(|m| m["reason"].is_string()));
    let last = messages.last().unwrap();
    let keys: Vec<&str> = last
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "reason",
            "input",
            "output",
            "original_bytes",
            "reduced_bytes",
            "tests_run",
            "cache_hits",
            "elapsed_s",
            "minimal",
            "format_version"
        ]
    );
    assert_eq!(last["reason"], "reduction-finished");
    assert_eq!(last["input"], "crash.txt");
    assert_eq!(last["output"], "crash.reduced.txt");
    assert_eq!(last["original_bytes"], TEXT.len());
    assert_eq!(last["reduced_bytes"], 6);
    assert_eq!(last["minimal"], true);
    let runs = fs::read_to_string(sb.join("runs.log"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(
        last["tests_run"], runs,
        "tests_run counts every execution, first and last included"
    );
}

#[test]
fn parallel_and_sequential_runs_give_the_same_result() {
    let sb = Sandbox::new();
    let input: String = (0..120)
        .map(|i| format!("item {i} value {}\n", i * 7 % 13))
        .collect();
    sb.write("in.txt", &input);
    let test = [
        "sh",
        "-c",
        "grep -q 'item 17 ' \"$1\" && grep -q 'item 93 ' \"$1\"",
        "sh",
    ];
    let mut outputs = Vec::new();
    for jobs in ["1", "2", "4"] {
        let out = format!("out{jobs}.txt");
        let mut args = vec!["file", "in.txt", "-j", jobs, "-o", &out, "--"];
        args.extend(test);
        sb.run(&args).expect_code(0);
        outputs.push(sb.read(&out));
    }
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[0], outputs[2]);
}

/// A syntax-aware reduction gives the same text after the same tests at
/// any `-j`: its passes' parallel rounds keep only what a sequential run
/// would have tested, and the cache of rendered texts fills the same way
/// (before, `tests_run` could differ by a few between runs at `-j2`).
#[test]
fn a_syntax_aware_reduction_runs_the_same_tests_at_any_j() {
    let sb = Sandbox::new();
    let input: String = (0..12)
        .map(|i| {
            format!(
                "fn f{i}(x: u32) -> u32 {{\n    let y = x + {i};\n    f{}(y)\n}}\n",
                (i + 5) % 12
            )
        })
        .collect();
    sb.write("lib.rs", &input);
    // A kept candidate takes longer, so that the other job runs on past it.
    let test = [
        "sh",
        "-c",
        "grep -q 'f3(' \"$1\" && grep -q '+ 7' \"$1\" && sleep 0.05",
        "sh",
    ];
    let mut runs = Vec::new();
    for jobs in ["1", "2", "4"] {
        let out = format!("out{jobs}.rs");
        let mut args = vec![
            "file",
            "lib.rs",
            "-j",
            jobs,
            "-o",
            &out,
            "--message-format",
            "json",
            "--",
        ];
        args.extend(test);
        let run = sb.run(&args);
        run.expect_code(0);
        let finished = run.messages().last().cloned().unwrap();
        assert_eq!(finished["reason"], "reduction-finished");
        let counts = (
            finished["tests_run"].clone(),
            finished["cache_hits"].clone(),
        );
        runs.push((sb.read(&out), counts));
    }
    assert!(runs.iter().all(|r| *r == runs[0]), "{runs:?}");
}

#[test]
fn every_unit_reduces() {
    let sb = Sandbox::new();
    sb.write(
        "code.js",
        "let alpha = compute(1, 2);\nlet beta = \"needle text\";\nconsole.log(alpha + beta);\n",
    );
    for (unit, expected) in [
        ("line", "let beta = \"needle text\";\n"),
        ("token", "\"needle text\""),
        ("byte", "needle"),
        ("char", "needle"),
        ("line+token+char", "needle"),
    ] {
        let out = format!("out-{unit}.js");
        sb.run(&[
            "file", "code.js", "--unit", unit, "-o", &out, "--", "grep", "-q", "needle",
        ])
        .expect_code(0);
        assert_eq!(
            String::from_utf8(sb.read(&out)).unwrap(),
            expected,
            "--unit {unit}"
        );
    }
}

#[test]
fn binary_input_is_reduced_byte_by_byte() {
    let sb = Sandbox::new();
    let mut input = vec![0u8; 300];
    input[100] = 0xff;
    input[200] = 0xfe;
    sb.write("blob.bin", &input);
    let test = "import sys; d = open(sys.argv[1], 'rb').read(); sys.exit(0 if b'\\xff' in d and b'\\xfe' in d and d.index(b'\\xff') < d.index(b'\\xfe') else 1)";
    sb.run(&["file", "blob.bin", "--", "python3", "-c", test])
        .expect_code(0);
    assert_eq!(sb.read("blob.reduced.bin"), [0xff, 0xfe]);
}

#[test]
fn a_test_budget_stops_early_and_says_not_minimal() {
    let sb = Sandbox::new();
    let input = numbered_lines(200);
    sb.write("n.txt", &input);
    let run = sb.run(&[
        "file",
        "n.txt",
        "--max-tests",
        "8",
        "--message-format",
        "json",
        "--",
        "grep",
        "-q",
        "^150$",
    ]);
    run.expect_code(0);
    let last = run.messages().pop().unwrap();
    assert_eq!(last["minimal"], false);
    assert!(last["tests_run"].as_u64().unwrap() <= 8, "{last}");
    let out = String::from_utf8(sb.read("n.reduced.txt")).unwrap();
    assert!(
        out.lines().any(|l| l == "150"),
        "the best result so far is still interesting"
    );
    assert!(
        run.stderr().contains("stopped by max-tests"),
        "{}",
        run.stderr()
    );
}

#[test]
fn a_time_budget_stops_early() {
    let sb = Sandbox::new();
    let input = numbered_lines(200);
    sb.write("n.txt", &input);
    let run = sb.run(&[
        "file",
        "n.txt",
        "--max-time",
        "1",
        "-j1",
        "--message-format",
        "json",
        "--",
        "sh",
        "-c",
        "sleep 0.1; grep -q '^150$' \"$1\"",
        "sh",
    ]);
    run.expect_code(0);
    let last = run.messages().pop().unwrap();
    assert_eq!(last["minimal"], false);
    // Each test takes 0.1 s at least: within 1 s, ten of them, plus the
    // checks of the input and of the result (on however fast a machine;
    // a slower one runs fewer).
    assert!(last["tests_run"].as_u64().unwrap() <= 14, "{last}");
}

#[test]
fn candidates_that_hang_are_killed_and_count_as_not_interesting() {
    let sb = Sandbox::new();
    sb.write("in.txt", "keep\nloop guard\nother\n");
    // Without the guard line the test would hang; the timeout kills it.
    let script = "grep -q 'loop guard' \"$1\" || sleep 100; grep -q keep \"$1\"";
    sb.run(&[
        "file",
        "in.txt",
        "--unit",
        "line",
        // Far above what a guarded candidate takes, even on a loaded
        // machine: only the unguarded ones time out.
        "--timeout",
        "3",
        "--",
        "sh",
        "-c",
        script,
        "sh",
    ])
    .expect_code(0);
    assert_eq!(sb.read("in.reduced.txt"), b"keep\nloop guard\n");
}

#[test]
fn ctrl_c_writes_the_best_result_so_far_and_exits_130() {
    let sb = Sandbox::new();
    let input = numbered_lines(400);
    sb.write("n.txt", &input);
    let child = sb
        .cmd(&[
            "file",
            "n.txt",
            "-j2",
            "--message-format",
            "json",
            "--",
            "sh",
            "-c",
            "sleep 0.2; grep -q '^333$' \"$1\"",
            "sh",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    // SAFETY: sending SIGINT to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted") && stderr.contains("n.reduced.txt"),
        "says where: {stderr}"
    );
    let out = String::from_utf8(sb.read("n.reduced.txt")).unwrap();
    assert!(out.lines().any(|l| l == "333"));
    // As far as it got in 2.5 s: on a loaded machine, maybe nowhere yet.
    assert!(out.len() <= input.len());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["minimal"], false);
}

/// Rust gets a syntax-aware reduction, plain text the unit passes; both
/// report their best result as it shrinks (tokens in the syntax one).
#[test]
fn rust_and_javascript_sources_get_syntax_aware_reduction_by_default() {
    let sb = Sandbox::new();
    sb.write("lib.rs", "fn helper(x: u32) -> u32 {\n    x + 1\n}\n\npub fn main() {\n    let needle = helper(2);\n    println!(\"{}\", needle);\n}\n");
    let run = sb.run(&[
        "file",
        "lib.rs",
        "--message-format",
        "json",
        "--",
        "grep",
        "-q",
        "needle",
    ]);
    run.expect_code(0);
    let started = &run.messages()[0];
    assert_eq!(
        (started["lang"].as_str(), started["strategy"].as_str()),
        (Some("rust"), Some("best"))
    );
    let out = String::from_utf8(sb.read("lib_reduced.rs")).unwrap();
    assert!(out.contains("needle") && out.len() < 20, "{out:?}");
    progress_is_reported(&run, "lib.rs", true);
    // Plain text keeps the unit passes; --strategy forces a tree.
    sb.write("notes.txt", "alpha (beta needle) gamma\ndelta\n");
    let run = sb.run(&[
        "file",
        "notes.txt",
        "--message-format",
        "json",
        "--",
        "grep",
        "-q",
        "needle",
    ]);
    assert_eq!(run.messages()[0]["unit"], "line+char");
    progress_is_reported(&run, "notes.txt", false);
    let run = sb.run(&[
        "file",
        "notes.txt",
        "--strategy",
        "hdd",
        "-o",
        "tree.txt",
        "--message-format",
        "json",
        "--",
        "grep",
        "-q",
        "needle",
    ]);
    run.expect_code(0);
    assert_eq!(
        (
            run.messages()[0]["lang"].as_str(),
            run.messages()[0]["strategy"].as_str()
        ),
        (Some("text"), Some("hdd"))
    );
}

/// `run` reduced `input`, reporting its best result as it shrank
/// (`reduction-progress`, with tokens when `syntax`-aware) down to the
/// result's size; every line of it matches the schema.
fn progress_is_reported(run: &crate::util::Run, input: &str, syntax: bool) {
    crate::schema::check_messages(run);
    let messages = run.messages();
    assert_eq!(crate::util::check_progress(&messages), 1);
    let progress = crate::util::message(&messages, "reduction-progress");
    assert_eq!(progress["input"], input);
    assert_eq!(progress["tokens"].is_u64(), syntax, "{progress}");
}

/// `best` ends with the layout pass: the result has no whitespace the
/// lexer does not need; `--format` pretty-prints it with rustfmt when the
/// formatted text still fails.
#[test]
fn best_output_is_dense_and_format_pretty_prints_it() {
    let sb = Sandbox::new();
    let input = "fn helper(x: u32) -> u32 {\n    x + 1\n}\n\npub fn main() {\n    let needle = helper(2);\n}\n";
    sb.write("lib.rs", input);
    // rustfmt parses the candidate: only well-formed Rust is interesting.
    let check =
        r#"rustfmt --edition 2021 --emit stdout "$1" >/dev/null 2>&1 && grep -q "let needle" "$1""#;
    let oracle = ["--", "sh", "-c", check, "sh", "{}"];
    let dense = sb.run(&[&["file", "lib.rs", "-o", "dense.rs"][..], &oracle[..]].concat());
    dense.expect_code(0);
    assert_eq!(
        String::from_utf8(sb.read("dense.rs")).unwrap(),
        "fn a(){let needle;}"
    );
    let args = [
        "file",
        "lib.rs",
        "--pretty",
        "-o",
        "pretty.rs",
        "--message-format",
        "json",
    ];
    let pretty = sb.run(&[&args[..], &oracle[..]].concat());
    pretty.expect_code(0);
    assert!(pretty.messages()[0]["strategy"]
        .as_str()
        .unwrap()
        .ends_with(",+format"));
    assert_eq!(
        String::from_utf8(sb.read("pretty.rs")).unwrap(),
        "fn a() {\n    let needle;\n}\n"
    );
    assert_eq!(
        String::from_utf8(sb.read("lib.rs")).unwrap(),
        input,
        "INPUT untouched"
    );
}

#[test]
fn unit_and_strategy_exclude_each_other_and_bad_names_are_usage_errors() {
    let sb = Sandbox::new();
    sb.write("in.js", "let a = 1;\n");
    sb.run(&[
        "file",
        "in.js",
        "--unit",
        "line",
        "--strategy",
        "hdd",
        "--",
        "true",
    ])
    .expect_code(2);
    let run = sb.run(&["file", "in.js", "--lang", "cobol", "--", "true"]);
    run.expect_code(2);
    assert!(
        run.stderr().contains("unknown language `cobol`"),
        "{}",
        run.stderr()
    );
    sb.run(&["file", "in.js", "--strategy", "magic", "--", "true"])
        .expect_code(2);
    assert!(!sb.exists("in.reduced.js"));
}
