//! Every `console` block of README.md and docs/*.md is run, and what each
//! command prints must match what the document shows.
//!
//! A block is a series of `$ COMMAND` lines, each followed by the standard
//! output it shows. A command is `query` or `generator` with words and
//! double- or single-quoted strings, optionally fed by `printf '...' |` or
//! `< FILE`, optionally ending in `# exit N` (the exit status it must give,
//! 0 otherwise). In the output, a line `...` stands for any number of lines.
//! `BOARDSOLVE_DOCS_BLESS=1` writes what the commands print into the
//! documents instead (blocks with `...` are left to be mended by hand).
//! The commands of one document run in order in one directory, which holds
//! the default British Square and Dots and Boxes files (`bsq.db`,
//! `dab.db`) from the start; heavy commands that the tests cannot run are
//! shown in `sh` blocks instead, without output.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// One command of a document, with what it must print.
#[derive(Debug)]
struct Example {
    /// Where it is: the document and its line.
    place: String,
    /// The index of the command's line in the document.
    line: usize,
    words: Vec<String>,
    stdin: Vec<u8>,
    stdin_file: Option<String>,
    status: i32,
    output: Vec<String>,
}

/// The `console` blocks of a markdown text, as examples.
fn examples(doc: &str, name: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_block = false;
    for (n, line) in doc.lines().enumerate() {
        let trimmed = line.trim_end();
        if !in_block {
            in_block = trimmed == "```console";
            continue;
        }
        if trimmed == "```" {
            in_block = false;
            continue;
        }
        if let Some(command) = trimmed.strip_prefix("$ ") {
            let mut e = parse_command(command, &format!("{name}:{}", n + 1));
            e.line = n;
            out.push(e);
        } else if let Some(last) = out.last_mut() {
            last.output.push(trimmed.to_owned());
        } else {
            panic!("{name}:{}: output before any command", n + 1);
        }
    }
    out
}

fn parse_command(line: &str, place: &str) -> Example {
    let (line, status) = match line.rsplit_once("# exit ") {
        Some((c, s)) => (c.trim(), s.trim().parse().expect("an exit status")),
        None => (line.split(" # ").next().unwrap_or(line).trim(), 0),
    };
    let mut words = split_words(line);
    let mut stdin = Vec::new();
    if words.first().map(String::as_str) == Some("printf") {
        let bar = words.iter().position(|w| w == "|").expect("printf ... |");
        stdin = unescape(&words[1]).into_bytes();
        words.drain(..=bar);
    }
    let mut stdin_file = None;
    if let Some(i) = words.iter().position(|w| w == "<") {
        stdin_file = Some(words[i + 1].clone());
        words.truncate(i);
    }
    assert!(
        matches!(
            words.first().map(String::as_str),
            Some("query" | "generator")
        ),
        "{place}: only query and generator commands can be checked: {line}"
    );
    Example {
        place: place.to_owned(),
        line: 0,
        words,
        stdin,
        stdin_file,
        status,
        output: Vec::new(),
    }
}

/// Words and quoted strings, as a shell splits them.
fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                started = true;
            }
            (None, ' ') => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// `printf`'s escapes that documents use: `\n` and `\\`.
fn unescape(s: &str) -> String {
    s.replace("\\n", "\n").replace("\\\\", "\\")
}

/// True when `actual` is what `expected` shows (`...` lines match any
/// lines).
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| a.trim_end() == e && matches(rest, more)),
    }
}

fn binary(name: &str) -> PathBuf {
    let query = PathBuf::from(env!("CARGO_BIN_EXE_query"));
    match name {
        "query" => query,
        // Built beside it by `cargo test --workspace` (and `cargo build`).
        _ => query.with_file_name(format!("generator{}", std::env::consts::EXE_SUFFIX)),
    }
}

fn run_document(path: &Path) {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path).unwrap();
    let examples = examples(&text, &name);
    if examples.is_empty() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for f in ["bsq.db", "dab.db"] {
        std::fs::copy(super::first_contact::defaults().join(f), dir.path().join(f)).unwrap();
    }
    // BOARDSOLVE_DOCS_BLESS=1 writes what the commands print into the
    // document instead of failing, where the shown output cuts nothing.
    let bless = std::env::var_os("BOARDSOLVE_DOCS_BLESS").is_some();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut shift = 0isize;
    for e in examples {
        let program = binary(&e.words[0]);
        assert!(
            program.exists(),
            "{}: {} is not built (run `cargo test --workspace`)",
            e.place,
            program.display()
        );
        let stdin = match &e.stdin_file {
            Some(f) => std::fs::read(dir.path().join(f)).unwrap(),
            None => e.stdin.clone(),
        };
        let out = Command::new(&program)
            .current_dir(dir.path())
            .args(&e.words[1..])
            .env("NO_COLOR", "1")
            .write_stdin(stdin)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let actual: Vec<&str> = stdout.lines().collect();
        assert_eq!(
            out.status.code(),
            Some(e.status),
            "{}: {:?} exited with {:?}: {}",
            e.place,
            e.words,
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        if bless && !matches(&e.output, &actual) && !e.output.iter().any(|l| l == "...") {
            let at = (e.line as isize + 1 + shift) as usize;
            lines.splice(
                at..at + e.output.len(),
                actual.iter().map(|l| l.to_string()),
            );
            shift += actual.len() as isize - e.output.len() as isize;
            continue;
        }
        assert!(
            matches(&e.output, &actual),
            "{}: {:?} printed\n{}\nbut the document shows\n{}",
            e.place,
            e.words,
            stdout,
            e.output.join("\n")
        );
    }
    if bless {
        std::fs::write(path, lines.join("\n") + "\n").unwrap();
    }
}

#[test]
fn the_documents_examples_print_what_they_show() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut docs = vec![root.join("README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    docs.extend(pages);
    // BOARDSOLVE_DOCS=name checks only the documents whose path contains it.
    let only = std::env::var("BOARDSOLVE_DOCS").unwrap_or_default();
    docs.retain(|d| d.to_string_lossy().contains(&only));
    // The documents are independent (each runs in a directory of its own),
    // so two run at a time: the slowest, searches of a few seconds, then
    // overlap with the rest rather than keep the suite waiting.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(doc) = docs.get(i) else { break };
                if let Err(e) = std::panic::catch_unwind(|| run_document(doc)) {
                    let message = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                        .unwrap_or_default();
                    failures.lock().unwrap().push(message);
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_harness_reads_commands_as_a_shell_would() {
    let e = parse_command(
        r#"printf 'a1\nbest\n' | query play --ai second "X .. O" # exit 1"#,
        "here",
    );
    assert_eq!(e.words, ["query", "play", "--ai", "second", "X .. O"]);
    assert_eq!(e.stdin, b"a1\nbest\n");
    assert_eq!(e.status, 1);
    let e = parse_command("query --json - < positions.txt", "here");
    assert_eq!(e.words, ["query", "--json", "-"]);
    assert_eq!(e.stdin_file.as_deref(), Some("positions.txt"));
    let shown: Vec<String> = ["a", "...", "d"].map(String::from).to_vec();
    assert!(matches(&shown, &["a", "b", "c", "d"]));
    assert!(matches(&shown, &["a", "d"]));
    assert!(!matches(&shown, &["a", "b"]));
}
