//! AFL++ output directories (`afl-fuzz -o OUT`), found by what they hold,
//! not by their names: an *instance* directory (`OUT/default/`, or one per
//! `-M`/`-S` name) holds `queue/` and `fuzzer_stats` or `cmdline`. Its
//! `crashes/` and `hangs/` hold the failing inputs, and so do the
//! `crashes.<date>/` and `hangs.<date>/` folders a resumed run leaves.
//!
//! Of an input's file name only `id:` and `sig:` are read
//! (`id:000017,sig:06,src:000003,time:…,execs:…,op:havoc,rep:4`); the rest
//! is free text, and with `AFL_SHA1_FILENAMES` the name is a SHA-1.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::file_name;

/// Directories never searched for AFL output (nor for fuzz crates further
/// down a tree, `nested.rs`): build output, VCS data, dependencies.
pub(super) const SKIPPED_DIRS: [&str; 4] = ["target", ".git", "node_modules", ".cargo"];

/// How deep below each search root instance directories (and fuzz crates
/// further down a tree) are looked for (`root/out/default` is depth 2;
/// `root/fuzz/afl/out/default` depth 4).
pub(crate) const SEARCH_DEPTH: usize = 4;

/// One afl-fuzz instance: `OUT/<name>/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Instance {
    /// The instance directory.
    pub dir: PathBuf,
    /// Its name (`default`, or the `-M`/`-S` name), as its results are
    /// named: qualified by its output directory (`out-b.default`) when
    /// another instance of the same target found has the same name.
    pub name: String,
    /// The target binary afl-fuzz ran, from `cmdline` (or `fuzzer_stats`).
    pub binary: Option<PathBuf>,
    /// `exec_timeout` of `fuzzer_stats`: beyond it a run was a hang.
    pub exec_timeout: Option<Duration>,
    /// afl-fuzz's `-m` in MB (`None`: not given, or `none`): the campaign's
    /// memory limit, by which its out-of-memory crashes failed.
    pub mem_limit_mb: Option<u64>,
    /// The instance's `target_hash` file: AFL++'s hash of the binary it ran
    /// (XXH3-64 of the file, as `0x…`).
    pub target_hash: Option<String>,
    /// Whether the binary at that path has changed since (its hash
    /// differs); `None` when it is gone or there is no hash to compare.
    pub rebuilt: Option<bool>,
    /// Its crashes and hangs, sorted by folder, then name.
    pub inputs: Vec<AflInput>,
}

/// One crash or hang an instance saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AflInput {
    /// The file.
    pub path: PathBuf,
    /// The folder it is in: `crashes`, `hangs`, `crashes.<date>`, ….
    pub folder: String,
    /// A hang (from `hangs*/`) rather than a crash.
    pub hang: bool,
    /// `id:` of its name.
    pub id: Option<u32>,
    /// `sig:` of its name: the signal that killed the target.
    pub sig: Option<u32>,
}

impl AflInput {
    /// Its file name.
    pub(crate) fn name(&self) -> String {
        file_name(&self.path)
    }
}

/// The instances below `roots` (each searched [`SEARCH_DEPTH`] deep),
/// without duplicates, sorted by path.
pub(crate) fn find_instances(roots: &[PathBuf]) -> Vec<Instance> {
    let mut dirs = Vec::new();
    for root in roots {
        collect_instance_dirs(root, SEARCH_DEPTH, &mut dirs);
    }
    let mut dirs: Vec<PathBuf> = dirs
        .into_iter()
        .map(|d| fs::canonicalize(&d).unwrap_or(d))
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs.iter().map(|d| read_instance(d)).collect()
}

/// The instances of one `-o` directory given explicitly (`--afl-out`): the
/// directory itself if it is an instance, else those below it.
pub(crate) fn instances_in(out: &Path) -> Vec<Instance> {
    let out = fs::canonicalize(out).unwrap_or_else(|_| out.to_path_buf());
    if is_instance(&out) {
        return vec![read_instance(&out)];
    }
    find_instances(&[out])
}

/// True for a directory that afl-fuzz made an instance of.
pub(crate) fn is_instance(dir: &Path) -> bool {
    dir.join("queue").is_dir()
        && (dir.join("fuzzer_stats").is_file() || dir.join("cmdline").is_file())
}

