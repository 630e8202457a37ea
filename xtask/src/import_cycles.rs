//! `cargo xtask import-cycles [SRC_DIR…]`: fails when files of a crate import each other in a circle.
//! Each `use crate::…`, `super::…`, `self::…` and `child::…` path (grouped ones too) and each such path
//! written inline in the code is resolved to the file that holds the module it names; the circles are the
//! strongly connected components of that graph (Tarjan). Checks `app/src` when no directory is given.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// Runs the check on each source directory (relative to the workspace root) and prints every circle.
pub fn run(args: &[String]) -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().context("the xtask has no parent directory")?;
    let dirs: Vec<PathBuf> =
        if args.is_empty() { vec![root.join("app/src")] } else { args.iter().map(|dir| root.join(dir)).collect() };
    let mut total = 0;
    for dir in &dirs {
        let cycles = find_cycles(dir)?;
        for (index, cycle) in cycles.iter().enumerate() {
            println!("import circle {} in {} ({} files):", index + 1, dir.display(), cycle.len());
            for file in cycle {
                println!("  {file}");
            }
        }
        total += cycles.len();
    }
    if total > 0 {
        bail!("{total} import circle(s) between files");
    }
    println!(
        "import-cycles: no import circle in {}",
        dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
    );
    Ok(())
}

/// The circles between the crate's files under `src`, each as the files' paths relative to `src`.
fn find_cycles(src: &Path) -> Result<Vec<Vec<String>>> {
    let mut files = Vec::new();
    collect_rs_files(src, &mut files)?;
    let modules: BTreeMap<Vec<String>, String> =
        files.iter().filter_map(|file| module_path(src, file).map(|module| (module, relative(src, file)))).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some(module) = module_path(src, file) else { continue };
        let name = relative(src, file);
        let text = fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
        let edges = graph.entry(name.clone()).or_default();
        for path in referenced_paths(&strip_comments_and_literals(&text), &module) {
            if let Some(target) = resolve(&modules, &path) {
                if *target != name {
                    edges.insert(target.clone());
                }
            }
        }
    }
    Ok(strongly_connected(&graph).into_iter().filter(|component| component.len() > 1).collect())
}

fn collect_rs_files(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .with_context(|| format!("cannot read {}", dir.display()))?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_rs_files(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    Ok(())
}

fn relative(src: &Path, file: &Path) -> String {
    file.strip_prefix(src).unwrap_or(file).display().to_string()
}

/// The module a file holds: `lib.rs` and `main.rs` the root, `a/mod.rs` and `a.rs` both `a`.
fn module_path(src: &Path, file: &Path) -> Option<Vec<String>> {
    let mut parts: Vec<String> =
        file.strip_prefix(src).ok()?.iter().map(|part| part.to_string_lossy().into_owned()).collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if parts.is_empty() && (stem == "lib" || stem == "main") || stem == "mod" {
        return Some(parts);
    }
    parts.push(stem.to_string());
    Some(parts)
}

/// The file holding the longest leading part of `path` that is a module of the crate.
fn resolve<'a>(modules: &'a BTreeMap<Vec<String>, String>, path: &[String]) -> Option<&'a String> {
    (0..=path.len()).rev().find_map(|len| modules.get(&path[..len]))
}

/// The text with comments, string and char literals blanked out (newlines kept), so that only code is read.
fn strip_comments_and_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if c == 'r' && matches!(next, Some('"') | Some('#')) && !previous_is_ident(&chars, i) {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            while j < chars.len() {
                if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                if chars[j] == '\n' {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if chars.get(i) == Some(&'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{…}'); a lifetime ('a) is left as it is.
            let end = if next == Some('\\') {
                (i + 2..chars.len().min(i + 12)).find(|&j| chars[j] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.push_str("' '");
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn previous_is_ident(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
}

fn tokenize(code: &str) -> Vec<Token> {
    let chars: Vec<char> = code.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Ident(chars[start..i].iter().collect()));
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push(Token::PathSep);
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            tokens.push(Token::Punct(c));
            i += 1;
        }
    }
    tokens
}

/// Every crate-relative path the code names, made absolute: from `use` items (their trees expanded)
/// and from paths written inline. `module` is the file's own module; inline `mod name { … }` blocks
/// (tests) are followed, so their `super::` is the file.
fn referenced_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let tokens = tokenize(code);
    let mut paths = Vec::new();
    // The module each open brace belongs to: `Some(name)` for an inline `mod name {`.
    let mut scopes: Vec<Option<String>> = Vec::new();
    let current = |scopes: &[Option<String>]| -> Vec<String> {
        module.iter().cloned().chain(scopes.iter().flatten().cloned()).collect()
    };
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Ident(word) if word == "mod" => {
                if let (Some(Token::Ident(name)), Some(Token::Punct('{'))) = (tokens.get(i + 1), tokens.get(i + 2)) {
                    scopes.push(Some(name.clone()));
                    i += 3;
                    continue;
                }
            }
            Token::Ident(word) if word == "use" => {
                let end =
                    tokens[i + 1..].iter().position(|t| *t == Token::Punct(';')).map_or(tokens.len(), |p| i + 1 + p);
                let mut flat = Vec::new();
                expand_use_tree(&tokens[i + 1..end], Vec::new(), &mut flat);
                let here = current(&scopes);
                paths.extend(flat.into_iter().filter_map(|path| absolute(&path, &here)));
                i = end + 1;
                continue;
            }
            Token::Ident(word)
                if tokens.get(i + 1) == Some(&Token::PathSep) && !(i > 0 && tokens[i - 1] == Token::PathSep) =>
            {
                let mut path = vec![word.clone()];
                let mut j = i + 1;
                while tokens.get(j) == Some(&Token::PathSep) {
                    match tokens.get(j + 1) {
                        Some(Token::Ident(segment)) => path.push(segment.clone()),
                        _ => break,
                    }
                    j += 2;
                }
                if let Some(path) = absolute(&path, &current(&scopes)) {
                    paths.push(path);
                }
                i = j;
                continue;
            }
            Token::Punct('{') => scopes.push(None),
            Token::Punct('}') => {
                scopes.pop();
            }
            _ => {}
        }
        i += 1;
    }
    paths
}

