//! The house rules of `src/`, checked on the source itself: the top-level modules
//! import one another without a circle, and so do the source files, inside a module
//! too (a module and its parent may share types both ways); `puzzles/` keeps to rules,
//! ranking and notation; the level builds share the driver's one progress interface,
//! stop type and interrupted error. (Function length is
//! clippy's `too_many_lines`, denied in Cargo.toml with its threshold in clippy.toml.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The file's lines before its first module of tests (`#[cfg(test)]`, or a `cfg` with
/// `test` in it, on a module at the top level), comments left out.
fn code_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut all = text.lines().peekable();
    while let Some(line) = all.next() {
        let test_cfg = line.starts_with("#[cfg(") && line.contains("test");
        if test_cfg && all.peek().is_some_and(|next| next.contains("mod ")) {
            break;
        }
        lines.push(line);
    }
    lines
}

/// The top-level module a file of `src/` belongs to (`None` for the crate root and
/// the binary's files).
fn top_module(src: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src).ok()?;
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.trim_end_matches(".rs");
    (!matches!(name, "lib" | "main" | "cli")).then(|| name.to_string())
}

/// The top-level modules the code of `text` names through `crate::`.
fn imports(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in code_lines(text) {
        if line.trim_start().starts_with("//") {
            continue;
        }
        for (at, _) in line.match_indices("crate::") {
            if line[..at].ends_with('$') {
                continue;
            }
            let name: String = line[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if modules.contains(&name) {
                found.insert(name);
            }
        }
    }
    found
}

#[test]
fn top_level_modules_import_without_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = rust_files(&src);
    let modules: BTreeSet<String> = files.iter().filter_map(|f| top_module(&src, f)).collect();
    assert!(modules.contains("engine") && modules.contains("pdb"));
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some(module) = top_module(&src, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).expect("a source file");
        let mut uses = imports(&text, &modules);
        uses.remove(&module);
        graph.entry(module).or_default().extend(uses);
    }
    // A circle exists iff some module reaches itself.
    for start in graph.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&String> = graph[start].iter().collect();
        while let Some(next) = stack.pop() {
            assert_ne!(
                next, start,
                "{start} imports itself through {seen:?}; the graph: {graph:#?}"
            );
            if seen.insert(next.clone()) {
                stack.extend(graph.get(next).into_iter().flatten());
            }
        }
    }
    // The layers the crate docs describe: jobs on top, the engine below the puzzles.
    assert!(graph["jobs"].contains("analysis"));
    for module in [
        "engine", "store", "rank", "puzzle", "table", "pdb", "search",
    ] {
        assert!(
            !graph
                .get(module)
                .is_some_and(|uses| uses.contains("puzzles")),
            "{module} imports puzzles"
        );
    }
}

/// The module path of a library file (`src/pdb/build.rs`: `pdb::build`; `src/pdb.rs`:
/// `pdb`), `None` for the crate root and the binary's files.
fn module_path(src: &Path, file: &Path) -> Option<Vec<String>> {
    top_module(src, file)?;
    let relative = file.strip_prefix(src).ok()?.with_extension("");
    Some(
        relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect(),
    )
}

/// The paths a use tree or an expression names from `text` on (after `crate::` or
/// `super::`): `a::{b, c::d}` is `[a, b]` and `[a, c, d]`. Parsing stops at the first
/// character that is not part of a path.
fn paths_from(text: &str, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix.to_vec();
    let mut at = 0;
    loop {
        let rest = &text[at..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut used = 1;
            loop {
                let item = &group[used - 1..];
                let skipped = item.len() - item.trim_start().len();
                used += skipped;
                if group[used - 1..].starts_with('}') {
                    return at + used + 1;
                }
                used += paths_from(&group[used - 1..], &path, out);
                let tail = &group[used - 1..];
                let skipped = tail.len() - tail.trim_start().len();
                used += skipped;
                if group[used - 1..].starts_with(',') {
                    used += 1;
                } else if group[used - 1..].starts_with('}') {
                    return at + used + 1;
                } else {
                    return at + used;
                }
            }
        }
        let ident: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if ident.is_empty() {
            out.push(path);
            return at;
        }
        at += ident.len();
        match ident.as_str() {
            "super" => {
                path.pop();
            }
            "self" => {}
            _ => path.push(ident),
        }
        if text[at..].starts_with("::") {
            at += 2;
        } else {
            out.push(path);
            return at;
        }
    }
}

