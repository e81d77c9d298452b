//! What a sweep varies: `--set KEY=VALUES` axes, parsed and checked against the config
//! schema, and the points they span, each a complete TOML text (the base with the
//! point's values written in by `toml_edit`, so comments and layout survive and a
//! config error's line and column point into the point's own file).

use std::fmt;

use serde::{Deserialize, Serialize};
use toml_edit::{DocumentMut, Item, Table, TableLike, Value};

use crate::config::{self, Seg};

/// The most points one sweep may span (a typo in a range should not fill a disk).
pub const MAX_POINTS: usize = 10_000;

/// A sweep argument that cannot be used; the CLI exits 2 before anything runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("--set {0:?}: expected KEY=VALUES, e.g. tmu.cache.ways=1,4,16")]
    NoEquals(String),
    #[error("--set {key}: {message}")]
    BadKey { key: String, message: String },
    #[error("--set {key}: unknown key: {message}\n  allowed: {allowed}")]
    UnknownKey {
        key: String,
        message: String,
        allowed: String,
    },
    #[error("--set {key}: bad value `{value}`: {message}")]
    BadValue {
        key: String,
        value: String,
        message: String,
    },
    #[error("--set {key}: no values (give a list, e.g. {key}=1,2,4)")]
    Empty { key: String },
    #[error("--set {key} is given twice")]
    Twice { key: String },
    #[error("--zip needs lists of one length; {first} has {n}, {key} has {m}")]
    ZipLengths {
        first: String,
        n: usize,
        key: String,
        m: usize,
    },
    #[error("{points} points is more than the {MAX_POINTS} a sweep may span")]
    TooMany { points: usize },
    #[error(
        "the base config {origin} does not validate; a sweep starts from a valid one:\n{errors}"
    )]
    BadBase { origin: String, errors: String },
}

/// One swept value: its TOML literal and the label tables and plots show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Level {
    /// As written into the point's TOML, e.g. `"lru"` or `4096`.
    pub literal: String,
    /// For columns and legends: a string's contents, else the literal.
    pub label: String,
    /// The value as a number, when it is one (plots put it on a numeric axis).
    pub number: Option<f64>,
}

/// One `--set`: a dotted key and its values, in the order given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    pub key: String,
    pub levels: Vec<Level>,
}

impl Axis {
    /// Parses `KEY=V1,V2,...` (values are TOML literals, bare words as strings, or ranges:
    /// `A..B+S` arithmetic, `A..B*K` geometric, both inclusive of B when reached).
    pub fn parse(arg: &str) -> Result<Axis, SpecError> {
        let (key, values) = arg
            .split_once('=')
            .ok_or_else(|| SpecError::NoEquals(arg.to_string()))?;
        let key = key.trim().to_string();
        parse_key(&key)?;
        let mut levels = Vec::new();
        for item in split_top(values) {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            levels.extend(parse_values(&key, item)?);
        }
        if levels.is_empty() {
            return Err(SpecError::Empty { key });
        }
        Ok(Axis { key, levels })
    }

    fn path(&self) -> Vec<Seg> {
        // Checked when parsed.
        parse_key(&self.key).unwrap_or_default()
    }
}

/// Splits a dotted key with indices (`mem.requesters[1].priority`) into segments.
fn parse_key(key: &str) -> Result<Vec<Seg>, SpecError> {
    let bad = |message: &str| SpecError::BadKey {
        key: key.to_string(),
        message: message.to_string(),
    };
    if key.is_empty() {
        return Err(bad("the key is empty"));
    }
    let mut path = Vec::new();
    for part in key.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        let is_bare = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if name.is_empty() || !name.chars().all(is_bare) {
            return Err(bad(
                "each part of a key is a bare TOML key (letters, digits, _ and -), as in tmu.cache.ways or mem.requesters[0].priority",
            ));
        }
        path.push(Seg::Key(name.to_string()));
        while !rest.is_empty() {
            let close = rest
                .find(']')
                .ok_or_else(|| bad("an index opens with [ and closes with ]"))?;
            let index: usize = rest[1..close]
                .parse()
                .map_err(|_| bad("an index is a number, as in requesters[0]"))?;
            path.push(Seg::Index(index));
            rest = &rest[close + 1..];
            if !rest.is_empty() && !rest.starts_with('[') {
                return Err(bad("an index ends a key part"));
            }
        }
    }
    Ok(path)
}

