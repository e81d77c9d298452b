//! The one post-render pass over generated Verilog: runs of declarations (ports,
//! parameters, nets, registers) get their names, `=` and trailing comments in columns, so
//! templates write declarations with single spaces and no hand padding.
//!
//! A run is consecutive declaration lines at one indentation; a comment-only line at the
//! same indentation stays in the run, anything else (a blank line, a statement, a line the
//! parser does not recognise) ends it. Lines that are not declarations are left as they are,
//! and the pass is idempotent.

use std::collections::BTreeMap;

/// Keywords that may open a declaration, in any order the grammar allows.
const HEAD_WORDS: &[&str] = &[
    "input",
    "output",
    "inout",
    "wire",
    "reg",
    "signed",
    "localparam",
    "parameter",
    "integer",
    "genvar",
];

const DIRECTIONS: &[&str] = &["input", "output", "inout"];

/// One declaration, split into the columns it is aligned in.
#[derive(Debug, PartialEq)]
struct Decl<'a> {
    indent: &'a str,
    head: Vec<&'a str>,
    /// Packed range, as written (`[Width-1:0]`), or empty.
    range: &'a str,
    /// The name, with an attribute comment such as `/* verilator public_flat_rd */`.
    name: String,
    /// Unpacked dimensions (`[0:Lines-1]`), or empty.
    dims: &'a str,
    /// The value after `=`, or empty.
    value: &'a str,
    /// `;`, `,` or nothing (the last entry of a port or parameter list).
    term: &'a str,
    /// A trailing `//` comment, with its slashes, or empty.
    comment: &'a str,
}

/// Aligns every run of declarations in `text`.
pub fn declarations(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let Some(first) = parse(lines[i], lines.get(i + 1).copied()) else {
            out.push(lines[i].to_string());
            i += 1;
            continue;
        };
        // Collect the run: declarations and comment-only lines at the same indentation.
        let indent = first.indent;
        let mut run: Vec<Result<Decl, &str>> = vec![Ok(first)];
        let mut j = i + 1;
        while j < lines.len() {
            let line = lines[j];
            if let Some(d) = parse(line, lines.get(j + 1).copied()).filter(|d| d.indent == indent) {
                run.push(Ok(d));
            } else if is_comment_at(line, indent) {
                run.push(Err(line));
            } else {
                break;
            }
            j += 1;
        }
        // Comment lines after the last declaration belong to what follows.
        while matches!(run.last(), Some(Err(_))) {
            run.pop();
            j -= 1;
        }
        out.extend(render(&run));
        i = j;
    }
    out.join("\n")
}

