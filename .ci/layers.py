#!/usr/bin/env python3
"""The project's layering checks (python3, standard library only).

Fails (exit 1, naming the files) on:

1. a cycle among the top-level modules of a crate;
2. a circle of files within a crate: file A names an item of file B, and B,
   directly or through other files, names A;
3. the two module styles mixed: `foo.rs` beside a folder `foo/` (a folder's
   module is its `foo/mod.rs`);
4. a game named in the command-line tools (query/src, generator/src): every
   game comes from the registry. The names are read from the game folders
   under src/games/, so a new game is covered without editing this check.

How files name each other (rules 1 and 2). A crate is the tree of modules
its root (lib.rs or main.rs) declares with `mod x;`; a module's file is
`dir/x.rs` or `dir/x/mod.rs`. A file names another through a path that
starts with `crate::`, `super::` (any number of them), `self::`, or a
module the file declares, in `use` declarations (grouped ones such as
`use crate::{a::x, b};` included) and anywhere in the code. A path names
the file of the deepest module in it: `crate::core::layout::RecordLayout`
and `super::layout::MAX_DENSE_KEY_BITS` name src/core/layout.rs,
`crate::core::Game` names src/core/mod.rs. (With --through-reexports, a
path naming an item that file re-exports names the file that defines it.)

A module owns its submodules: its file declaring them (`mod x;`),
re-exporting their items (`pub use x::Y`) and calling them is no edge
from the parent to the child. So a child may use what its parent
defines, and the edges that remain run between siblings, from a child up
to its ancestors, and across folders: a circle among them is two parts
of the code that each need the other.

Rule 1 counts the same edges between the top-level modules (a file's
edges count for the top-level module holding it) of src, generator/src,
query/src, probe/src, python/src, web/src and capi/src.

Left out: comments, string literals, `#[cfg(test)]` items (and
`#[cfg(all(test, ...))]`), the modules declared under them, and files
named tests.rs.
"""

import argparse
import bisect
import os
import re
import sys

CRATES = ["src", "generator/src", "query/src", "probe/src", "python/src", "web/src", "capi/src"]
GAMES = "src/games"
TOOLS = ["query/src", "generator/src"]
# Folders never searched for Rust sources (rule 3).
SKIP_DIRS = {"target", ".git", "node_modules"}

# Comments, string and character literals: blanked before anything is read
# (newlines kept, so line numbers stay right).
LITERALS = re.compile(
    r"""(?=[/"'br])
      (?: //[^\n]*
      | /\*.*?\*/
      | b?r(?P<hashes>\#*)".*?"(?P=hashes)
      | b?"(?:\\.|[^"\\])*"
      | b?'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'
      )
    """,
    re.S | re.X,
)
CFG_ATTR = re.compile(r"#\s*(!?)\s*\[\s*cfg\s*\(")
ITEM_START = re.compile(
    r"(?:pub\s*(?:\([^)]*\))?\s*)?(?:unsafe\s+|async\s+|const\s+|extern\s+)*"
    r"(mod|fn|use|impl|struct|enum|union|const|static|type|trait|macro_rules|let)\b"
)
TEST_MOD_DECL = re.compile(r"(?:pub\s*(?:\([^)]*\))?\s*)?mod\s+(\w+)\s*;")
# Patterns start with a literal (fast to find); `alone` checks the
# character before a match.
MOD_DECL = re.compile(r"mod\s+(\w+)\s*;")
INLINE_MOD = re.compile(r"mod\s+(\w+)\s*\{")
USE_DECL = re.compile(r"use\s+([^;]*);")
PUB_BEFORE = re.compile(r"pub\s*(?:\([^)]*\))?\s*$")
ROOTED_PATH = re.compile(r"(crate|super|self)((?:\s*::\s*\w+)+)")


def alone(pattern, text, before="_$"):
    """The matches of `pattern` in `text` not preceded by a letter, digit
    or one of `before`."""
    for m in pattern.finditer(text):
        i = m.start()
        if i == 0 or not (text[i - 1].isalnum() or text[i - 1] in before):
            yield m


