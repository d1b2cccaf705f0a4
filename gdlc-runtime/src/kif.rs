//! Canonical KIF text for ground terms (moves, fluents, percepts).
//!
//! Reasoners print terms in one canonical form and compare user input in that form:
//! symbols lowercased (KIF is case-insensitive), one space between the elements of a
//! compound term, no space inside the parentheses, and `(p)` written as `p`.

/// A ground-term syntax error, with the byte offset where it was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} at offset {offset} in `{text}`")]
pub struct KifError {
    /// What is wrong.
    pub message: String,
    /// Byte offset into the text.
    pub offset: usize,
    /// The text that was read.
    pub text: String,
}

/// Whether `c` may appear in a KIF symbol.
pub fn is_symbol_char(c: char) -> bool {
    !(c.is_whitespace() || matches!(c, '(' | ')' | ';' | '?' | '"'))
}

/// The canonical form of the ground term in `text` (surrounding whitespace allowed).
pub fn canonical(text: &str) -> Result<String, KifError> {
    let mut reader = Reader { text, pos: 0 };
    let mut out = String::with_capacity(text.len());
    reader.skip_space();
    reader.term(&mut out)?;
    reader.skip_space();
    if reader.pos != text.len() {
        return Err(reader.error("unexpected text after the term"));
    }
    Ok(out)
}

struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

impl Reader<'_> {
    fn error(&self, message: &str) -> KifError {
        KifError { message: message.to_owned(), offset: self.pos, text: self.text.to_owned() }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn skip_space(&mut self) {
        while let Some(c) = self.peek() {
            if !c.is_whitespace() {
                break;
            }
            self.pos += c.len_utf8();
        }
    }

    fn symbol(&mut self, out: &mut String) -> Result<(), KifError> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if !is_symbol_char(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        if start == self.pos {
            return Err(match self.peek() {
                Some('?') => self.error("variables are not allowed in a ground term"),
                Some(_) => self.error("expected a symbol"),
                None => self.error("unexpected end of text"),
            });
        }
        out.push_str(&self.text[start..self.pos].to_ascii_lowercase());
        Ok(())
    }

    fn term(&mut self, out: &mut String) -> Result<(), KifError> {
        if self.peek() != Some('(') {
            return self.symbol(out);
        }
        self.pos += 1;
        self.skip_space();
        let open_at = out.len();
        out.push('(');
        self.symbol(out)?;
        let mut args = 0;
        loop {
            self.skip_space();
            match self.peek() {
                Some(')') => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.error("missing `)`")),
                Some(_) => {
                    out.push(' ');
                    self.term(out)?;
                    args += 1;
                }
            }
        }
        if args == 0 {
            // `(p)` is the constant `p`.
            out.remove(open_at);
        } else {
            out.push(')');
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms() {
        assert_eq!(canonical("  (Mark 1   2 )").as_deref(), Ok("(mark 1 2)"));
        assert_eq!(canonical("noop").as_deref(), Ok("noop"));
        assert_eq!(canonical("(NOOP)").as_deref(), Ok("noop"));
        assert_eq!(canonical("(f (g A) b)").as_deref(), Ok("(f (g a) b)"));
        assert_eq!(canonical("0100").as_deref(), Ok("0100"));
    }

    #[test]
    fn rejects_bad_text() {
        for bad in ["", "(", "(f", "()", "(f ?x)", "a b", ")", "(f))"] {
            assert!(canonical(bad).is_err(), "{bad:?} accepted");
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,40}") {
            let _ = canonical(&text);
        }

        #[test]
        fn canonical_is_idempotent(text in "[a-z() ?]{0,30}") {
            if let Ok(once) = canonical(&text) {
                proptest::prop_assert_eq!(canonical(&once), Ok(once.clone()));
            }
        }
    }
}
