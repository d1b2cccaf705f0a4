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

/// Whether `c` separates KIF tokens: the ASCII space, tab, line feed, vertical tab,
/// form feed and carriage return — the same set as gdlc's grammar, so that a symbol
/// reads the same everywhere (other Unicode spaces are symbol characters).
pub fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r')
}

/// Whether `c` may appear in a KIF symbol.
pub fn is_symbol_char(c: char) -> bool {
    !(is_space(c) || matches!(c, '(' | ')' | ';' | '?' | '"'))
}

/// The goal value a symbol denotes: an integer 0..=100 written canonically (no sign,
/// no leading zero), since numbers are symbols and `0100` is not `100`.
pub fn goal_value(symbol: &str) -> Option<u8> {
    let canonical = symbol == "0"
        || (!symbol.starts_with('0')
            && !symbol.is_empty()
            && symbol.bytes().all(|b| b.is_ascii_digit()));
    if !canonical || symbol.len() > 3 {
        return None;
    }
    symbol.parse::<u8>().ok().filter(|&v| v <= 100)
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
        KifError {
            message: message.to_owned(),
            offset: self.pos,
            text: self.text.to_owned(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn skip_space(&mut self) {
        while let Some(c) = self.peek() {
            if !is_space(c) {
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
    fn goal_values_are_canonical_integers() {
        assert_eq!(goal_value("0"), Some(0));
        assert_eq!(goal_value("100"), Some(100));
        assert_eq!(goal_value("50"), Some(50));
        for bad in ["0100", "+50", "101", "-1", "", "1000", "x", "00"] {
            assert_eq!(goal_value(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn unicode_spaces_are_symbol_characters() {
        assert_eq!(canonical("(m a\u{a0}b)").as_deref(), Ok("(m a\u{a0}b)"));
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