def blank(text, start, end):
    """`text` with `start..end` replaced by spaces, newlines kept."""
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def strip_literals(text):
    def repl(m):
        s = m.group(0)
        keep = "\n" * s.count("\n")
        return '""' + keep if s[-1] == '"' or s.endswith("#") else " " + keep

    return LITERALS.sub(repl, text)


def matching(text, i, open_ch, close_ch):
    """Index just past the bracket closing the one opened before `i`."""
    depth = 1
    n = len(text)
    while i < n and depth:
        c = text[i]
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
        i += 1
    return i


def split_top(s, sep=","):
    """`s` split on `sep` outside brackets."""
    parts, depth, cur = [], 0, []
    for c in s:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def test_only(pred):
    """True when a `cfg(...)` predicate holds only in test builds."""
    pred = pred.strip()
    if pred == "test":
        return True
    m = re.fullmatch(r"(all|any|not)\s*\((.*)\)", pred, re.S)
    if not m:
        return False
    args = split_top(m.group(2))
    if m.group(1) == "all":
        return any(test_only(a) for a in args)
    if m.group(1) == "any":
        return bool(args) and all(test_only(a) for a in args)
    return False


def item_end(text, i):
    """End of the item (or field, statement) starting at `i`."""
    is_item = ITEM_START.match(text, i) is not None
    depth = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return i
            if depth == 0 and c == "}" and is_item:
                return i + 1
        elif depth == 0 and (c == ";" or (c == "," and not is_item)):
            return i + 1
        i += 1
    return n


def strip_tests(text):
    """`text` without its test-only items; the names of the test-only
    modules it declares (`#[cfg(test)] mod x;`); whether the whole file is
    test-only (`#![cfg(test)]`)."""
    test_mods = set()
    pos = 0
    while True:
        m = CFG_ATTR.search(text, pos)
        if not m:
            break
        close = matching(text, m.end(), "(", ")")
        pred = text[m.end():close - 1]
        attr_end = text.find("]", close)
        attr_end = len(text) if attr_end < 0 else attr_end + 1
        if not test_only(pred):
            pos = attr_end
            continue
        if m.group(1):  # inner attribute: the whole file
            return "", test_mods, True
        i = attr_end
        while True:  # further attributes of the same item
            while i < len(text) and text[i].isspace():
                i += 1
            if text.startswith("#[", i):
                i = matching(text, i + 2, "[", "]")
            else:
                break
        decl = TEST_MOD_DECL.match(text, i)
        if decl:
            test_mods.add(decl.group(1))
        end = item_end(text, i)
        text = blank(text, m.start(), end)
        pos = end
    return text, test_mods, False


def parse_use_tree(tree):
    """`(segments, name)` for every path of a use tree; `name` is what it
    brings into scope (`None` for a glob)."""
    out = []

    def walk(s, prefix):
        for item in split_top(s):
            brace = item.find("{")
            if brace >= 0:
                head = re.sub(r"\s+", "", item[:brace]).rstrip(":")
                inner = item[brace + 1:item.rfind("}")]
                walk(inner, prefix + ([x for x in head.split("::")] if head else []))
                continue
            m = re.fullmatch(r"(.*?)\s+as\s+(\w+)", item, re.S)
            path, alias = (m.group(1), m.group(2)) if m else (item, None)
            segs = prefix + re.sub(r"\s+", "", path).split("::")
            if segs and segs[-1] == "self":
                segs = segs[:-1]
            if not segs:
                continue
            if segs[-1] == "*":
                out.append((segs[:-1], None))
            else:
                out.append((segs, alias or segs[-1]))

    walk(tree, [])
    return out