fn collect_instance_dirs(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    if is_instance(dir) {
        found.push(dir.to_path_buf());
        return;
    }
    if depth == 0 {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|p| !SKIPPED_DIRS.contains(&file_name(p).as_str()))
        .collect();
    children.sort();
    for child in children {
        collect_instance_dirs(&child, depth - 1, found);
    }
}

/// Reads what cargo-reduce needs of an instance directory. Missing or
/// unreadable files leave their fields empty: a campaign killed early
/// still has its crashes.
pub(crate) fn read_instance(dir: &Path) -> Instance {
    let stats = fs::read_to_string(dir.join("fuzzer_stats")).unwrap_or_default();
    let stat = |key: &str| stats_value(&stats, key);
    let binary = fs::read_to_string(dir.join("cmdline"))
        .ok()
        .and_then(|text| binary_of_cmdline(&text))
        .or_else(|| stat("command_line").and_then(|c| binary_of_command_line(&c)));
    let exec_timeout = stat("exec_timeout")
        .and_then(|v| v.trim_end_matches('+').parse::<u64>().ok())
        .map(Duration::from_millis);
    let mem_limit_mb = stat("command_line").and_then(|c| mem_limit_of_command_line(&c));
    let target_hash = fs::read_to_string(dir.join("target_hash"))
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| parse_hash(h).is_some_and(|v| v != 0));
    let rebuilt = match (&target_hash, &binary) {
        (Some(hash), Some(binary)) if binary.is_absolute() => rebuilt_since(hash, binary),
        _ => None,
    };
    Instance {
        dir: dir.to_path_buf(),
        name: file_name(dir),
        binary,
        exec_timeout,
        mem_limit_mb,
        target_hash,
        rebuilt,
        inputs: inputs_of(dir),
    }
}

/// Whether `binary` differs from the binary whose AFL++ `target_hash` is
/// `hash`; `None` when it cannot be read.
pub(crate) fn rebuilt_since(hash: &str, binary: &Path) -> Option<bool> {
    let bytes = fs::read(binary).ok()?;
    Some(parse_hash(hash) != Some(xxhash_rust::xxh3::xxh3_64(&bytes)))
}

/// The value of a `target_hash` file (`%p` of a `u64`: `0x…`).
fn parse_hash(text: &str) -> Option<u64> {
    u64::from_str_radix(text.trim().trim_start_matches("0x"), 16).ok()
}

/// `key : value` of a `fuzzer_stats` file.
fn stats_value(stats: &str, key: &str) -> Option<String> {
    stats.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

/// The target binary of a `cmdline` file: the target's argv, one argument
/// per line.
fn binary_of_cmdline(text: &str) -> Option<PathBuf> {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(PathBuf::from)
}

/// The target binary of `fuzzer_stats`' `command_line`: the first word
/// after `--`, else the last word that is not `@@`.
fn binary_of_command_line(line: &str) -> Option<PathBuf> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let after = words
        .iter()
        .position(|w| *w == "--")
        .map(|i| &words[i + 1..]);
    match after {
        Some(rest) => rest.first().map(PathBuf::from),
        None => words.iter().rev().find(|w| **w != "@@").map(PathBuf::from),
    }
}

/// afl-fuzz's `-m` in `fuzzer_stats`' `command_line`, in MB, as afl-fuzz
/// reads it (`-m 512`, `-m512`, suffixes `k`, `M`, `G`, `T`); `None` for
/// `none`, no `-m`, or a value afl-fuzz would have refused. Only words
/// before `--` are afl-fuzz's.
fn mem_limit_of_command_line(line: &str) -> Option<u64> {
    let words: Vec<&str> = line.split_whitespace().take_while(|w| *w != "--").collect();
    let value = words.iter().enumerate().rev().find_map(|(i, w)| match *w {
        "-m" => words.get(i + 1).copied(),
        w => w.strip_prefix("-m").filter(|v| !v.is_empty()),
    })?;
    let digits = value
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(value.len());
    let number: u64 = value[..digits].parse().ok()?;
    let mb = match &value[digits..] {
        "" | "M" => number,
        "k" => number / 1024,
        "G" => number.checked_mul(1024)?,
        "T" => number.checked_mul(1024 * 1024)?,
        _ => return None,
    };
    (mb > 0).then_some(mb)
}