/// Splits on commas outside brackets, braces and quotes.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// One list item: a range's values, or one literal.
fn parse_values(key: &str, item: &str) -> Result<Vec<Level>, SpecError> {
    let bad = |message: String| SpecError::BadValue {
        key: key.to_string(),
        value: item.to_string(),
        message,
    };
    let starts_literal = item.starts_with(['"', '\'', '[', '{']);
    if let (false, Some((from, rest))) = (starts_literal, item.split_once("..")) {
        return range(from, rest).map_err(bad);
    }
    literal(item).map(|l| vec![l]).map_err(bad)
}

fn literal(text: &str) -> Result<Level, String> {
    let doc = format!("v = {text}")
        .parse::<DocumentMut>()
        .ok()
        .and_then(|d| d.get("v").and_then(Item::as_value).cloned());
    let value = match doc {
        Some(v) => v,
        // A bare word is a string: `lru` for `"lru"`, which a shell would otherwise eat.
        None if text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            && text.starts_with(|c: char| c.is_ascii_alphabetic()) =>
        {
            Value::from(text)
        }
        None => {
            return Err(
                "neither a TOML literal (4096, 0.5, true, \"lru\", [1, 2]) nor a range (A..B+S, A..B*K)"
                    .into(),
            );
        }
    };
    Ok(level_of(&value))
}

fn level_of(value: &Value) -> Level {
    let mut v = value.clone();
    v.decor_mut().clear();
    let literal = v.to_string();
    let (label, number) = match &v {
        Value::String(s) => (s.value().clone(), None),
        Value::Integer(i) => (literal.clone(), Some(*i.value() as f64)),
        Value::Float(f) => (literal.clone(), Some(*f.value())),
        _ => (literal.clone(), None),
    };
    Level {
        literal,
        label,
        number,
    }
}

/// `from..to+step` or `from..to*factor` (`from..to` steps by 1); integers stay integers.
fn range(from: &str, rest: &str) -> Result<Vec<Level>, String> {
    let (to, op, by) = match rest.find(['+', '*']) {
        Some(i) => (&rest[..i], &rest[i..i + 1], &rest[i + 1..]),
        None => (rest, "+", "1"),
    };
    let ints = [from, to, by]
        .iter()
        .all(|s| s.trim().parse::<i64>().is_ok());
    let num = |s: &str| {
        s.trim()
            .parse::<f64>()
            .map_err(|_| format!("`{}` in a range is not a number", s.trim()))
    };
    let (a, b, k) = (num(from)?, num(to)?, num(by)?);
    if b < a {
        return Err(format!("a range runs upwards: {a} is above {b}"));
    }
    let mut out = Vec::new();
    let mut x = a;
    match op {
        "+" if k <= 0.0 => return Err("a range's step is positive".into()),
        "*" if k <= 1.0 || a <= 0.0 => {
            return Err("a geometric range starts above 0 and grows by a factor above 1".into());
        }
        _ => {}
    }
    // A tolerance for float steps: 0.1..0.3+0.1 ends at 0.3.
    let end = b + (b - a).abs() * 1e-9;
    while x <= end {
        if out.len() == MAX_POINTS {
            return Err(format!("more than {MAX_POINTS} values"));
        }
        let value = if ints {
            Value::from(x.round() as i64)
        } else {
            Value::from(x)
        };
        out.push(level_of(&value));
        x = if op == "+" { x + k } else { x * k };
    }
    Ok(out)
}

/// One point of the sweep: its values (one per axis, in axis order) and its TOML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub index: usize,
    pub levels: Vec<Level>,
    /// The point's config: the base with its values written in, and a header naming them.
    pub text: String,
}

impl Point {
    /// `p007`: the point's file name stem (as wide as the sweep needs).
    pub fn id(&self, total: usize) -> String {
        let width = total.saturating_sub(1).to_string().len().max(3);
        format!("p{:0width$}", self.index)
    }
}

