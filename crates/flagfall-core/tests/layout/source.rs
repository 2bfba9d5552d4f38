//! Reading the server's source with `syn`: each file's imports of the crate's own
//! modules (with their lines), its functions' lengths and its lines outside tests.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

/// A source file of a crate's `src`: its path under `src` (`evening/task.rs`), and its
/// module path (`["evening", "task"]`; `lib.rs` and `main.rs` are `[]`).
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub rel: String,
    pub module: Vec<String>,
    pub path: PathBuf,
}

impl SourceFile {
    /// Whether the whole file is tests (`tests.rs`, `*_tests.rs`).
    pub fn is_test(&self) -> bool {
        let name = self.rel.rsplit('/').next().unwrap_or(&self.rel);
        name == "tests.rs" || name.ends_with("_tests.rs")
    }
}

/// Every `.rs` file under `src`, sorted.
pub fn files(src: &Path) -> Vec<SourceFile> {
    let mut out = Vec::new();
    walk(src, src, &mut out);
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<SourceFile>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(root, &path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = path
            .strip_prefix(root)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        let mut module: Vec<String> = rel
            .trim_end_matches(".rs")
            .split('/')
            .map(str::to_string)
            .collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        out.push(SourceFile { rel, module, path });
    }
}

/// Parse a file, naming it on failure.
pub fn parse(file: &SourceFile) -> syn::File {
    let text = std::fs::read_to_string(&file.path)
        .unwrap_or_else(|e| panic!("{}: {e}", file.path.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: cannot parse: {e}", file.rel))
}

/// Whether `attrs` hold `#[cfg(test)]`.
pub fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta
                .require_list()
                .is_ok_and(|l| l.tokens.to_string().trim() == "test")
    })
}

/// A path to one of the crate's own modules, as written, made absolute: the module
/// path from the crate's root, with the rest of the path after it.
#[derive(Debug, Clone)]
pub struct Import {
    pub line: usize,
    /// As written (`super::view::Viewer`).
    pub written: String,
    /// From the crate's root (`["evening", "view", "Viewer"]`).
    pub absolute: Vec<String>,
}

/// Every path of `file` (in `use`, in code and in macros' tokens) that starts with
/// `crate`, `super`, `self` or a child module the file declares, outside
/// `#[cfg(test)]` items.
pub fn imports(file: &SourceFile, ast: &syn::File) -> Vec<Import> {
    let mut v = Imports {
        module: file.module.clone(),
        children: vec![children(&ast.items)],
        out: Vec::new(),
    };
    v.visit_file(ast);
    v.out
}

/// The modules `items` declare (`mod x;` or `mod x { .. }`), tests left out.
fn children(items: &[syn::Item]) -> BTreeSet<String> {
    items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Mod(m) if !is_cfg_test(&m.attrs) => Some(m.ident.to_string()),
            _ => None,
        })
        .collect()
}

struct Imports {
    /// The module the visitor is in (a file's, then its inline modules').
    module: Vec<String>,
    /// The child modules declared at each depth.
    children: Vec<BTreeSet<String>>,
    out: Vec<Import>,
}

impl Imports {
    fn add(&mut self, segments: &[String], line: usize) {
        let Some(first) = segments.first() else {
            return;
        };
        let mut absolute: Vec<String> = match first.as_str() {
            "crate" => Vec::new(),
            "self" => self.module.clone(),
            "super" => self.module.clone(),
            s if self.children.last().is_some_and(|c| c.contains(s)) => self.module.clone(),
            _ => return,
        };
        let mut rest = segments;
        if first == "crate" || first == "self" {
            rest = &segments[1..];
        }
        while rest.first().is_some_and(|s| s == "super") {
            absolute.pop();
            rest = &rest[1..];
        }
        absolute.extend(rest.iter().cloned());
        self.out.push(Import {
            line,
            written: segments.join("::"),
            absolute,
        });
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                if n.ident != "self" {
                    full.push(n.ident.to_string());
                }
                self.add(&full, n.ident.span().start().line);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                self.add(&full, r.ident.span().start().line);
            }
            syn::UseTree::Glob(g) => self.add(prefix, g.star_token.span.start().line),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    /// `crate::a::b`, `super::x`, `self::y` in a macro's tokens.
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            if let TokenTree::Group(g) = &trees[i] {
                self.tokens(g.stream());
                i += 1;
                continue;
            }
            let starts = matches!(&trees[i], TokenTree::Ident(id)
                if id == "crate" || id == "super" || id == "self")
                && !matches!(i.checked_sub(1).map(|p| &trees[p]), Some(TokenTree::Punct(p)) if p.as_char() == ':');
            if !starts {
                i += 1;
                continue;
            }
            let line = trees[i].span().start().line;
            let mut segments = vec![trees[i].to_string()];
            let mut j = i + 1;
            while j < trees.len() {
                let colons = matches!((&trees[j], trees.get(j + 1)),
                    (TokenTree::Punct(a), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':');
                match (colons, trees.get(j + 2)) {
                    (true, Some(TokenTree::Ident(id))) => {
                        segments.push(id.to_string());
                        j += 3;
                    }
                    _ => break,
                }
            }
            if segments.len() > 1 {
                self.add(&segments, line);
            }
            i = j;
        }
    }
}