/// The crashes and hangs of instance `dir`: files in `crashes*/` and
/// `hangs*/`, except afl-fuzz's `README.txt`.
fn inputs_of(dir: &Path) -> Vec<AflInput> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut folders: Vec<(String, bool)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            failing_folder(&name).map(|hang| (name, hang))
        })
        .collect();
    folders.sort();
    let mut inputs = Vec::new();
    for (folder, hang) in folders {
        let Ok(files) = fs::read_dir(dir.join(&folder)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = files
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.path())
            .filter(|p| file_name(p) != "README.txt" && !file_name(p).starts_with('.'))
            .collect();
        paths.sort();
        for path in paths {
            let (id, sig) = id_and_sig(&file_name(&path));
            inputs.push(AflInput {
                path,
                folder: folder.clone(),
                hang,
                id,
                sig,
            });
        }
    }
    inputs
}

/// Whether a folder of an instance holds crashes (`Some(false)`) or hangs
/// (`Some(true)`): `crashes`, `hangs`, and the `crashes.<date>` and
/// `hangs.<date>` of resumed runs (`crashes_<digits>` in AFL++ builds
/// with `SIMPLE_FILES`).
pub(super) fn failing_folder(name: &str) -> Option<bool> {
    let base = match resumed_date(name) {
        Some(date) => &name[..name.len() - date.len() - 1],
        None => name,
    };
    match base {
        "crashes" => Some(false),
        "hangs" => Some(true),
        _ => None,
    }
}