/// The base config and the axes: everything that decides the points.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Spec {
    /// Where the base came from (a path, or the embedded default).
    pub base_origin: String,
    pub base_text: String,
    pub axes: Vec<Axis>,
    /// Pair the lists element by element instead of taking their product.
    pub zip: bool,
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys: Vec<String> = self
            .axes
            .iter()
            .map(|a| format!("{} ({} values)", a.key, a.levels.len()))
            .collect();
        write!(
            f,
            "{} over {}",
            self.base_origin,
            keys.join(if self.zip { " zipped with " } else { " x " })
        )
    }
}

impl Spec {
    /// Checks the base and every key against the schema: the base must validate, and a
    /// key the schema does not have is an error here, before any point runs.
    pub fn new(
        base_origin: &str,
        base_text: &str,
        axes: Vec<Axis>,
        zip: bool,
    ) -> Result<Spec, SpecError> {
        config::parse(base_text, base_origin).map_err(|e| SpecError::BadBase {
            origin: base_origin.to_string(),
            errors: e.to_string(),
        })?;
        for (i, a) in axes.iter().enumerate() {
            if axes[..i].iter().any(|b| b.key == a.key) {
                return Err(SpecError::Twice { key: a.key.clone() });
            }
            check_key(base_text, a)?;
        }
        if zip && let Some(first) = axes.first() {
            for a in &axes[1..] {
                if a.levels.len() != first.levels.len() {
                    return Err(SpecError::ZipLengths {
                        first: first.key.clone(),
                        n: first.levels.len(),
                        key: a.key.clone(),
                        m: a.levels.len(),
                    });
                }
            }
        }
        let spec = Spec {
            base_origin: base_origin.to_string(),
            base_text: base_text.to_string(),
            axes,
            zip,
        };
        let n = spec.count();
        if n > MAX_POINTS {
            return Err(SpecError::TooMany { points: n });
        }
        Ok(spec)
    }

    /// How many points the axes span.
    pub fn count(&self) -> usize {
        if self.axes.is_empty() {
            return 1;
        }
        if self.zip {
            self.axes[0].levels.len()
        } else {
            self.axes
                .iter()
                .map(|a| a.levels.len())
                .fold(1usize, |n, l| n.saturating_mul(l))
        }
    }

    /// Every point, the first axis varying slowest.
    pub fn points(&self) -> Vec<Point> {
        (0..self.count()).map(|i| self.point(i)).collect()
    }

    /// Point `index`'s values: the product's mixed-radix digits, or the zip's row.
    pub fn point(&self, index: usize) -> Point {
        let mut levels = Vec::with_capacity(self.axes.len());
        let mut rest = index;
        for a in self.axes.iter().rev() {
            let n = a.levels.len();
            let pick = if self.zip { index } else { rest % n };
            rest /= n;
            levels.push(a.levels[pick].clone());
        }
        levels.reverse();
        let text = self.text_of(index, &levels);
        Point {
            index,
            levels,
            text,
        }
    }

    fn text_of(&self, index: usize, levels: &[Level]) -> String {
        // The base validated and every key was set once in `check_key`: these cannot fail.
        let mut doc = self
            .base_text
            .parse::<DocumentMut>()
            .unwrap_or_else(|_| DocumentMut::new());
        let mut header = format!("# gpurtl sweep point {} of {}:\n", index, self.base_origin);
        for (a, l) in self.axes.iter().zip(levels) {
            let _ = set(&mut doc, &a.path(), &l.literal);
            header += &format!("#   {} = {}\n", a.key, l.literal);
        }
        header + &doc.to_string()
    }
}

/// Sets `key` to its first value in the base and validates: an unknown field, or a path
/// through something that is not a table, is the key's error.
fn check_key(base: &str, axis: &Axis) -> Result<(), SpecError> {
    let mut doc = base
        .parse::<DocumentMut>()
        .map_err(|e| SpecError::BadBase {
            origin: String::new(),
            errors: e.to_string(),
        })?;
    set(&mut doc, &axis.path(), &axis.levels[0].literal).map_err(|message| SpecError::BadKey {
        key: axis.key.clone(),
        message,
    })?;
    if let Err(errs) = config::parse(&doc.to_string(), "<sweep key check>")
        && let Some(e) = errs
            .0
            .iter()
            .find(|e| e.message.starts_with("unknown field"))
    {
        return Err(SpecError::UnknownKey {
            key: axis.key.clone(),
            message: format!("{} (in `{}`)", e.message, e.key),
            allowed: e.allowed.clone().unwrap_or_default(),
        });
    }
    Ok(())
}

