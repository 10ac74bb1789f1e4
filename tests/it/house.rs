//! The house rules of `src/`, checked on the source itself: the top-level modules
//! import one another without a circle. (Function length is clippy's
//! `too_many_lines`, denied in Cargo.toml with its threshold in clippy.toml.)

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

/// The file's lines before its test module, comments left out.
fn code_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut all = text.lines().peekable();
    while let Some(line) = all.next() {
        if line == "#[cfg(test)]" && all.peek().is_some_and(|next| next.starts_with("mod tests")) {
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
    for module in ["engine", "store", "rank", "puzzle", "table", "pdb", "solve"] {
        assert!(
            !graph
                .get(module)
                .is_some_and(|uses| uses.contains("puzzles")),
            "{module} imports puzzles"
        );
    }
}
