//! Config errors that point at the offending key: path, line, column, what is allowed.

use std::fmt;
use std::ops::Range;

/// One problem in a config file, located in its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Where the TOML came from (a path, or `<embedded default>`).
    pub origin: String,
    /// Dotted key path, e.g. `hs_chain.stages[2]`; empty for document-level syntax errors.
    pub key: String,
    /// 1-based line and column of the offending key or value.
    pub line: usize,
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// What would be accepted, when that can be said.
    pub allowed: Option<String>,
    /// The source line, for the caret display.
    pub source_line: String,
}

impl ConfigError {
    pub(crate) fn new(
        origin: &str,
        src: &str,
        key: String,
        span: Option<Range<usize>>,
        message: String,
        allowed: Option<String>,
    ) -> Self {
        // Without a span the problem is the whole document's: report 1:1 and no caret,
        // which would point at whatever happens to be on line 1.
        let offset = span.as_ref().map_or(0, |s| s.start).min(src.len());
        let (line, column) = line_col(src, offset);
        let source_line = match span {
            Some(_) => src.lines().nth(line - 1).unwrap_or("").to_string(),
            None => String::new(),
        };
        Self {
            origin: origin.to_string(),
            key,
            line,
            column,
            message,
            allowed,
            source_line,
        }
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let before = &src[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let column = src[line_start..offset].chars().count() + 1;
    (line, column)
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.origin, self.line, self.column)?;
        if !self.key.is_empty() {
            write!(f, "key `{}`: ", self.key)?;
        }
        write!(f, "{}", self.message)?;
        if let Some(allowed) = &self.allowed {
            write!(f, "\n  allowed: {allowed}")?;
        }
        if !self.source_line.is_empty() {
            let pad = " ".repeat(self.column.saturating_sub(1));
            write!(f, "\n  | {}\n  | {pad}^", self.source_line)?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// A semantic problem found after parsing, before it is located in the source.
#[derive(Debug, Clone)]
pub struct Invalid {
    /// Path segments: table keys and array indices.
    pub path: Vec<Seg>,
    pub message: String,
    pub allowed: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

impl Invalid {
    pub fn at(path: &[Seg], message: impl Into<String>, allowed: impl Into<String>) -> Self {
        let allowed = allowed.into();
        Self {
            path: path.to_vec(),
            message: message.into(),
            allowed: (!allowed.is_empty()).then_some(allowed),
        }
    }
}

/// Builds a path from `"a.b"` keys and indices: `path(&["hs_chain", "stages"]).idx(2)`.
pub fn path(keys: &[&str]) -> Vec<Seg> {
    keys.iter().map(|k| Seg::Key((*k).to_string())).collect()
}

pub fn render_path(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}
