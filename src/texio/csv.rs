//! The coordinate CSV of `gpurtl sample` and the colour CSV it writes.
//!
//! Input: one sample per row, `s,t` or `s,t,lod`, fp32 numbers as Rust parses them
//! (`0.5`, `-1e3`, `nan`, `inf`, `-infinity`); spaces around fields are ignored. Blank
//! lines and lines starting with `#` are skipped. The first other line may be a header,
//! `s,t` or `s,t,lod`. Output: `r,g,b,a` per sample, each in 0..=255, no header.

use anyhow::{Result, bail};

use crate::model::tmu::format::Rgba8;

/// One coordinate row, with its 1-based line number in the file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coord {
    pub line: usize,
    pub s: f32,
    pub t: f32,
    pub lod: Option<f32>,
}

const FIELDS: [&str; 3] = ["s", "t", "lod"];
const ALLOWED: &str = "`s,t` or `s,t,lod` per row: fp32 numbers (0.25, -1e3, nan, inf); an optional header `s,t` or `s,t,lod`; blank lines and `#` comments";

/// Parses the coordinates of `text`; `name` is the file name for error messages.
pub fn parse_coords(text: &str, name: &str) -> Result<Vec<Coord>> {
    let mut rows = Vec::new();
    let mut first = true;
    // A UTF-8 byte order mark, as spreadsheet exports write, is not part of the data.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        // (1-based column of the field's first character, field text).
        let mut fields = Vec::new();
        let mut start = 0;
        for f in raw.split(',') {
            let lead = f.len() - f.trim_start().len();
            fields.push((start + lead + 1, f.trim()));
            start += f.len() + 1;
        }
        let is_first = std::mem::replace(&mut first, false);
        if is_first && fields[0].1.parse::<f32>().is_err() {
            let names: Vec<String> = fields.iter().map(|f| f.1.to_ascii_lowercase()).collect();
            if names == FIELDS[..2] || names == FIELDS {
                continue;
            }
            if fields.iter().all(|f| f.1.parse::<f32>().is_err()) {
                bail!(
                    "error: {name}:{line}:1: header `{trimmed}` is not `s,t` or `s,t,lod`\n  allowed: {ALLOWED}"
                );
            }
        }
        if !(2..=3).contains(&fields.len()) {
            bail!(
                "error: {name}:{line}:1: {} field(s), expected 2 (s,t) or 3 (s,t,lod)\n  allowed: {ALLOWED}",
                fields.len()
            );
        }
        let mut v = [0f32; 3];
        for (k, &(col, f)) in fields.iter().enumerate() {
            match f.parse::<f32>() {
                Ok(x) => v[k] = x,
                Err(_) => bail!(
                    "error: {name}:{line}:{col}: field {} ({}) `{f}` is not a number\n  allowed: {ALLOWED}",
                    k + 1,
                    FIELDS[k]
                ),
            }
        }
        rows.push(Coord {
            line,
            s: v[0],
            t: v[1],
            lod: (fields.len() == 3).then_some(v[2]),
        });
    }
    if rows.is_empty() {
        bail!("error: {name}: no coordinate rows\n  allowed: {ALLOWED}");
    }
    Ok(rows)
}

/// The output CSV: `r,g,b,a` per row.
pub fn render_rgba(rows: &[Rgba8]) -> String {
    let mut s = String::with_capacity(rows.len() * 16);
    for [r, g, b, a] in rows {
        s += &format!("{r},{g},{b},{a}\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_headers_comments_and_specials() {
        let text = "\u{feff}# hello\r\nS, T\n\n0.5,0.25\n 1e1 , -inf ,2\nnan,0\n";
        let rows = parse_coords(text, "c.csv").unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(
            (rows[0].line, rows[0].s, rows[0].t, rows[0].lod),
            (4, 0.5, 0.25, None)
        );
        assert_eq!(
            (rows[1].s, rows[1].t, rows[1].lod),
            (10.0, f32::NEG_INFINITY, Some(2.0))
        );
        assert!(rows[2].s.is_nan());
    }

    #[test]
    fn errors_give_line_and_column() {
        let err = |t: &str| format!("{:#}", parse_coords(t, "c.csv").unwrap_err());
        assert!(
            err("0,0\n0.5, x\n").starts_with("error: c.csv:2:6: field 2 (t) `x` is not a number")
        );
        assert!(err("s,t\n1,2,3,4\n").starts_with("error: c.csv:2:1: 4 field(s)"));
        assert!(err("0\n").starts_with("error: c.csv:1:1: 1 field(s)"));
        assert!(err("u,v\n").starts_with("error: c.csv:1:1: header `u,v`"));
        assert!(err("# only\n\n").starts_with("error: c.csv: no coordinate rows"));
        assert!(err("1,2\ns,t\n").starts_with("error: c.csv:2:1: field 1 (s) `s`"));
    }
}