class File:
    def __init__(self, path, modpath):
        self.path = path
        self.modpath = modpath  # tuple of module names from the crate root
        self.reexports = {}  # name -> absolute segments
        self.refs = []  # (line, absolute segments, text)
        self.children = set()
        self.text = ""
        self.lines = []
        self.inline = []  # (start, end, name)

    def line_of(self, pos):
        return bisect.bisect_right(self.lines, pos) + 1

    def scope(self, pos):
        """The module path at `pos`, inline modules included."""
        return self.modpath + tuple(n for s, e, n in self.inline if s <= pos < e)


class Crate:
    def __init__(self, root, top, through_reexports=False):
        """The crate whose root file is `top` (relative to `root`)."""
        self.root = root
        self.through_reexports = through_reexports
        self.files = {}  # relative path -> File
        self.modules = {}  # module path -> File
        self.load(top, ())
        for f in list(self.files.values()):
            self.read_paths(f)

    def load(self, rel, modpath):
        if os.path.basename(rel) == "tests.rs":
            return
        full = os.path.join(self.root, rel)
        with open(full, encoding="utf-8", errors="replace") as fh:
            raw = fh.read()
        text, test_mods, whole = strip_tests(strip_literals(raw))
        if whole:
            return
        f = File(rel, modpath)
        f.text = text
        f.lines = [m.start() for m in re.finditer("\n", text)]
        for m in alone(INLINE_MOD, text):
            f.inline.append((m.end(), matching(text, m.end(), "{", "}"), m.group(1)))
        self.files[rel] = f
        self.modules[modpath] = f
        name = os.path.basename(rel)
        if name in ("lib.rs", "main.rs", "mod.rs"):
            folder = os.path.dirname(rel)
        else:
            folder = rel[:-3]
        for m in alone(MOD_DECL, text):
            child = m.group(1)
            if child in test_mods or f.scope(m.start()) != modpath:
                continue
            for cand in (os.path.join(folder, child + ".rs"),
                         os.path.join(folder, child, "mod.rs")):
                if os.path.isfile(os.path.join(self.root, cand)):
                    f.children.add(child)
                    self.load(cand, modpath + (child,))
                    break

    def absolute(self, f, pos, segs):
        """The path `segs`, written at `pos` of `f`, from the crate root;
        `None` for a path into another crate."""
        scope = f.scope(pos)
        head = segs[0]
        if head in ("crate", "$crate"):
            return list(segs[1:])
        if head in ("self", "super"):
            i, cur = 0, list(scope)
            if head == "self":
                i = 1
            while i < len(segs) and segs[i] == "super":
                if not cur:
                    return None
                cur.pop()
                i += 1
            return cur + list(segs[i:])
        if scope == f.modpath and head in f.children:
            return list(f.modpath) + list(segs)
        if any(n == head for _, _, n in f.inline):
            return list(f.modpath) + list(segs)
        return None

    def read_paths(self, f):
        text = f.text
        uses = list(alone(USE_DECL, text))
        for m in uses:
            public = PUB_BEFORE.search(text, max(0, m.start() - 40), m.start()) is not None
            for segs, name in parse_use_tree(m.group(1)):
                absolute = self.absolute(f, m.start(), segs)
                if absolute is None:
                    continue
                if public and name is not None:
                    f.reexports[name] = absolute
                f.refs.append((f.line_of(m.start()), absolute, "use " + "::".join(segs)))
        # Paths in the code, `use` declarations left out (read above).
        code = text
        for m in reversed(uses):
            code = blank(code, m.start(), m.end())
        for m in alone(ROOTED_PATH, code, "_:"):
            head = "$crate" if m.start() and code[m.start() - 1] == "$" else m.group(1)
            segs = [head] + re.sub(r"\s+", "", m.group(2)).split("::")[1:]
            absolute = self.absolute(f, m.start(), segs)
            if absolute is not None:
                f.refs.append((f.line_of(m.start()), absolute, "::".join(segs)))
        local = sorted(f.children | {n for _, _, n in f.inline})
        if not local:
            return
        bare = re.compile(r"(" + "|".join(local) + r")((?:\s*::\s*\w+)+)")
        for m in alone(bare, code, "_$:."):
            segs = [m.group(1)] + re.sub(r"\s+", "", m.group(2)).split("::")[1:]
            absolute = self.absolute(f, m.start(), segs)
            if absolute is not None:
                f.refs.append((f.line_of(m.start()), absolute, "::".join(segs)))

    def resolve(self, segs, hops=0):
        """The file that defines what the absolute path `segs` names."""
        mod, i = (), 0
        while i < len(segs) and mod + (segs[i],) in self.modules:
            mod += (segs[i],)
            i += 1
        f = self.modules.get(mod)
        if f is None:
            return None
        if self.through_reexports and i < len(segs) and segs[i] in f.reexports and hops < 16:
            target = f.reexports[segs[i]]
            if target != list(segs):
                found = self.resolve(target + list(segs[i + 1:]), hops + 1)
                if found is not None:
                    return found
        return f

    def edges(self):
        """{file: {file: (line, text)}}: the first place each file names
        each other file."""
        out = {}
        for f in self.files.values():
            mine = out.setdefault(f.path, {})
            for line, absolute, text in f.refs:
                g = self.resolve(absolute)
                if g is None or g is f or g.path in mine:
                    continue
                if g.modpath[:len(f.modpath)] == f.modpath:
                    continue  # a module using its own submodule: it owns it
                mine[g.path] = (line, text)
        return out