impl<'ast> Visit<'ast> for Imports {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        let attrs = match i {
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(x) => &x.attrs,
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Enum(e) => &e.attrs,
            syn::Item::Trait(t) => &t.attrs,
            _ => return visit::visit_item(self, i),
        };
        if is_cfg_test(attrs) {
            return;
        }
        if let syn::Item::Mod(m) = i
            && let Some((_, items)) = &m.content
        {
            self.module.push(m.ident.to_string());
            self.children.push(children(items));
            for item in items {
                self.visit_item(item);
            }
            self.children.pop();
            self.module.pop();
            return;
        }
        visit::visit_item(self, i);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_cfg_test(&f.attrs) {
            visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut prefix = Vec::new();
        self.use_tree(&mut prefix, &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() && p.segments.len() > 1 {
            let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.add(&segments, p.span().start().line);
        }
        visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
        visit::visit_macro(self, m);
    }
}

/// A function of a file: its name (`Type::method` in an `impl`), its first line and
/// its length in lines (from `fn` to its closing brace).
#[derive(Debug)]
pub struct Function {
    pub name: String,
    pub line: usize,
    pub lines: usize,
}

/// The functions of `ast` outside `#[cfg(test)]` items, and the lines those items take.
pub fn functions(ast: &syn::File) -> (Vec<Function>, usize) {
    let mut v = Functions {
        owner: Vec::new(),
        out: Vec::new(),
        test_lines: 0,
    };
    v.visit_file(ast);
    (v.out, v.test_lines)
}

struct Functions {
    /// The `impl` or `trait` the visitor is in.
    owner: Vec<String>,
    out: Vec<Function>,
    test_lines: usize,
}

impl Functions {
    fn add(&mut self, name: &syn::Ident, sig: &syn::Signature, block: &syn::Block) {
        let line = sig.fn_token.span.start().line;
        let end = block.brace_token.span.close().end().line;
        let name = match self.owner.last() {
            Some(o) => format!("{o}::{name}"),
            None => name.to_string(),
        };
        self.out.push(Function {
            name,
            line,
            lines: end + 1 - line,
        });
    }
}

fn attrs_of(i: &syn::Item) -> &[syn::Attribute] {
    match i {
        syn::Item::Fn(f) => &f.attrs,
        syn::Item::Impl(x) => &x.attrs,
        syn::Item::Mod(m) => &m.attrs,
        syn::Item::Trait(t) => &t.attrs,
        syn::Item::Use(u) => &u.attrs,
        syn::Item::Const(c) => &c.attrs,
        syn::Item::Static(s) => &s.attrs,
        syn::Item::Struct(s) => &s.attrs,
        syn::Item::Enum(e) => &e.attrs,
        _ => &[],
    }
}

impl<'ast> Visit<'ast> for Functions {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        if is_cfg_test(attrs_of(i)) {
            let span = i.span();
            // A test module's attribute line, its body and its closing brace.
            self.test_lines += span.end().line + 1 - span.start().line;
            return;
        }
        visit::visit_item(self, i);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.add(&f.sig.ident, &f.sig, &f.block);
        visit::visit_item_fn(self, f);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let owner = match &*i.self_ty {
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default(),
            other => quote_free(other),
        };
        self.owner.push(owner);
        visit::visit_item_impl(self, i);
        self.owner.pop();
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        self.owner.push(t.ident.to_string());
        visit::visit_item_trait(self, t);
        self.owner.pop();
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if is_cfg_test(&f.attrs) {
            return;
        }
        self.add(&f.sig.ident, &f.sig, &f.block);
        visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.add(&f.sig.ident, &f.sig, block);
        }
        visit::visit_trait_item_fn(self, f);
    }
}

/// A type's name where it is not a path (`impl Trait for &T`): its first line's text.
fn quote_free(t: &syn::Type) -> String {
    let line = t.span().start().line;
    format!("(type at line {line})")
}