/// `text` with every run of spaces inside a line made one space: what a test compares
/// when it should not depend on alignment.
pub fn squeeze(text: &str) -> String {
    text.split('\n')
        .map(|line| {
            let body = line.trim_start();
            let words: Vec<&str> = body.split(' ').filter(|w| !w.is_empty()).collect();
            format!("{}{}", &line[..line.len() - body.len()], words.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `localparam`s a rendered module declares: name -> value (integers and sized
/// literals), for the stage list and the tests that compare them with the contract's tables;
/// a localparam whose value is an expression is left out.
pub fn localparams(text: &str) -> BTreeMap<String, u64> {
    text.lines()
        .filter_map(|l| {
            let code = l.split("//").next().unwrap_or("");
            let decl = code.trim().strip_prefix("localparam ")?;
            let (lhs, rhs) = decl.split_once('=')?;
            let name = lhs.split_whitespace().last()?.to_string();
            let v = rhs.split(';').next()?.trim();
            let value = match v.split_once('\'') {
                None => v.parse().ok()?,
                Some((_, lit)) => {
                    let radix = match lit.chars().next()? {
                        'h' => 16,
                        'b' => 2,
                        _ => 10,
                    };
                    u64::from_str_radix(&lit[1..], radix).ok()?
                }
            };
            Some((name, value))
        })
        .collect()
}

fn is_comment_at(line: &str, indent: &str) -> bool {
    line.strip_prefix(indent)
        .is_some_and(|rest| rest.starts_with("//"))
}

fn render(run: &[Result<Decl, &str>]) -> Vec<String> {
    let decls: Vec<&Decl> = run.iter().filter_map(|r| r.as_ref().ok()).collect();
    // The direction is padded (`input  wire`) only where a net type follows it.
    let dir_w = decls
        .iter()
        .filter(|d| d.head.len() > 1 && DIRECTIONS.contains(&d.head[0]))
        .map(|d| d.head[0].len())
        .max()
        .unwrap_or(0);
    let types: Vec<String> = decls.iter().map(|d| type_column(d, dir_w)).collect();
    let type_w = types.iter().map(String::len).max().unwrap_or(0);
    let any_dims = decls.iter().any(|d| !d.dims.is_empty());
    let any_value = decls.iter().any(|d| !d.value.is_empty());
    let name_w = decls.iter().map(|d| d.name.len()).max().unwrap_or(0);
    // `=` lines up after the widest dimensions of the lines that have a value.
    let dims_w = decls
        .iter()
        .filter(|d| !d.value.is_empty())
        .map(|d| d.dims.len())
        .max()
        .unwrap_or(0);
    let codes: Vec<String> = decls
        .iter()
        .zip(&types)
        .map(|(d, ty)| {
            let mut s = format!("{}{:<type_w$} {}", d.indent, ty, d.name);
            let later = !d.dims.is_empty() || !d.value.is_empty();
            if later && (any_dims || any_value) {
                pad_to(&mut s, d.indent.len() + type_w + 1 + name_w);
            }
            if !d.dims.is_empty() {
                s.push(' ');
                s.push_str(d.dims);
            }
            if !d.value.is_empty() {
                if dims_w > 0 {
                    pad_to(&mut s, d.indent.len() + type_w + 1 + name_w + 1 + dims_w);
                }
                s.push_str(" = ");
                s.push_str(d.value);
            }
            s.push_str(d.term);
            s
        })
        .collect();
    let code_w = decls
        .iter()
        .zip(&codes)
        .filter(|(d, _)| !d.comment.is_empty())
        .map(|(_, c)| c.len())
        .max()
        .unwrap_or(0);
    let mut codes = codes.into_iter();
    run.iter()
        .map(|r| match r {
            Err(comment) => comment.to_string(),
            Ok(d) => {
                let mut s = codes.next().unwrap_or_default();
                if !d.comment.is_empty() {
                    pad_to(&mut s, code_w);
                    s.push_str("  ");
                    s.push_str(d.comment);
                }
                s
            }
        })
        .collect()
}

fn type_column(d: &Decl, dir_w: usize) -> String {
    let mut s = String::new();
    for (k, word) in d.head.iter().enumerate() {
        if k > 0 {
            s.push(' ');
        }
        if k == 0 && d.head.len() > 1 && DIRECTIONS.contains(word) {
            s.push_str(&format!("{word:<dir_w$}"));
        } else {
            s.push_str(word);
        }
    }
    if !d.range.is_empty() {
        s.push(' ');
        s.push_str(d.range);
    }
    s
}

fn pad_to(s: &mut String, width: usize) {
    while s.len() < width {
        s.push(' ');
    }
}

/// Splits a declaration line into columns; `None` for any other line. `next` is the line
/// after it: an entry with no terminator is a declaration only as the last of a list.
fn parse<'a>(line: &'a str, next: Option<&str>) -> Option<Decl<'a>> {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let (code, comment) = match body.find("//") {
        Some(k) => (body[..k].trim_end(), body[k..].trim_end()),
        None => (body.trim_end(), ""),
    };
    let mut rest = code;
    let mut head = Vec::new();
    while let Some((word, after)) = split_word(rest) {
        if !HEAD_WORDS.contains(&word) {
            break;
        }
        head.push(word);
        rest = after.trim_start();
    }
    if head.is_empty() {
        return None;
    }
    let (range, after) = split_brackets(rest);
    rest = after.trim_start();
    let (name, after) = split_word(rest)?;
    if !is_identifier(name) {
        return None;
    }
    rest = after.trim_start();
    let mut name = name.to_string();
    if rest.starts_with("/*") {
        let end = rest.find("*/")? + 2;
        name.push(' ');
        name.push_str(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    let dims_start = rest;
    let mut dims_len = 0;
    while rest.starts_with('[') {
        let (dim, after) = split_brackets(rest);
        dims_len = dims_start.len() - after.len();
        rest = after.trim_start();
        if dim.is_empty() {
            return None;
        }
    }
    let dims = dims_start[..dims_len].trim_end();
    let (value, term) = if let Some(v) = rest.strip_prefix('=') {
        let v = v.trim();
        match v.chars().last() {
            Some(';') | Some(',') => (v[..v.len() - 1].trim_end(), &v[v.len() - 1..]),
            _ => (v, ""),
        }
    } else {
        match rest {
            ";" | "," | "" => ("", rest),
            _ => return None,
        }
    };
    if term.is_empty() && !next.is_some_and(|n| n.trim_start().starts_with(')')) {
        return None;
    }
    if !value.is_empty() && !balanced(value) {
        return None;
    }
    Some(Decl {
        indent,
        head,
        range,
        name,
        dims,
        value,
        term,
        comment,
    })
}

fn split_word(s: &str) -> Option<(&str, &str)> {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(s.len());
    (end > 0).then(|| (&s[..end], &s[end..]))
}

/// A leading `[...]` (balanced) and what follows; empty when `s` does not open one.
fn split_brackets(s: &str) -> (&str, &str) {
    if !s.starts_with('[') {
        return ("", s);
    }
    let mut depth = 0;
    for (k, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return (&s[..=k], &s[k + 1..]);
                }
            }
            _ => {}
        }
    }
    ("", s)
}

fn is_identifier(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

/// Brackets and parentheses close within the value (it does not go on to the next line).
fn balanced(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

#[cfg(test)]
mod tests {
    use super::declarations;

    #[test]
    fn ports_get_direction_type_and_name_columns() {
        let text = "module m (\n  input wire clk_i,\n  output wire [W-1:0] q_o,\n  // the data\n  input wire [W-1:0] d_i\n);\n";
        let want = "module m (\n  input  wire         clk_i,\n  output wire [W-1:0] q_o,\n  // the data\n  input  wire [W-1:0] d_i\n);\n";
        assert_eq!(declarations(text), want);
    }

    #[test]
    fn values_dims_and_comments_line_up() {
        let text = "  localparam integer Ports = 4; // requesters\n  localparam [1:0] Idle = 2'd0;\n  reg [3:0] tag_q [0:7];\n  reg v_q;\n";
        let want = "  localparam integer Ports = 4;  // requesters\n  localparam [1:0]   Idle  = 2'd0;\n  reg [3:0]          tag_q [0:7];\n  reg                v_q;\n";
        assert_eq!(declarations(text), want);
    }

    #[test]
    fn a_blank_line_or_a_statement_ends_a_run_and_other_lines_are_untouched() {
        let text =
            "  reg a_q;\n\n  wire [7:0] long_name;\n  assign a   = b;\n  always @(*) begin\n";
        assert_eq!(declarations(text), text);
    }

    #[test]
    fn unfinished_values_and_attribute_comments() {
        // A value that goes on to the next line is not a declaration the pass touches.
        let text = "  wire [3:0] x = (a &\n                b);\n  reg [3:0] state_q /* verilator public_flat_rd */;\n  reg b_q;\n";
        let want = "  wire [3:0] x = (a &\n                b);\n  reg [3:0] state_q /* verilator public_flat_rd */;\n  reg       b_q;\n";
        assert_eq!(declarations(text), want);
    }

    #[test]
    fn aligning_twice_changes_nothing() {
        let text = "module m #(\n  parameter integer Width = 32,\n  parameter integer Depth = 4\n) (\n  input wire [Width-1:0] d_i, // in\n  output wire q_o\n);\n  reg [Width-1:0] mem_q [0:Depth-1];\n  integer i;\n";
        let once = declarations(text);
        assert_eq!(declarations(&once), once);
        assert!(once.contains("  parameter integer Depth = 4\n"));
        assert!(once.contains("  input  wire [Width-1:0] d_i,  // in\n"));
    }
}
