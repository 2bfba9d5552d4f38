//! The server's layers: ARCHITECTURE.md's table of the modules of
//! `crates/flagfall-server/src`, bottom to top, and the imports that go against it.

use std::collections::{BTreeMap, BTreeSet};

use super::source::{self, SourceFile};

/// The first line of the table (its header starts so).
pub const HEADER: &str = "| layer | modules of `crates/flagfall-server/src`";

/// ARCHITECTURE.md's layer table: each row's label and modules (`evening`,
/// `evening/task`), bottom first; the root's modules apart.
#[derive(Debug)]
pub struct Table {
    pub rows: Vec<(String, Vec<Vec<String>>)>,
    pub root: Vec<Vec<String>>,
}

/// Read the table from ARCHITECTURE.md's text.
pub fn table(md: &str) -> Result<Table, String> {
    let mut lines = md.lines().skip_while(|l| !l.starts_with(HEADER));
    if lines.next().is_none() {
        return Err(format!(
            "ARCHITECTURE.md has no layer table (a header starting `{HEADER}`)"
        ));
    }
    let mut table = Table {
        rows: Vec::new(),
        root: Vec::new(),
    };
    for line in lines.skip(1).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let [label, modules, ..] = cells[..] else {
            return Err(format!("layer table: a row without modules: {line}"));
        };
        let modules: Vec<Vec<String>> = modules
            .split('`')
            .skip(1)
            .step_by(2)
            .map(|m| m.split('/').map(str::to_string).collect())
            .collect();
        if modules.is_empty() {
            return Err(format!("layer table: row `{label}` names no module"));
        }
        if label == "root" {
            table.root = modules;
        } else {
            table.rows.push((label.to_string(), modules));
        }
    }
    if table.rows.is_empty() {
        return Err("ARCHITECTURE.md's layer table has no rows".into());
    }
    Ok(table)
}

/// Where a file sits: a layer's index (bottom 0) and label, or the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Root,
    Layer(usize, String),
}

impl Place {
    pub fn describe(&self) -> String {
        match self {
            Place::Root => "the root".into(),
            Place::Layer(_, label) => format!("layer {label}"),
        }
    }
}

impl Table {
    /// The place of a file of module path `module`: the row of the longest module
    /// of the table that is, or contains, it.
    pub fn place(&self, module: &[String]) -> Option<Place> {
        if self.root.iter().any(|m| m.len() == 1 && m[0] == "lib") && module.is_empty() {
            return Some(Place::Root);
        }
        let mut best: Option<(usize, Place)> = None;
        for (i, (label, modules)) in self.rows.iter().enumerate() {
            for m in modules {
                if module.starts_with(m) && best.as_ref().is_none_or(|(len, _)| m.len() > *len) {
                    best = Some((m.len(), Place::Layer(i, label.clone())));
                }
            }
        }
        best.map(|(_, p)| p)
    }

    /// Every module the table names, as written (`evening/task`).
    pub fn named(&self) -> Vec<String> {
        self.rows
            .iter()
            .flat_map(|(_, ms)| ms.iter())
            .chain(self.root.iter())
            .map(|m| m.join("/"))
            .collect()
    }
}

/// An import of a file of the crate: which file, which line, as written.
#[derive(Debug, Clone)]
pub struct Edge {
    pub to: String,
    pub line: usize,
    pub written: String,
}

/// The imports between the crate's files (tests left out): file → its imports of
/// other files (lib.rs's items, the root, are not files here).
pub fn edges(files: &[SourceFile]) -> BTreeMap<String, Vec<Edge>> {
    let by_module: BTreeMap<Vec<String>, &SourceFile> = files
        .iter()
        .filter(|f| !f.is_test())
        .map(|f| (f.module.clone(), f))
        .collect();
    let mut out: BTreeMap<String, Vec<Edge>> = BTreeMap::new();
    for f in files
        .iter()
        .filter(|f| !f.is_test() && !f.module.is_empty())
    {
        let ast = source::parse(f);
        for import in source::imports(f, &ast) {
            // The longest module of the crate the path starts with.
            let target = (1..=import.absolute.len())
                .rev()
                .find_map(|n| by_module.get(&import.absolute[..n]));
            let Some(target) = target else { continue };
            if target.rel == f.rel {
                continue;
            }
            out.entry(f.rel.clone()).or_default().push(Edge {
                to: target.rel.clone(),
                line: import.line,
                written: import.written,
            });
        }
    }
    out
}

/// The strongly connected components of more than one file in `graph` (Tarjan).
pub fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> T<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if self.on.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    scc.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.sort();
                    self.out.push(scc);
                }
            }
        }
    }
    let mut t = T {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out
}
