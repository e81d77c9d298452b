//! Packed words: one list of fields per word, lowest first, from which the RTL's
//! `<Word><Field>Lsb` localparams, the model's packing and the docs' layouts all come.

use serde::Serialize;

/// A field of a packed word: its name (the localparam `<Word><Name>Lsb` in the RTL), lsb
/// and width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Field {
    pub name: &'static str,
    pub lsb: u32,
    pub width: u32,
}

/// Lays fields out from bit 0 upwards, in the order given.
pub fn pack(fields: &[(&'static str, u32)]) -> Vec<Field> {
    let mut lsb = 0;
    fields
        .iter()
        .map(|&(name, width)| {
            let f = Field { name, lsb, width };
            lsb += width;
            f
        })
        .collect()
}

/// The width of a packed word.
pub fn width(fields: &[Field]) -> u32 {
    fields.iter().map(|f| f.lsb + f.width).max().unwrap_or(0)
}

/// A packed word as the docs write it, highest field first: `{len[3], addr[32]}`.
pub fn describe(fields: &[Field]) -> String {
    let names: Vec<String> = fields
        .iter()
        .rev()
        .map(|f| format!("{}[{}]", f.name.to_ascii_lowercase(), f.width))
        .collect();
    format!("{{{}}}", names.join(", "))
}

/// The localparams of a word's field offsets: `(<word><Field>Lsb, lsb)`.
pub fn lsb_params(word: &str, fields: &[Field]) -> Vec<(String, u32)> {
    fields
        .iter()
        .map(|f| (format!("{word}{}Lsb", f.name), f.lsb))
        .collect()
}

/// The field called `name`: a table's own names, so a missing one is a bug in the caller.
pub fn get(fields: &[Field], name: &str) -> Field {
    *fields
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no field {name} in {}", describe(fields)))
}

/// A word's field offsets as Verilog expressions of the module's parameters, for words
/// whose size follows a real parameter (a `Lanes` the user may override): each field
/// starts where the one below it ends, in the table's order, and `<word>W` closes the
/// word. `expr` gives a field's width as an expression and as its value at the
/// configured parameters; a mismatch is a bug in the caller.
pub fn lsb_exprs(
    word: &str,
    fields: &[Field],
    expr: impl Fn(&Field) -> (String, u32),
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut at = "0".to_string();
    for f in fields {
        let (w, value) = expr(f);
        assert_eq!(
            value, f.width,
            "{word}{}: {w} is not the table's width",
            f.name
        );
        let name = format!("{word}{}Lsb", f.name);
        out.push((name.clone(), at));
        at = format!("{name} + {w}");
    }
    out.push((format!("{word}W"), at));
    out
}