/// The library's modules each file names through `crate::`, `super::` or `self::`.
fn file_imports(src: &Path, files: &[PathBuf]) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let modules: BTreeSet<Vec<String>> = files.iter().filter_map(|f| module_path(src, f)).collect();
    let mut graph = BTreeMap::new();
    for file in files {
        let Some(module) = module_path(src, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).expect("a source file");
        let mut named = Vec::new();
        for line in code_lines(&text) {
            let line = line.split("//").next().unwrap_or_default();
            for (at, word) in line.match_indices(['c', 's']) {
                let _ = word;
                let before = line[..at].chars().last();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                    continue;
                }
                let rest = &line[at..];
                let base: Vec<String> = if let Some(tail) = rest.strip_prefix("crate::") {
                    paths_from(tail, &[], &mut named);
                    continue;
                } else if rest.starts_with("super::") || rest.starts_with("self::") {
                    module.clone()
                } else {
                    continue;
                };
                paths_from(rest, &base, &mut named);
            }
        }
        let mut uses = BTreeSet::new();
        for path in named {
            // The longest prefix that is a module.
            let Some(target) = (1..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|prefix| modules.contains(prefix))
            else {
                continue;
            };
            // A module and its parent share types both ways (a facade and its parts).
            let related = target.starts_with(&module) || module.starts_with(&target);
            if !related {
                uses.insert(target);
            }
        }
        graph.insert(module, uses);
    }
    graph
}

#[test]
fn source_files_import_without_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = file_imports(&src, &rust_files(&src));
    let name = |m: &Vec<String>| m.join("::");
    // The parser sees what the code names.
    let pdb_build = vec!["pdb".to_string(), "build".to_string()];
    assert!(graph[&pdb_build].contains(&vec!["pdb".to_string(), "checkpoint".to_string()]));
    let mut circles = BTreeSet::new();
    for start in graph.keys() {
        // Depth-first from each module: a path back to it is a circle.
        let mut stack: Vec<(Vec<String>, Vec<String>)> = graph[start]
            .iter()
            .map(|next| (next.clone(), vec![name(start)]))
            .collect();
        let mut seen = BTreeSet::new();
        while let Some((next, trail)) = stack.pop() {
            if &next == start {
                // Each circle once, from its least module.
                if trail.iter().all(|m| *m >= name(start)) {
                    circles.insert(format!("{} -> {}", trail.join(" -> "), name(start)));
                }
                continue;
            }
            if seen.insert(next.clone()) {
                for after in graph.get(&next).into_iter().flatten() {
                    let mut longer = trail.clone();
                    longer.push(name(&next));
                    stack.push((after.clone(), longer));
                }
            }
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn puzzles_keep_rules_ranking_and_notation() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = file_imports(&src, &rust_files(&src));
    let mut found = Vec::new();
    for (module, uses) in &graph {
        if module[0] != "puzzles" {
            continue;
        }
        for target in uses {
            if ["table", "pdb", "search", "report"].contains(&target[0].as_str()) {
                found.push(format!("{} -> {}", module.join("::"), target.join("::")));
            }
        }
    }
    assert!(found.is_empty(), "puzzles/ imports:\n{}", found.join("\n"));
}

/// One level-loop driver (`src/driver.rs`) owns stopping, progress and checkpoints:
/// no other trait reports levels, no stop is a bare `AtomicBool`, and every
/// "interrupted" error variant wraps the driver's one `Interrupted`.
#[test]
fn level_builds_share_one_progress_interface_stop_type_and_interrupted_error() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for file in rust_files(&src) {
        let name = file
            .strip_prefix(&src)
            .expect("under src")
            .display()
            .to_string();
        let text = std::fs::read_to_string(&file).expect("a readable source file");
        let lines = code_lines(&text);
        let mut in_trait = false;
        for (k, line) in lines.iter().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if code.starts_with("pub trait ") || code.starts_with("trait ") {
                in_trait = true;
            } else if *line == "}" {
                in_trait = false;
            }
            let reports_levels = ["fn level(", "fn level_finished(", "fn resumed("]
                .iter()
                .any(|f| code.starts_with(f));
            if in_trait && reports_levels && name != "driver.rs" {
                found.push(format!("{name}:{}: a progress trait of its own", k + 1));
            }
            if code.contains("AtomicBool") && code.contains("stop") {
                found.push(format!(
                    "{name}:{}: a stop flag that is not a StopToken",
                    k + 1
                ));
            }
            if code.starts_with("Stopped,") && name != "driver.rs" {
                found.push(format!("{name}:{}: a `Stopped` error variant", k + 1));
            }
            let wrapped =
                code.starts_with("Interrupted(#[from] ") && code.ends_with("Interrupted),");
            if code.starts_with("Interrupted") && !wrapped {
                let wraps = code.starts_with("Interrupted {")
                    && lines[k..]
                        .iter()
                        .take(8)
                        .any(|l| l.contains(": Interrupted,"));
                let the_struct = name == "driver.rs";
                if !wraps && !the_struct {
                    found.push(format!("{name}:{}: an interrupted error of its own", k + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The text of the block that opens on the first line starting with `opening`
/// (leading spaces aside), up to its matching brace.
fn block<'t>(text: &'t str, opening: &str) -> Option<&'t str> {
    let start = text
        .match_indices(opening)
        .map(|(at, _)| at)
        .find(|&at| text[..at].ends_with('\n'))?;
    let open = start + text[start..].find('{')?;
    let mut depth = 0;
    for (at, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..open + at + 1]);
                }
            }
            _ => {}
        }
    }
    None
}

