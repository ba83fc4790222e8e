//! `include/boardsolve.h`, written by hand, against the code: the same
//! functions with as many parameters, the same constants with the same
//! values, every name prefixed. (tests/c/run.sh checks the installed
//! library's exported symbols against the header too, and compiles it as
//! C99 and C++17.)

use std::collections::BTreeMap;

const HEADER: &str = include_str!("../include/boardsolve.h");

/// `text` without its comments (`/* */` and `//`).
fn uncommented(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r);
            out.push(' ');
        } else if let Some(after) = rest.strip_prefix("//") {
            rest = after.split_once('\n').map_or("", |(_, r)| r);
            out.push('\n');
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The parameters in `list` (a parenthesised list's inside): `void` and
/// nothing are none.
fn arity(list: &str) -> usize {
    let list = list.trim();
    if list.is_empty() || list == "void" {
        0
    } else {
        list.trim_end_matches(',').split(',').count()
    }
}

/// Each function `name(` ... `)` that `text` declares after `marker`
/// (the header: a return type; the code: `extern "C" fn `), with its
/// number of parameters.
fn functions(text: &str, starts: impl Fn(&str, usize) -> bool) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    let mut at = 0;
    while let Some(i) = text[at..].find("boardsolve_") {
        let start = at + i;
        let name_len = text[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(text.len() - start);
        let name = &text[start..start + name_len];
        let after = text[start + name_len..].trim_start();
        at = start + name_len;
        if !after.starts_with('(') || !starts(text, start) {
            continue;
        }
        let inside = &after[1..after.find(')').unwrap()];
        out.insert(name.to_owned(), arity(inside));
    }
    out
}

/// The constants `BOARDSOLVE_NAME = N` (enums) and `#define
/// BOARDSOLVE_NAME N` of the header, or `pub const BOARDSOLVE_NAME: T =
/// N;` of the code.
fn constants(text: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        let line = line
            .strip_prefix("#define ")
            .or_else(|| line.strip_prefix("pub const "))
            .unwrap_or(line);
        if !line.starts_with("BOARDSOLVE_") || line.starts_with("BOARDSOLVE_H") {
            continue;
        }
        let name_len = line
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(line.len());
        let name = &line[..name_len];
        let value = line[name_len..].rsplit(['=', ' ']).next().unwrap();
        let value = value.trim_end_matches([',', ';']).trim_end_matches('u');
        if let Ok(v) = value.parse::<i64>() {
            out.insert(name.to_owned(), v);
        }
    }
    out
}

fn code() -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let mut all = String::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        all.push_str(&std::fs::read_to_string(f).unwrap());
    }
    all
}

#[test]
fn the_header_declares_every_exported_function_with_its_parameters() {
    let header = uncommented(HEADER);
    // A declaration: the name follows its return type (a word or `*`).
    let declared = functions(&header, |t, at| {
        let before = t[..at].trim_end();
        before.ends_with('*') || before.ends_with(|c: char| c.is_ascii_alphanumeric())
    });
    let code = code();
    let exported = functions(&code, |t, at| t[..at].ends_with("extern \"C\" fn "));
    assert!(exported.len() >= 15, "{exported:?}");
    assert_eq!(declared, exported, "header (left) and code (right) differ");
    // Every exported symbol has the prefix, and each is exported as C
    // names it: no mangling.
    assert_eq!(code.matches("#[no_mangle]").count(), exported.len());
    assert_eq!(code.matches("extern \"C\" fn ").count(), exported.len());
}

#[test]
fn the_header_s_constants_are_the_code_s() {
    let header = constants(&uncommented(HEADER));
    let code = constants(&code());
    assert!(header.len() >= 35, "{header:?}");
    assert_eq!(header, code, "header (left) and code (right) differ");
}

#[test]
fn every_name_the_header_gives_is_prefixed() {
    let header = uncommented(HEADER);
    for word in header.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        let known = [
            "",
            "include",
            "stddef",
            "h",
            "stdint",
            "ifndef",
            "define",
            "endif",
            "ifdef",
            "extern",
            "C",
            "__cplusplus",
            "typedef",
            "struct",
            "enum",
            "int32_t",
            "uint32_t",
            "uint64_t",
            "size_t",
            "char",
            "const",
            "void",
            "double",
        ];
        if known.contains(&word) || word.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        assert!(
            word.starts_with("boardsolve_")
                || word.starts_with("BOARDSOLVE_")
                || is_parameter(&header, word),
            "{word:?} is not prefixed"
        );
    }
}

/// True when `word` is only ever a parameter's or a field's name (the
/// word before a `,`, `)` or `;` or `[` after a type).
fn is_parameter(header: &str, word: &str) -> bool {
    let mut rest = header;
    let mut seen = false;
    while let Some(i) = rest.find(word) {
        let before = rest[..i].chars().last().unwrap_or(' ');
        let after = rest[i + word.len()..]
            .trim_start()
            .chars()
            .next()
            .unwrap_or(' ');
        let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let next = rest[i + word.len()..].chars().next().unwrap_or(' ');
        let whole = !ident(before) && !ident(next);
        if whole && !matches!(after, ',' | ')' | ';' | '[') {
            return false;
        }
        seen |= whole;
        rest = &rest[i + word.len()..];
    }
    seen
}
