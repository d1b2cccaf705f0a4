//! [`Meta`]: what the generated code tells the runtime of its game besides the rules —
//! symbols, roles, the argument paths of the keyword relations' columns and the layouts
//! of fluents and moves — and, by it, tuples written as canonical KIF text and read back.

use super::Sym;
use super::layout::Layout;

/// What the generated code needs to know of the game besides its rules.
#[derive(Debug)]
pub struct Meta {
    /// The KIF file the crate was generated from, as given to the compiler.
    pub source: &'static str,
    /// Symbol names and arities by id.
    pub symbols: &'static [(&'static str, u32)],
    /// The role symbols, in role order.
    pub roles: &'static [Sym],
    /// The role names.
    pub role_names: &'static [&'static str],
    /// The argument paths of `true`'s columns (see `gdlc::ir`).
    pub true_paths: &'static [&'static [u32]],
    /// The state layout: one bit per possible fluent.
    pub fluents: Layout,
    /// The argument paths of `legal`'s (and `does`') columns.
    pub legal_paths: &'static [&'static [u32]],
    /// The numbering of the moves (`legal`'s second argument).
    pub moves: Layout,
    /// The argument paths of `goal`'s columns.
    pub goal_paths: &'static [&'static [u32]],
    /// The argument paths of `sees`' columns.
    pub sees_paths: &'static [&'static [u32]],
}

impl Meta {
    /// The canonical KIF text of argument `arg` of a tuple whose columns have `paths`.
    pub fn text(&self, paths: &[&[u32]], tuple: &[Sym], arg: u32) -> String {
        let mut out = String::new();
        self.write_text(paths, tuple, &[arg], &mut out);
        out
    }

    fn write_text(&self, paths: &[&[u32]], tuple: &[Sym], path: &[u32], out: &mut String) {
        let Ok(column) = paths.binary_search_by(|p| (*p).cmp(path)) else {
            out.push('?');
            return;
        };
        let symbol = tuple[column];
        let (name, arity) = self.symbols[symbol as usize];
        if arity == 0 {
            out.push_str(name);
            return;
        }
        out.push('(');
        out.push_str(name);
        let mut child = path.to_vec();
        child.extend([symbol, 0]);
        for j in 0..arity {
            *child.last_mut().expect("child path has a last step") = j;
            out.push(' ');
            self.write_text(paths, tuple, &child, out);
        }
        out.push(')');
    }

    /// The tuple (columns `paths`) whose argument `arg` is the canonical KIF term
    /// `text` and whose other columns are nil, if the term fits the shape.
    pub fn encode(&self, paths: &[&[u32]], arg: u32, text: &str) -> Option<Vec<Sym>> {
        let term = parse_canonical(text)?;
        let mut out = vec![0; paths.len()];
        self.encode_into(paths, &[arg], &term, &mut out)?;
        Some(out)
    }

    fn encode_into(
        &self,
        paths: &[&[u32]],
        path: &[u32],
        term: &Tree<'_>,
        out: &mut [Sym],
    ) -> Option<()> {
        let column = paths.binary_search_by(|p| (*p).cmp(path)).ok()?;
        let symbol = self
            .symbols
            .iter()
            .position(|&(name, arity)| name == term.name && arity as usize == term.args.len())?
            as Sym;
        if symbol == 0 {
            return None;
        }
        out[column] = symbol;
        let mut child = path.to_vec();
        child.extend([symbol, 0]);
        for (j, arg) in term.args.iter().enumerate() {
            *child.last_mut().expect("child path has a last step") = j as u32;
            self.encode_into(paths, &child, arg, out)?;
        }
        Some(())
    }
}

/// A term parsed from canonical KIF text.
struct Tree<'a> {
    name: &'a str,
    args: Vec<Tree<'a>>,
}

fn parse_canonical(text: &str) -> Option<Tree<'_>> {
    fn term<'a>(text: &'a str, pos: &mut usize) -> Option<Tree<'a>> {
        let rest = &text[*pos..];
        if let Some(inner) = rest.strip_prefix('(') {
            let end = inner.find([' ', ')'])?;
            let name = &inner[..end];
            *pos += 1 + end;
            let mut args = Vec::new();
            while text[*pos..].starts_with(' ') {
                *pos += 1;
                args.push(term(text, pos)?);
            }
            if !text[*pos..].starts_with(')') {
                return None;
            }
            *pos += 1;
            Some(Tree { name, args })
        } else {
            let end = rest.find([' ', ')']).unwrap_or(rest.len());
            *pos += end;
            Some(Tree {
                name: &rest[..end],
                args: Vec::new(),
            })
        }
    }
    let mut pos = 0;
    let tree = term(text, &mut pos)?;
    (pos == text.len()).then_some(tree)
}

/// Reports a fluent outside the state layout, which the compiler's analysis rules out.
#[cold]
pub fn outside_layout(meta: &Meta, tuple: &[Sym]) -> ! {
    panic!(
        "gdlc internal error: fluent {} outside the state layout",
        meta.text(meta.true_paths, tuple, 0)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_text_round_trips() {
        let tree = parse_canonical("(f (g a) b)").expect("parses");
        assert_eq!(tree.name, "f");
        assert_eq!(tree.args.len(), 2);
        assert_eq!(tree.args[0].args[0].name, "a");
        assert!(parse_canonical("(f a").is_none());
    }
}
