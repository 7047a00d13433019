//! The command-line interface (cargo feature `cli`): one subcommand per
//! library entry point, each reading and writing files and reporting counts.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};

use crate::{Config, EngineKind, Generator, Graph, TestFile};

/// Prototype Graph fuzzing of JavaScript engines: discover an engine's
/// builtins, learn signatures from tests, generate programs.
#[derive(Debug, Parser)]
#[command(name = "protograph", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Walk an engine's builtins and write the graph as JSON.
    Discover(DiscoverArgs),
    /// Run JavaScript tests under a recording prelude and add the observed
    /// signatures to a graph.
    Learn(LearnArgs),
    /// Generate programs by random walks on a graph.
    Generate(GenerateArgs),
    /// Take the calls of foreign tests (test262) as snippets the mutator
    /// splices in, typed by the graph (`PROTOGRAPH_SNIPPETS` of boa_eval).
    Snippets(SnippetsArgs),
}

/// The engine to use; Boa only in builds with the `boa` feature.
#[derive(Debug, Args)]
struct EngineArg {
    /// JavaScript engine [default: boa if built with the `boa` feature, else node]
    #[arg(long, value_enum)]
    engine: Option<EngineKind>,
}

impl EngineArg {
    fn kind(&self) -> EngineKind {
        self.engine.unwrap_or(if cfg!(feature = "boa") {
            EngineKind::Boa
        } else {
            EngineKind::Node
        })
    }
}

#[derive(Debug, Args)]
struct DiscoverArgs {
    #[command(flatten)]
    engine: EngineArg,
    /// Write the graph here instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct LearnArgs {
    #[command(flatten)]
    engine: EngineArg,
    /// Graph to extend (usually from `protograph discover`).
    #[arg(long)]
    graph: PathBuf,
    /// Test files, run in this order in one realm (put a shared harness first).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write the extended graph here instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct GenerateArgs {
    /// Graph to walk.
    #[arg(long)]
    graph: PathBuf,
    /// Number of statements.
    #[arg(short, default_value_t = 20)]
    n: usize,
    /// Seed; the same seed and graph give the same program.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Most forward steps to the call of a statement.
    #[arg(long, default_value_t = Config::default().max_forward)]
    max_forward: u32,
    /// Deepest nesting of generated arguments.
    #[arg(long, default_value_t = Config::default().max_depth)]
    max_depth: u32,
}

#[derive(Debug, Args)]
struct SnippetsArgs {
    /// Graph whose global names the snippets may use.
    #[arg(long)]
    graph: PathBuf,
    /// Test files, or directories searched for `.js` files (sorted).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Take only every N-th file of the sorted list (a subset held out).
    #[arg(long, default_value_t = 1)]
    every: usize,
    /// Write the snippets here instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Discover(args) => discover(args),
        Command::Learn(args) => learn(args),
        Command::Generate(args) => generate(args),
        Command::Snippets(args) => snippets(args),
    }
}

fn discover(args: DiscoverArgs) -> Result<()> {
    let kind = args.engine.kind();
    let engine = engine(kind)?;
    let graph = crate::discover(engine.as_ref())
        .with_context(|| format!("discovery in {} failed", engine.name()))?;
    eprintln!("discovered in {}: {}", engine.name(), graph.stats());
    write_output(args.output.as_deref(), &graph.to_json())
}

fn learn(args: LearnArgs) -> Result<()> {
    let mut graph = read_graph(&args.graph)?;
    let tests = args
        .files
        .iter()
        .map(|path| {
            let source = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read test {}: check the path", path.display()))?;
            Ok(TestFile {
                name: path.display().to_string(),
                source,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let engine = engine(args.engine.kind())?;
    let learned = crate::learn(engine.as_ref(), &tests)
        .with_context(|| format!("learning in {} failed", engine.name()))?;
    for failure in &learned.failures {
        eprintln!(
            "warning: test {} threw {} (its calls before the throw still count)",
            failure.name, failure.error
        );
    }
    graph.merge(&learned.graph).with_context(|| {
        format!(
            "cannot merge into {}: was it made by `protograph discover`?",
            args.graph.display()
        )
    })?;
    eprintln!(
        "learned from {} tests in {} ({} threw): {}",
        tests.len(),
        engine.name(),
        learned.failures.len(),
        graph.stats()
    );
    write_output(args.output.as_deref(), &graph.to_json())
}

fn generate(args: GenerateArgs) -> Result<()> {
    let graph = read_graph(&args.graph)?;
    let config = Config {
        max_forward: args.max_forward,
        max_depth: args.max_depth,
        ..Config::default()
    };
    let generator = Generator::new(&graph, config)
        .with_context(|| format!("cannot use graph {}", args.graph.display()))?;
    print!("{}", generator.program(args.seed, args.n).render());
    Ok(())
}

fn snippets(args: SnippetsArgs) -> Result<()> {
    let graph = read_graph(&args.graph)?;
    let globals: std::collections::HashSet<&str> = graph
        .edges
        .iter()
        .filter_map(|e| match e {
            crate::Edge::Property { from, name, .. } if *from == graph.root => Some(name.as_str()),
            _ => None,
        })
        .collect();
    let mut files = Vec::new();
    for path in &args.paths {
        js_files(path, &mut files)?;
    }
    files.sort();
    let mut taken = Vec::new();
    let count = files.iter().step_by(args.every.max(1)).count();
    for path in files.iter().step_by(args.every.max(1)) {
        let source = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read test {}: check the path", path.display()))?;
        let name = path.display().to_string();
        taken.extend(crate::foreign::extract(&source, &name, &|n| {
            globals.contains(n)
        }));
    }
    let snippets = crate::Snippets::new(taken).context("a snippet did not parse back")?;
    eprintln!("{} snippets from {count} files", snippets.len());
    write_output(args.output.as_deref(), &snippets.to_json())
}

/// `path` if a file, else the `.js` files under it.
fn js_files(path: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if !path.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let entries = std::fs::read_dir(path)
        .with_context(|| format!("cannot list {}: check the path", path.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() || path.extension().is_some_and(|e| e == "js") {
            js_files(&path, out)?;
        }
    }
    Ok(())
}

fn engine(kind: EngineKind) -> Result<Box<dyn crate::Engine>> {
    match kind.engine() {
        Ok(engine) => Ok(engine),
        Err(crate::Error::Unavailable(name)) => {
            bail!("engine {name} is not in this build: rebuild with `--features boa` or use `--engine node`")
        }
        Err(err) => Err(err.into()),
    }
}

fn read_graph(path: &Path) -> Result<Graph> {
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "cannot read graph {}: make one with `protograph discover -o {0}`",
            path.display()
        )
    })?;
    Graph::from_json(&text).with_context(|| {
        format!(
            "graph {} is unusable: regenerate it with `protograph discover`",
            path.display()
        )
    })
}

fn write_output(path: Option<&Path>, text: &str) -> Result<()> {
    match path {
        Some(path) => std::fs::write(path, text).with_context(|| {
            format!(
                "cannot write {}: check the directory exists",
                path.display()
            )
        }),
        None => {
            println!("{text}");
            Ok(())
        }
    }
}