/// The date a resumed run put after a folder's name: `…<.date>` or
/// `…_<digits>`.
pub(crate) fn resumed_date(folder: &str) -> Option<&str> {
    if let Some((_, date)) = folder.split_once('.') {
        return Some(date);
    }
    let (_, digits) = folder.rsplit_once('_')?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

/// `id:` and `sig:` of an AFL file name (`id:000017,sig:06,src:…`); also in
/// the `id_000017_sig_06` spelling of builds without `:` in file names.
pub(crate) fn id_and_sig(name: &str) -> (Option<u32>, Option<u32>) {
    let field = |key: &str| {
        name.split(',').find_map(|part| {
            let value = part.strip_prefix(key)?.strip_prefix([':', '_'])?;
            value.parse::<u32>().ok()
        })
    };
    let (id, sig) = (field("id"), field("sig"));
    if id.is_some() || !name.starts_with("id_") {
        return (id, sig);
    }
    // `id_000017_sig_06_src_…`: fields separated by `_` too.
    let words: Vec<&str> = name.split('_').collect();
    let after = |key: &str| {
        let at = words.iter().position(|w| *w == key)?;
        words.get(at + 1)?.parse::<u32>().ok()
    };
    (after("id"), after("sig"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_id_and_sig_are_read_from_names() {
        assert_eq!(
            id_and_sig("id:000017,sig:06,src:000003,time:1234,execs:99,op:havoc,rep:4"),
            (Some(17), Some(6))
        );
        assert_eq!(
            id_and_sig("id:000002,src:000001,time:10,execs:5,op:flip1,pos:3"),
            (Some(2), None)
        );
        assert_eq!(
            id_and_sig("id_000005_sig_11_src_000001"),
            (Some(5), Some(11))
        );
        assert_eq!(
            id_and_sig("3f786850e387550fdab836ed7e6dc881de23001b"),
            (None, None)
        );
        assert_eq!(id_and_sig("id:notanumber,sig:xx"), (None, None));
    }

    #[test]
    fn resumed_folders_count_as_crashes_and_hangs() {
        assert_eq!(failing_folder("crashes"), Some(false));
        assert_eq!(failing_folder("crashes.2026-11-23-10:00:00"), Some(false));
        assert_eq!(failing_folder("hangs.2026-11-23-10:00:00"), Some(true));
        assert_eq!(failing_folder("crashes_20261123100000"), Some(false));
        assert_eq!(failing_folder("queue"), None);
        assert_eq!(failing_folder("crashes_old"), None);
    }

    #[test]
    fn the_binary_comes_from_cmdline_or_the_stats() {
        assert_eq!(
            binary_of_cmdline("/w/target/debug/parse\n@@\n"),
            Some(PathBuf::from("/w/target/debug/parse"))
        );
        assert_eq!(
            binary_of_command_line("afl-fuzz -i in -o out -- target/debug/parse @@"),
            Some(PathBuf::from("target/debug/parse"))
        );
        assert_eq!(
            binary_of_command_line("afl-fuzz -i in -o out target/debug/parse"),
            Some(PathBuf::from("target/debug/parse"))
        );
    }

    #[test]
    fn the_memory_limit_is_read_as_afl_fuzz_reads_it() {
        let m = mem_limit_of_command_line;
        assert_eq!(m("afl-fuzz -i in -o out -m 512 -- ./t"), Some(512));
        assert_eq!(m("afl-fuzz -m512 -- ./t"), Some(512));
        assert_eq!(m("afl-fuzz -m 2G -- ./t"), Some(2048));
        assert_eq!(m("afl-fuzz -m 1T -- ./t"), Some(1 << 20));
        assert_eq!(m("afl-fuzz -m 4096k -- ./t"), Some(4));
        assert_eq!(
            m("afl-fuzz -m 64 -m 128 -- ./t"),
            Some(128),
            "the last -m wins"
        );
        assert_eq!(m("afl-fuzz -m none -- ./t"), None);
        assert_eq!(m("afl-fuzz -m 5X -- ./t"), None);
        assert_eq!(
            m("afl-fuzz -i in -o out -- ./t -m 64"),
            None,
            "the target's own -m"
        );
        assert_eq!(m("afl-fuzz -i in -o out ./t"), None);
    }

    #[test]
    fn instances_are_found_by_content_at_any_name() {
        let root = tempfile::tempdir().unwrap();
        let main = root.path().join("fuzz/findings/main");
        let second = root.path().join("fuzz/findings/second");
        for dir in [&main, &second] {
            fs::create_dir_all(dir.join("queue")).unwrap();
            fs::create_dir_all(dir.join("crashes")).unwrap();
        }
        fs::write(
            main.join("fuzzer_stats"),
            "start_time        : 1\nexec_timeout      : 40\ncommand_line      : afl-fuzz -M main -m 1G -- /w/target/debug/parse\n",
        )
        .unwrap();
        fs::write(main.join("target_hash"), "0xdeadbeef\n").unwrap();
        fs::write(second.join("cmdline"), "/w/target/debug/parse\n").unwrap();
        fs::write(main.join("crashes/README.txt"), "").unwrap();
        fs::write(main.join("crashes/id:000000,sig:06,src:000000"), "x").unwrap();
        fs::create_dir_all(main.join("hangs.2026-11-23-10:00:00")).unwrap();
        fs::write(
            main.join("hangs.2026-11-23-10:00:00/id:000000,src:000001"),
            "y",
        )
        .unwrap();
        // Not instances: no queue/, or inside target/.
        fs::create_dir_all(root.path().join("fuzz/in")).unwrap();
        fs::create_dir_all(root.path().join("target/out/default/queue")).unwrap();
        fs::write(root.path().join("target/out/default/cmdline"), "x").unwrap();

        let found = find_instances(&[root.path().to_path_buf()]);
        let names: Vec<&str> = found.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["main", "second"]);
        let main = &found[0];
        assert_eq!(main.exec_timeout, Some(Duration::from_millis(40)));
        assert_eq!(main.mem_limit_mb, Some(1024));
        assert_eq!(found[1].mem_limit_mb, None, "no fuzzer_stats");
        assert_eq!(main.target_hash.as_deref(), Some("0xdeadbeef"));
        assert_eq!(main.rebuilt, None, "the binary is gone: nothing to compare");
        assert_eq!(main.binary, Some(PathBuf::from("/w/target/debug/parse")));
        assert_eq!(main.inputs.len(), 2);
        assert_eq!((main.inputs[0].hang, main.inputs[0].sig), (false, Some(6)));
        assert!(main.inputs[1].hang);
        assert_eq!(main.inputs[1].folder, "hangs.2026-11-23-10:00:00");
        assert_eq!(
            found[1].binary,
            Some(PathBuf::from("/w/target/debug/parse"))
        );
    }

    #[test]
    fn a_binary_whose_hash_changed_was_rebuilt() {
        let root = tempfile::tempdir().unwrap();
        let binary = root.path().join("parse");
        fs::write(&binary, b"the binary the campaign ran").unwrap();
        let dir = root.path().join("out/default");
        fs::create_dir_all(dir.join("queue")).unwrap();
        fs::write(dir.join("cmdline"), format!("{}\n", binary.display())).unwrap();
        let hash = xxhash_rust::xxh3::xxh3_64(b"the binary the campaign ran");
        fs::write(dir.join("target_hash"), format!("{hash:#x}\n")).unwrap();
        assert_eq!(read_instance(&dir).rebuilt, Some(false));
        fs::write(&binary, b"rebuilt since").unwrap();
        assert_eq!(read_instance(&dir).rebuilt, Some(true));
    }
}