def cycles(graph):
    """The strongly connected components of more than one node."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def check_crate(root, src, errors, through_reexports):
    """Checks the crates of `src` (a library, a program or both); returns
    the number of files read."""
    tops = [os.path.join(src, n) for n in ("lib.rs", "main.rs")
            if os.path.isfile(os.path.join(root, src, n))]
    if not tops:
        errors.append(f"{src}: no lib.rs or main.rs")
        return 0
    return sum(check_one(root, top, errors, through_reexports) for top in tops)


def check_one(root, top, errors, through_reexports):
    crate = Crate(root, top, through_reexports)
    src = f"the crate of {top}"
    edges = crate.edges()

    # Files.
    for comp in cycles(edges):
        lines = [f"circle of files in {src}: {', '.join(comp)}"]
        for a in comp:
            for b in sorted(edges[a]):
                if b in comp:
                    line, text = edges[a][b]
                    lines.append(f"    {a}:{line} names {b} ({text})")
        errors.append("\n".join(lines))

    # Top-level modules.
    top = {}
    for a, targets in edges.items():
        ma = crate.files[a].modpath
        for b, witness in targets.items():
            mb = crate.files[b].modpath
            if ma and mb and ma[0] != mb[0]:
                top.setdefault(ma[0], {}).setdefault(mb[0], (a, witness))
    for comp in cycles(top):
        lines = [f"cycle of top-level modules in {src}: {', '.join(comp)}"]
        for a in comp:
            for b in sorted(top.get(a, ())):
                if b in comp:
                    path, (line, text) = top[a][b]
                    lines.append(f"    {a} -> {b}: {path}:{line} ({text})")
        errors.append("\n".join(lines))
    return len(crate.files)


def check_module_style(root, errors):
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
        for d in dirs:
            if d + ".rs" in files:
                rel = os.path.relpath(os.path.join(folder, d), root)
                errors.append(
                    f"two module styles: {rel}.rs beside the folder {rel}/ "
                    f"(the module of a folder is {rel}/mod.rs)"
                )


def words(name):
    """`ConnectFour`, `connect-four`, `connect_four` -> connect, four."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    name = re.sub(r"([A-Z])([A-Z][a-z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", name) if w]


def name_pattern(name):
    """A regex for `name` however it is written (`k-in-a-row`, `k_in_a_row`,
    `KInARow`, `k in a row`), a final `s` optional."""
    ws = words(name)
    parts = [re.escape(w) for w in ws]
    if len(ws[-1]) > 3 and ws[-1].endswith("s"):
        parts[-1] = re.escape(ws[-1][:-1]) + "s?"
    return r"[-_ ]?".join(parts)


def game_names(root, errors):
    """{registry name: [names]} from src/games/*/mod.rs: the folder's name,
    the registry name (`NAME`, `name:`), the type (`impl RegisteredGame
    for T`) and the aliases (`aliases:` in its `GameInfo`)."""
    games = {}
    base = os.path.join(root, GAMES)
    if not os.path.isdir(base):
        errors.append(f"{GAMES}: no such folder")
        return games
    for d in sorted(os.listdir(base)):
        mod = os.path.join(base, d, "mod.rs")
        if not os.path.isdir(os.path.join(base, d)):
            continue  # shared files
        if not os.path.isfile(mod):
            errors.append(f"{GAMES}/{d}: a game folder without mod.rs")
            continue
        with open(mod, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        names = [d]
        registry = re.findall(r"\bNAME\s*:\s*&(?:'static\s+)?str\s*=\s*\"([^\"]+)\"", text)
        if not registry:  # no constant: the name in the game's `GameInfo`
            registry = re.findall(r"\bname\s*:\s*\"([^\"]+)\"", text)[:1]
        types = re.findall(r"\bimpl\s+(?:\w+::)*RegisteredGame\s+for\s+(\w+)", text)
        aliases = []
        for block in re.findall(r"\baliases\s*:\s*&\[(.*?)\]\s*,", text, re.S):
            aliases += re.findall(r"\(\s*\"([^\"]+)\"", block)
        if not registry:
            errors.append(f"{GAMES}/{d}/mod.rs: no registry name found (NAME or name:)")
        if not types:
            errors.append(f"{GAMES}/{d}/mod.rs: no `impl RegisteredGame for` found")
        for n in registry + types + aliases:
            if n not in names:
                names.append(n)
        games[registry[0] if registry else d] = names
    return games


def check_tools(root, errors):
    games = game_names(root, errors)
    if not games:
        return
    each = []  # (label, pattern)
    for label, names in games.items():
        pattern = "|".join(f"(?:{name_pattern(n)})" for n in names)
        each.append((label, re.compile(pattern, re.I)))
    combined = re.compile("|".join(f"(?:{p.pattern})" for _, p in each), re.I)
    for tool in TOOLS:
        base = os.path.join(root, tool)
        for folder, dirs, files in os.walk(base):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in sorted(files):
                full = os.path.join(folder, name)
                try:
                    with open(full, encoding="utf-8") as fh:
                        text = fh.read()
                except (UnicodeDecodeError, OSError):
                    continue
                if not combined.search(text):
                    continue
                rel = os.path.relpath(full, root)
                for no, line in enumerate(text.split("\n"), 1):
                    if not combined.search(line):
                        continue
                    hits = []
                    for label, p in each:
                        found = sorted({m.group(0) for m in p.finditer(line)})
                        if found:
                            hits.append(f"{label} ({', '.join(found)})")
                    errors.append(
                        f"a game named in a command-line tool, which must take its games "
                        f"from the registry: {rel}:{no}: {'; '.join(hits)}: {line.strip()}"
                    )


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "root",
        nargs="?",
        default=here,
        help="the checkout to check (default: the one holding this script)",
    )
    ap.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    ap.add_argument(
        "--through-reexports",
        action="store_true",
        help="stricter: a path naming an item a file re-exports (`pub use`) names the "
        "file that defines the item",
    )
    args = ap.parse_args()
    root = os.path.abspath(args.root)

    errors = []
    counted = 0
    for src in CRATES:
        counted += check_crate(root, src, errors, args.through_reexports)
    check_module_style(root, errors)
    check_tools(root, errors)

    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    if errors:
        print(f"layers: {len(errors)} error(s) in {root}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"layers: {counted} files of {len(CRATES)} crates, no cycle, one module "
              f"style, no game named in the tools")
    return 0


if __name__ == "__main__":
    sys.exit(main())