/// Flattens a use tree (`a::{b, c::{d, e}}`, `a::*`, `a as b`) into its paths.
fn expand_use_tree(tokens: &[Token], prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Ident(word) if word == "as" => break,
            Token::Ident(word) => path.push(word.clone()),
            Token::PathSep | Token::Punct('*') => {}
            Token::Punct('{') => {
                let mut depth = 0;
                let mut start = i + 1;
                for (j, token) in tokens.iter().enumerate().skip(i) {
                    match token {
                        Token::Punct('{') => depth += 1,
                        Token::Punct('}') => {
                            depth -= 1;
                            if depth == 0 {
                                expand_use_tree(&tokens[start..j], path.clone(), out);
                                break;
                            }
                        }
                        Token::Punct(',') if depth == 1 => {
                            expand_use_tree(&tokens[start..j], path.clone(), out);
                            start = j + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            _ => break,
        }
        i += 1;
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// A path made absolute within the crate. One that starts with another name is taken as relative
/// (`child::item`, as a `mod.rs` re-exports its children): where no module of that name is here, it
/// resolves to the file itself, which is no edge (another crate, a type's `Self::`, an enum's variant).
fn absolute(path: &[String], here: &[String]) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => here.to_vec(),
        "super" => here[..here.len().checked_sub(1)?].to_vec(),
        _ => return Some(here.iter().chain(path).cloned().collect()),
    };
    let mut rest = rest;
    while let Some((segment, tail)) = rest.split_first() {
        if segment != "super" {
            break;
        }
        base.pop();
        rest = tail;
    }
    base.extend(rest.iter().filter(|segment| *segment != "self").cloned());
    Some(base)
}

/// Tarjan's strongly connected components, each sorted, in the order of their first file.
fn strongly_connected(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        components: Vec<Vec<String>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a str) {
        let next = state.index.len();
        state.index.insert(node, next);
        state.low.insert(node, next);
        state.stack.push(node);
        state.on_stack.insert(node);
        for target in state.graph.get(node).into_iter().flatten() {
            let target = target.as_str();
            if !state.index.contains_key(target) {
                visit(state, target);
                let low = state.low[node].min(state.low[target]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(target) {
                let low = state.low[node].min(state.index[target]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(member) = state.stack.pop() {
                state.on_stack.remove(member);
                component.push(member.to_string());
                if member == node {
                    break;
                }
            }
            component.sort();
            state.components.push(component);
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.components.sort();
    state.components
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(code: &str, module: &[&str]) -> Vec<String> {
        let module: Vec<String> = module.iter().map(|s| s.to_string()).collect();
        referenced_paths(&strip_comments_and_literals(code), &module).into_iter().map(|p| p.join("::")).collect()
    }

    #[test]
    fn grouped_and_relative_uses_are_resolved() {
        let code = "use crate::{a, b::{c, d as e}, f::*};\nuse super::g;\nuse self::h::i;\npub use child::*;";
        assert_eq!(paths(code, &["x", "y"]), ["a", "b::c", "b::d", "f", "x::g", "x::y::h::i", "x::y::child"]);
    }

    #[test]
    fn inline_paths_count_and_comments_and_strings_do_not() {
        let code =
            "// use crate::commented;\nfn f() { let s = \"crate::quoted\"; crate::inline::call(); super::up(); }";
        assert_eq!(paths(code, &["x", "y"]), ["inline::call", "x::up"]);
        // Only a path's first name starts one: `a::b::c` is one path, not three.
        assert_eq!(paths("fn f() { a::b::c(); }", &[]), ["a::b::c"]);
    }

    #[test]
    fn super_in_an_inline_test_module_is_the_file() {
        let code = "fn a() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\nfn b() { super::c(); }";
        assert_eq!(paths(code, &["x", "y"]), ["x::y", "x::c"]);
    }

    #[test]
    fn circles_are_the_components_with_more_than_one_file() {
        let graph: BTreeMap<String, BTreeSet<String>> = [
            ("a.rs", vec!["b.rs"]),
            ("b.rs", vec!["c.rs"]),
            ("c.rs", vec!["a.rs", "d.rs"]),
            ("d.rs", vec![]),
            ("e.rs", vec!["d.rs"]),
        ]
        .into_iter()
        .map(|(file, targets)| (file.to_string(), targets.into_iter().map(String::from).collect()))
        .collect();
        let circles: Vec<_> = strongly_connected(&graph).into_iter().filter(|c| c.len() > 1).collect();
        assert_eq!(circles, [vec!["a.rs", "b.rs", "c.rs"]]);
    }

    #[test]
    fn a_path_resolves_to_the_longest_module_prefix() {
        let modules: BTreeMap<Vec<String>, String> = [(vec![], "lib.rs"), (vec!["ui".to_string()], "ui/mod.rs")]
            .into_iter()
            .map(|(module, file)| (module, file.to_string()))
            .collect();
        let path = |p: &str| p.split("::").map(String::from).collect::<Vec<_>>();
        assert_eq!(resolve(&modules, &path("ui::icon::Icon")).map(String::as_str), Some("ui/mod.rs"));
        assert_eq!(resolve(&modules, &path("Thing")).map(String::as_str), Some("lib.rs"));
    }
}