/// Writes `literal` at `path`, creating missing tables on the way.
pub fn set(doc: &mut DocumentMut, path: &[Seg], literal: &str) -> Result<(), String> {
    let value = format!("v = {literal}")
        .parse::<DocumentMut>()
        .ok()
        .and_then(|d| d.get("v").and_then(Item::as_value).cloned())
        .ok_or_else(|| format!("`{literal}` is not a TOML value"))?;
    set_in(doc.as_table_mut(), path, value)
}

fn set_in(t: &mut dyn TableLike, path: &[Seg], value: Value) -> Result<(), String> {
    match path {
        [] => Err("the key is empty".into()),
        [Seg::Key(k)] => {
            // Keep the old value's trailing comment.
            let decor = t
                .get(k)
                .and_then(Item::as_value)
                .map(|v| v.decor().suffix().cloned());
            let mut value = value;
            if let Some(Some(suffix)) = decor {
                value.decor_mut().set_suffix(suffix);
            }
            t.insert(k, Item::Value(value));
            Ok(())
        }
        [Seg::Key(k), Seg::Index(i), rest @ ..] => {
            let item = t
                .get_mut(k)
                .ok_or_else(|| format!("`{k}` is not in the base config, so it has no [{i}]"))?;
            if let Some(aot) = item.as_array_of_tables_mut() {
                let n = aot.len();
                let table = aot
                    .get_mut(*i)
                    .ok_or_else(|| format!("`{k}` has {n} entries: no [{i}]"))?;
                return set_in(table, rest, value);
            }
            let arr = item
                .as_array_mut()
                .ok_or_else(|| format!("`{k}` is not an array"))?;
            let n = arr.len();
            if *i >= n {
                return Err(format!("`{k}` has {n} entries: no [{i}]"));
            }
            if rest.is_empty() {
                arr.replace(*i, value);
                return Ok(());
            }
            let inner = arr
                .get_mut(*i)
                .and_then(Value::as_inline_table_mut)
                .ok_or_else(|| format!("`{k}[{i}]` is not a table"))?;
            set_in(inner, rest, value)
        }
        [Seg::Key(k), rest @ ..] => {
            if t.get(k).is_none() {
                t.insert(k, Item::Table(Table::new()));
            }
            let inner = t
                .get_mut(k)
                .and_then(Item::as_table_like_mut)
                .ok_or_else(|| format!("`{k}` is a value, not a table"))?;
            set_in(inner, rest, value)
        }
        [Seg::Index(_), ..] => Err("a key starts with a name, not an index".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(a: &Axis) -> Vec<&str> {
        a.levels.iter().map(|l| l.label.as_str()).collect()
    }

    #[test]
    fn values_lists_ranges_and_words() {
        let a = Axis::parse("tmu.cache.size_bytes=4096..65536*2").unwrap();
        assert_eq!(labels(&a), ["4096", "8192", "16384", "32768", "65536"]);
        let a = Axis::parse("tmu.lanes=1..4").unwrap();
        assert_eq!(labels(&a), ["1", "2", "3", "4"]);
        let a = Axis::parse("x=1..8+3").unwrap();
        assert_eq!(labels(&a), ["1", "4", "7"]);
        let a = Axis::parse("clock.target_mhz=100.0..200.0+50.0").unwrap();
        assert_eq!(labels(&a), ["100.0", "150.0", "200.0"]);
        let a = Axis::parse("tmu.cache.replacement=lru,\"fifo\"").unwrap();
        assert_eq!(labels(&a), ["lru", "fifo"]);
        assert_eq!(a.levels[0].literal, "\"lru\"");
        let a = Axis::parse("hs_chain.stages=[\"skid\", \"fifo:4\"],[\"bypass\"]").unwrap();
        assert_eq!(a.levels.len(), 2);
        assert_eq!(a.levels[0].literal, "[\"skid\", \"fifo:4\"]");
    }

    #[test]
    fn bad_arguments_say_what_is_wrong() {
        assert!(matches!(
            Axis::parse("tmu.ways"),
            Err(SpecError::NoEquals(_))
        ));
        assert!(matches!(
            Axis::parse("tmu.ways="),
            Err(SpecError::Empty { .. })
        ));
        assert!(matches!(
            Axis::parse("tmu.ways= , "),
            Err(SpecError::Empty { .. })
        ));
        assert!(matches!(
            Axis::parse("tmu.ways=8..2"),
            Err(SpecError::BadValue { .. })
        ));
        assert!(matches!(
            Axis::parse("tmu.ways=1..8*1"),
            Err(SpecError::BadValue { .. })
        ));
        assert!(matches!(
            Axis::parse("tmu.ways=4 4"),
            Err(SpecError::BadValue { .. })
        ));
        assert!(matches!(
            Axis::parse("tmu..ways=1"),
            Err(SpecError::BadKey { .. })
        ));
        assert!(matches!(
            Axis::parse("mem.requesters[x].priority=1"),
            Err(SpecError::BadKey { .. })
        ));
    }

    fn spec(sets: &[&str], zip: bool) -> Result<Spec, SpecError> {
        let axes = sets
            .iter()
            .map(|s| Axis::parse(s))
            .collect::<Result<_, _>>()?;
        Spec::new(config::DEFAULT_ORIGIN, config::DEFAULT_TOML, axes, zip)
    }

    #[test]
    fn unknown_keys_are_found_before_any_point() {
        let e = spec(&["tmu.cache.sizes=4096"], false).unwrap_err();
        let SpecError::UnknownKey { allowed, .. } = &e else {
            panic!("{e}");
        };
        assert!(allowed.contains("size_bytes"), "{allowed}");
        assert!(matches!(
            spec(&["design.name.x=1"], false),
            Err(SpecError::BadKey { .. })
        ));
        assert!(matches!(
            spec(&["mem.requesters[99].priority=1"], false),
            Err(SpecError::BadKey { .. })
        ));
        assert!(matches!(
            spec(&["tmu.cache.ways=1,2", "tmu.cache.ways=4"], false),
            Err(SpecError::Twice { .. })
        ));
        // A bad value of a known key is the point's problem, not the sweep's.
        assert!(spec(&["tmu.cache.ways=3"], false).is_ok());
    }

    #[test]
    fn points_are_the_product_or_the_zip() {
        let s = spec(
            &["tmu.cache.ways=1,4", "tmu.cache.replacement=lru,fifo,lru"],
            false,
        )
        .unwrap();
        assert_eq!(s.count(), 6);
        let p = s.point(4);
        assert_eq!(
            p.levels
                .iter()
                .map(|l| l.label.as_str())
                .collect::<Vec<_>>(),
            ["4", "fifo"]
        );
        let cfg = config::parse(&p.text, "p").unwrap();
        let c = &cfg.tmu.as_ref().unwrap().cache;
        assert_eq!(c.ways, 4);
        assert_eq!(c.replacement, crate::config::Replacement::Fifo);
        assert!(p.text.starts_with("# gpurtl sweep point 4 of"));
        let z = spec(&["tmu.cache.ways=1,4", "tmu.cache.mshr_entries=2,8"], true).unwrap();
        assert_eq!(z.count(), 2);
        assert_eq!(z.point(1).levels[1].label, "8");
        assert!(matches!(
            spec(&["tmu.cache.ways=1,4", "tmu.cache.mshr_entries=2"], true),
            Err(SpecError::ZipLengths { .. })
        ));
    }

    #[test]
    fn an_invalid_point_is_located_in_its_own_text() {
        let s = spec(&["tmu.cache.ways=3"], false).unwrap();
        let p = s.point(0);
        let errs = config::parse(&p.text, "points/p000.toml").unwrap_err();
        let e = &errs.0[0];
        assert_eq!(e.origin, "points/p000.toml");
        let line = p.text.lines().nth(e.line - 1).unwrap();
        assert!(line.contains("ways"), "{e}: line {line:?}");
    }
}