/// The names of the functions a trait or impl block declares at its own level.
fn method_names(block: &str) -> BTreeSet<String> {
    block
        .lines()
        .map(str::trim_start)
        .filter(|line| !line.starts_with("//"))
        .filter_map(|line| line.strip_prefix("fn "))
        .map(|rest| rest.split(['<', '(']).next().unwrap_or("").to_string())
        .collect()
}

/// Every wrapper of a trait (an `impl<X: Trait> Trait for ...` in `src/`, generic over
/// another implementation it hands the calls to) forwards every method of
/// the trait, so that a method added to the trait with a default cannot be dropped by
/// a wrapper that does not know of it: a default answers for the wrapped puzzle, and
/// a wrapper of a class index that falls back on it answers wrongly.
#[test]
fn wrappers_forward_every_method_of_their_trait() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let texts: Vec<(PathBuf, String)> = rust_files(&src)
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).expect("readable source");
            (f, text)
        })
        .collect();
    // Each trait, and the bound that makes an impl of it a wrapper (a type parameter
    // that implements the trait or a subtrait).
    let traits = [
        ("puzzle.rs", "pub trait Puzzle", "Puzzle", ": Puzzle"),
        ("puzzle.rs", "pub trait Notation", "Notation", ": Puzzle"),
        ("engine.rs", "pub trait Executor", "Executor", ": Executor"),
    ];
    let mut wrappers = 0;
    for (file, opening, name, bound) in traits {
        let (_, text) = texts
            .iter()
            .find(|(f, _)| f.strip_prefix(&src).is_ok_and(|r| r == Path::new(file)))
            .expect("the trait's file");
        let declared = method_names(block(text, opening).expect("the trait"));
        assert!(declared.len() > 3, "{name}: {declared:?}");
        for (path, text) in &texts {
            let wrapper = |l: &&str| {
                let parameters = &l[..l.find('>').unwrap_or(0)];
                l.starts_with("impl<")
                    && l.contains(&format!(" {name} for "))
                    && parameters.contains(bound)
            };
            for line in text.lines().filter(wrapper) {
                let opening = line.trim_end_matches(" {");
                let implemented = method_names(block(text, opening).expect("the impl block"));
                let missing: Vec<&String> = declared.difference(&implemented).collect();
                assert!(
                    missing.is_empty(),
                    "{}: `{opening}` does not forward {missing:?}",
                    path.display()
                );
                wrappers += 1;
            }
        }
    }
    // Rooted (Puzzle and Notation) and the lent executor at least.
    assert!(wrappers >= 3, "found {wrappers} wrappers");
}
