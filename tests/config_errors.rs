//! The config error promise, checked on the real binary: a bad config gets a clear error
//! (which key, which line and column, what is allowed), exit code 2, and earlier output
//! is left untouched.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_gpurtl");

/// A fresh directory of this test process, unique per `tag`.
fn scratch(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("gpurtl-config-errors-{}-{tag}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Joins `lines` into a TOML file: line N of the file is `lines[N - 1]`, which makes the
/// expected line numbers readable off the table.
fn toml(lines: &[&str]) -> String {
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

fn gpurtl(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run gpurtl")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// One malformed config and the error it must produce.
struct Case {
    name: &'static str,
    toml: String,
    /// The key path the message names; `None` for a problem of the whole document.
    key: Option<&'static str>,
    line: usize,
    col: usize,
    /// The message after the key, exactly.
    message: &'static str,
    /// A substring of the `allowed:` line, or `None` when there must be no such line.
    allowed: Option<&'static str>,
}

fn case(
    name: &'static str,
    lines: &[&str],
    key: Option<&'static str>,
    (line, col): (usize, usize),
    message: &'static str,
    allowed: Option<&'static str>,
) -> Case {
    Case {
        name,
        toml: toml(lines),
        key,
        line,
        col,
        message,
        allowed,
    }
}

/// Writes the case's config, runs `gpurtl check` on it and checks the one error it reports.
fn check_case(dir: &Path, c: &Case) -> Result<(), String> {
    let path = dir.join(format!("{}.toml", c.name));
    fs::write(&path, &c.toml).map_err(|e| format!("{}: writing config: {e}", c.name))?;
    let out = gpurtl(&["check", "--config", path.to_str().unwrap_or_default()]);
    let stderr = text(&out.stderr);
    let fail = |what: String| Err(format!("case {}: {what}\n--- stderr:\n{stderr}", c.name));
    if out.status.code() != Some(2) {
        return fail(format!("exit code {:?}, want 2", out.status.code()));
    }
    if !out.stdout.is_empty() {
        return fail(format!("stdout not empty: {:?}", text(&out.stdout)));
    }
    let key = c.key.map(|k| format!("key `{k}`: ")).unwrap_or_default();
    let head = format!(
        "error: {}:{}:{}: {key}{}",
        path.display(),
        c.line,
        c.col,
        c.message
    );
    let lines: Vec<&str> = stderr.lines().collect();
    if lines.first() != Some(&head.as_str()) {
        return fail(format!(
            "first line\n  got  {:?}\n  want {head:?}",
            lines.first()
        ));
    }
    let errors = lines.iter().filter(|l| l.starts_with("error: ")).count();
    if errors != 1 {
        return fail(format!("{errors} errors reported, want 1"));
    }
    let allowed = lines.get(1).and_then(|l| l.strip_prefix("  allowed: "));
    match (c.allowed, allowed) {
        (Some(want), Some(got)) if got.contains(want) => {}
        (None, None) => {}
        (want, got) => return fail(format!("allowed: got {got:?}, want {want:?}")),
    }
    Ok(())
}

/// A valid chain, for cases whose fault lies elsewhere.
const CHAIN: [&str; 3] = ["[hs_chain]", "width = 8", r#"stages = ["skid"]"#];

fn with_chain(head: &[&'static str]) -> Vec<&'static str> {
    head.iter().copied().chain(CHAIN).collect()
}

/// A valid `[tmu.cache]` after the design and chain (lines 6..=15), with the given lines
/// (1-based in the whole file) replaced.
fn with_cache(edits: &[(usize, &'static str)]) -> Vec<&'static str> {
    let mut lines = with_chain(&["[design]", r#"name = "a""#]);
    lines.extend([
        "[tmu.cache]",
        "size_bytes = 16384",
        "line_bytes = 256",
        "ways = 64",
        "banks = 16",
        "ports = 16",
        "mshr_entries = 8",
        r#"replacement = "lru""#,
        "bus_bits = 128",
        r#"layout = "tiled4x4""#,
    ]);
    for (at, line) in edits {
        lines[at - 1] = line;
    }
    lines
}

/// `[design]` (lines 1-2), `[tmu]` (line 3), `lines` from line 4, then a valid cache.
fn with_tmu(lines: &[&'static str]) -> Vec<&'static str> {
    let mut v = vec!["[design]", r#"name = "a""#, "[tmu]"];
    v.extend(lines);
    v.extend([
        "[tmu.cache]",
        "size_bytes = 4096",
        "line_bytes = 64",
        "ways = 4",
    ]);
    v.extend([
        "banks = 4",
        "ports = 4",
        "mshr_entries = 4",
        "bus_bits = 64",
    ]);
    v.extend([r#"replacement = "lru""#, r#"layout = "tiled4x4""#]);
    v
}

/// `[design]` (lines 1-2), `[ipu]` (line 3), then `lines` from line 4.
fn with_ipu(lines: &[&'static str]) -> Vec<&'static str> {
    let mut v = vec!["[design]", r#"name = "a""#, "[ipu]"];
    v.extend(lines);
    v
}

fn cases(many_stages: &str) -> Vec<Case> {
    let design = ["[design]", r#"name = "a""#];
    vec![
        // --- unknown keys
        case(
            "unknown_section",
            &[&with_chain(&design)[..], &["[bogus]", "x = 1"][..]].concat(),
            Some("bogus"),
            (6, 2),
            "unknown field `bogus`",
            Some("one of `design`, `clock`, `reset`, `hs_chain`, `tmu`"),
        ),
        case(
            "design_typo",
            &with_chain(&["[design]", r#"name = "a""#, r#"prefx = "gpu_""#]),
            Some("design.prefx"),
            (3, 1),
            "unknown field `prefx`",
            Some("`name` or `module_prefix`"),
        ),
        case(
            "reset_typo",
            &with_chain(&[
                "[design]",
                r#"name = "a""#,
                "[reset]",
                r#"kind = "sync""#,
                r#"activ = "low""#,
            ]),
            Some("reset.activ"),
            (5, 1),
            "unknown field `activ`",
            Some("`kind` or `active`"),
        ),
        case(
            "clock_typo",
            &with_chain(&["[design]", r#"name = "a""#, "[clock]", "target_mhx = 100.0"]),
            Some("clock.target_mhx"),
            (4, 1),
            "unknown field `target_mhx`",
            Some("`target_mhz`"),
        ),
        case(
            "hs_chain_typo",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                "widht = 8",
                r#"stages = ["skid"]"#,
            ],
            Some("hs_chain.widht"),
            (4, 1),
            "unknown field `widht`",
            Some("`width` or `stages`"),
        ),
        case(
            "inline_table_unknown_key",
            &with_chain(&[r#"design = { name = "a", bogus = 1 }"#]),
            Some("design.bogus"),
            (1, 24),
            "unknown field `bogus`",
            Some("`name` or `module_prefix`"),
        ),
        // --- wrong types
        case(
            "width_string",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                r#"width = "8""#,
                r#"stages = ["skid"]"#,
            ],
            Some("hs_chain.width"),
            (4, 9),
            r#"invalid type: string "8""#,
            Some("an integer in 1..=4096"),
        ),
        case(
            "name_integer",
            &with_chain(&["[design]", "name = 42"]),
            Some("design.name"),
            (2, 8),
            "invalid type: integer `42`",
            Some(
                "a Verilog identifier: a letter or `_`, then letters, digits or `_`; not a keyword",
            ),
        ),
        case(
            "stages_not_array",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                "width = 8",
                r#"stages = "skid""#,
            ],
            Some("hs_chain.stages"),
            (5, 10),
            r#"invalid type: string "skid""#,
            Some(r#"an array of 1..=64 stages, each one of "bypass", "bubble", "skid", "fifo:N""#),
        ),
        case(
            "width_float",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                "width = 8.5",
                r#"stages = ["skid"]"#,
            ],
            Some("hs_chain.width"),
            (4, 9),
            "invalid type: floating point `8.5`",
            Some("an integer in 1..=4096"),
        ),
        case(
            "width_negative",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                "width = -1",
                r#"stages = ["skid"]"#,
            ],
            Some("hs_chain.width"),
            (4, 9),
            "invalid value: integer `-1`",
            Some("an integer in 1..=4096"),
        ),
        case(
            "stage_not_string",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                "width = 8",
                r#"stages = ["skid", 3]"#,
            ],
            Some("hs_chain.stages[1]"),
            (5, 19),
            "invalid type: integer `3`",
            Some(r#""bypass", "bubble", "skid", "fifo:N" (N in 1..=4096)"#),
        ),
        case(
            "section_not_table",
            &with_chain(&["clock = 5", "[design]", r#"name = "a""#]),
            Some("clock"),
            (1, 9),
            "invalid type: integer `5`",
            Some("a [clock] table with `target_mhz`"),
        ),
        // --- enums
        case(
            "reset_kind",
            &with_chain(&["[design]", r#"name = "a""#, "[reset]", r#"kind = "asynch""#]),
            Some("reset.kind"),
            (4, 8),
            "unknown variant `asynch`",
            Some(r#""async" or "sync""#),
        ),
        case(
            "reset_active",
            &with_chain(&["[design]", r#"name = "a""#, "[reset]", r#"active = "Low""#]),
            Some("reset.active"),
            (4, 10),
            "unknown variant `Low`",
            Some(r#""low" (port rst_ni) or "high" (port rst_i)"#),
        ),
        // --- missing keys
        case(
            "missing_design",
            &with_chain(&["# only a chain", ""]),
            Some("design"),
            (1, 1),
            "required key is missing",
            Some("a [design] table with `name`"),
        ),
        case(
            "missing_design_name",
            &with_chain(&["# no name", "[design]", r#"module_prefix = "g_""#]),
            Some("design.name"),
            (2, 1),
            "required key is missing",
            Some("a Verilog identifier"),
        ),
        case(
            "missing_width",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                r#"stages = ["skid"]"#,
            ],
            Some("hs_chain.width"),
            (3, 1),
            "required key is missing",
            Some("an integer in 1..=4096"),
        ),
        case(
            "no_unit",
            &[
                "# comment",
                "[design]",
                r#"name = "a""#,
                "[reset]",
                r#"kind = "sync""#,
            ],
            None,
            (1, 1),
            "the config describes no unit",
            Some("at least one unit section: [hs_chain]"),
        ),
        // --- TOML syntax
        case(
            "unterminated_string",
            &with_chain(&["[design]", r#"name = "a"#]),
            Some("design.name"),
            (2, 8),
            "unterminated string",
            Some("a closing `\"` on the same line"),
        ),
        case(
            "unterminated_string_in_multiline_array",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                "width = 8",
                "stages = [",
                r#"  "skid","#,
                r#"  "bub"#,
                "]",
            ],
            Some("hs_chain.stages[1]"),
            (7, 3),
            "unterminated string",
            Some("a closing `\"` on the same line"),
        ),
        case(
            "duplicate_key",
            &with_chain(&["[design]", r#"name = "a""#, r#"name = "b""#]),
            Some("design.name"),
            (3, 1),
            "duplicate key: already set on line 2",
            None,
        ),
        case(
            "unquoted_value",
            &with_chain(&["[design]", "name = a"]),
            Some("design.name"),
            (2, 8),
            "string values must be quoted",
            Some("a Verilog identifier"),
        ),
        case(
            "key_without_value",
            &with_chain(&["[design]", r#"name "a""#]),
            Some("design.name"),
            (2, 6),
            "key with no value",
            Some("`=`"),
        ),
        // --- names
        case(
            "name_keyword_buf",
            &with_chain(&["[design]", r#"name = "buf""#]),
            Some("design.name"),
            (2, 8),
            r#"design name "buf" is a Verilog/SystemVerilog keyword"#,
            Some("not a keyword"),
        ),
        case(
            "name_keyword_module",
            &with_chain(&[
                "# module is reserved",
                "[design]",
                r#"name    =   "module""#,
            ]),
            Some("design.name"),
            (3, 13),
            r#"design name "module" is a Verilog/SystemVerilog keyword"#,
            Some("not a keyword"),
        ),
        case(
            "name_starts_with_digit",
            &with_chain(&["[design]", r#"name = "3dtex""#]),
            Some("design.name"),
            (2, 8),
            r#"design name "3dtex" starts with '3'"#,
            Some("a letter or `_`, then letters, digits or `_`"),
        ),
        case(
            "name_dotted_key",
            &[
                "design.name = \"buf\"",
                "hs_chain.width = 8",
                r#"hs_chain.stages = ["skid"]"#,
            ],
            Some("design.name"),
            (1, 15),
            r#"design name "buf" is a Verilog/SystemVerilog keyword"#,
            Some("not a keyword"),
        ),
        case(
            "prefix_with_dash",
            &with_chain(&["[design]", r#"name = "a""#, r#"module_prefix = "gpu-""#]),
            Some("design.module_prefix"),
            (3, 17),
            r#"module prefix "gpu-" contains '-'"#,
            Some(r#"empty, or a letter or `_` followed by letters, digits or `_` (e.g. "gpu_")"#),
        ),
        // --- ranges
        case(
            "width_zero",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                "width = 0",
                r#"stages = ["skid"]"#,
            ],
            Some("hs_chain.width"),
            (4, 9),
            "width 0 is out of range",
            Some("an integer in 1..=4096"),
        ),
        case(
            "width_5000",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                "width = 5000",
                r#"stages = ["skid"]"#,
            ],
            Some("hs_chain.width"),
            (4, 9),
            "width 5000 is out of range",
            Some("an integer in 1..=4096"),
        ),
        case(
            "stages_empty",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                "width = 8",
                "stages = []",
            ],
            Some("hs_chain.stages"),
            (5, 10),
            "0 stages given",
            Some("an array of 1..=64 stages"),
        ),
        case(
            "too_many_stages",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                "width = 8",
                many_stages,
            ],
            Some("hs_chain.stages"),
            (5, 10),
            "65 stages given",
            Some("an array of 1..=64 stages"),
        ),
        case(
            "stage_kind_unknown",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                "width = 8",
                r#"stages = ["skid", "bubble", "skidd"]"#,
            ],
            Some("hs_chain.stages[2]"),
            (5, 29),
            r#"unknown handshake kind "skidd""#,
            Some(r#""bypass", "bubble", "skid", "fifo:N" (N in 1..=4096)"#),
        ),
        case(
            "fifo_depth_zero",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                "width = 8",
                r#"stages = ["fifo:0"]"#,
            ],
            Some("hs_chain.stages[0]"),
            (5, 11),
            "fifo depth 0 is out of range",
            Some(r#""fifo:N" (N in 1..=4096)"#),
        ),
        case(
            "fifo_depth_not_a_number",
            &[
                "[design]",
                r#"name = "a""#,
                "[hs_chain]",
                "width = 8",
                r#"stages = ["skid", "fifo:x"]"#,
            ],
            Some("hs_chain.stages[1]"),
            (5, 19),
            r#"fifo depth "x" is not a number"#,
            Some(r#""fifo:N" (N in 1..=4096)"#),
        ),
        case(
            "target_mhz_zero",
            &with_chain(&["[design]", r#"name = "a""#, "[clock]", "target_mhz = 0.0"]),
            Some("clock.target_mhz"),
            (4, 14),
            "target frequency 0 MHz is out of range",
            Some("a number of MHz in (0, 5000]"),
        ),
        case(
            "target_mhz_negative",
            &with_chain(&["[design]", r#"name = "a""#, "[clock]", "target_mhz = -5.0"]),
            Some("clock.target_mhz"),
            (4, 14),
            "target frequency -5 MHz is out of range",
            Some("a number of MHz in (0, 5000]"),
        ),
        // --- [tmu.cache]
        case(
            "cache_size_not_power_of_two",
            &with_cache(&[(7, "size_bytes = 10000")]),
            Some("tmu.cache.size_bytes"),
            (7, 14),
            "size_bytes 10000 is not allowed",
            Some("a power of two in 256..=1048576 bytes"),
        ),
        case(
            "cache_banks_three",
            &with_cache(&[(10, "banks = 3")]),
            Some("tmu.cache.banks"),
            (10, 9),
            "banks 3 is not allowed",
            Some("4 or 16"),
        ),
        case(
            "cache_more_ways_than_lines",
            &with_cache(&[(9, "ways = 128")]),
            Some("tmu.cache.ways"),
            (9, 8),
            "128 ways but the cache holds 64 lines",
            Some("fully associative"),
        ),
        case(
            "cache_replacement_unknown",
            &with_cache(&[(13, r#"replacement = "random""#)]),
            Some("tmu.cache.replacement"),
            (13, 15),
            "unknown variant `random`",
            Some("\"lru\", \"plru\" or \"fifo\""),
        ),
        case(
            "cache_layout_typo",
            &with_cache(&[(15, r#"layout = "tiled""#)]),
            Some("tmu.cache.layout"),
            (15, 10),
            "unknown variant `tiled`",
            Some("\"linear\" or \"tiled4x4\""),
        ),
        case(
            "cache_bus_wider_than_line",
            &with_cache(&[(8, "line_bytes = 64"), (14, "bus_bits = 1024")]),
            Some("tmu.cache.bus_bits"),
            (14, 12),
            "a 1024-bit bus fills a 64-byte line in under two beats",
            Some("at most half a line"),
        ),
        case(
            "cache_tag_ports_three",
            &with_cache(&[(15, "layout = \"tiled4x4\"\ntag_ports = 3")]),
            Some("tmu.cache.tag_ports"),
            (16, 13),
            "tag_ports 3 is not allowed",
            Some("4, 8, 16 or 32 lines a clock, at most ports"),
        ),
        case(
            "cache_tag_ports_past_the_texels",
            &with_cache(&[(15, "layout = \"tiled4x4\"\ntag_ports = 32")]),
            Some("tmu.cache.tag_ports"),
            (16, 13),
            "32 lines a clock but a request has 16 texels",
            Some("at most ports"),
        ),
        // --- [tmu]
        case(
            "tmu_no_magnification_filter",
            &with_tmu(&[r#"filters = ["linear_mipmap_linear"]"#]),
            Some("tmu.filters"),
            (4, 11),
            "no magnification filter is enabled",
            Some("with \"nearest\" or \"linear\" among them"),
        ),
        case(
            "tmu_filter_unknown",
            &with_tmu(&[r#"filters = ["bilinear"]"#]),
            Some("tmu.filters[0]"),
            (4, 12),
            "unknown variant `bilinear`",
            Some("\"nearest_mipmap_linear\""),
        ),
        case(
            "tmu_wrap_twice",
            &with_tmu(&[r#"wraps = ["repeat", "repeat"]"#]),
            Some("tmu.wraps"),
            (4, 9),
            "tmu.wraps lists one twice",
            Some("distinct"),
        ),
        case(
            "tmu_no_textures",
            &with_tmu(&["textures = 0"]),
            Some("tmu.textures"),
            (4, 12),
            "textures 0 is not allowed",
            Some("1..=16"),
        ),
        case(
            "tmu_filter_products_unknown",
            &with_tmu(&[r#"filter_products = "mult""#]),
            Some("tmu.filter_products"),
            (4, 19),
            "unknown variant `mult`",
            Some("\"logic\" (adder trees) or \"dsp\""),
        ),
        case(
            "tmu_filter_products_dsp_too_wide",
            &with_tmu(&[r#"filter_products = "dsp""#, "weight_bits = 12"]),
            Some("tmu.filter_products"),
            (4, 19),
            "\"dsp\" needs weight_bits of at most 10 (a product of 18 x 11 bits), not 12",
            Some("with weight_bits up to 10"),
        ),
        case(
            "tmu_three_lanes",
            &with_tmu(&["lanes = 3"]),
            Some("tmu.lanes"),
            (4, 9),
            "lanes 3 is not allowed",
            Some("1, 2, 4 or 8"),
        ),
        // --- [ipu]
        case(
            "ipu_lanes",
            &with_ipu(&["lanes = 3"]),
            Some("ipu.lanes"),
            (4, 9),
            "3 lanes",
            Some("1, 2 or 4 pixels per clock"),
        ),
        case(
            "ipu_lanes_type",
            &with_ipu(&[r#"lanes = "two""#]),
            Some("ipu.lanes"),
            (4, 9),
            "invalid type: string \"two\"",
            Some("1, 2 or 4 pixels per clock"),
        ),
        case(
            "ipu_typo",
            &with_ipu(&["lane = 2"]),
            Some("ipu.lane"),
            (4, 1),
            "unknown field `lane`",
            Some("`lanes`"),
        ),
        case(
            "ipu_format_unknown",
            &with_ipu(&[r#"formats = ["rgba8888", "rgb555"]"#]),
            Some("ipu.formats[1]"),
            (4, 24),
            "unknown format \"rgb555\"",
            Some("\"rgb565\""),
        ),
        case(
            "ipu_format_twice",
            &with_ipu(&[r#"formats = ["l8", "l8"]"#]),
            Some("ipu.formats[1]"),
            (4, 18),
            "format \"l8\" listed twice",
            Some("distinct formats"),
        ),
        case(
            "ipu_no_format",
            &with_ipu(&["formats = []"]),
            Some("ipu.formats"),
            (4, 11),
            "no format enabled",
            Some("a non-empty array"),
        ),
        case(
            "ipu_scale_frac_too_small",
            &with_ipu(&["scale_frac_bits = 8"]),
            Some("ipu.scale_frac_bits"),
            (4, 19),
            "8 fraction bits",
            Some("10..=16"),
        ),
        case(
            "ipu_bias_int_too_wide",
            &with_ipu(&["bias_int_bits = 9"]),
            Some("ipu.bias_int_bits"),
            (4, 17),
            "9 integer bits",
            Some("1..=8"),
        ),
        case(
            "ipu_stack_depth",
            &with_ipu(&["stack_depth = 0"]),
            Some("ipu.stack_depth"),
            (4, 15),
            "stack depth 0",
            Some("1..=32"),
        ),
        case(
            "ipu_register_count",
            &with_ipu(&[r#"registers = ["skid"]"#]),
            Some("ipu.registers"),
            (4, 13),
            "1 registers given",
            Some("one after each stage (unpack, scale, bias)"),
        ),
        case(
            "ipu_register_kind",
            &with_ipu(&[r#"registers = ["skid", "fifo:0", "bubble"]"#]),
            Some("ipu.registers[1]"),
            (4, 22),
            "fifo depth 0 is out of range",
            Some("\"fifo:N\""),
        ),
        case(
            "ipu_register_bypass_after_map",
            &with_ipu(&[r#"registers = ["skid", "bubble", "bubble", "bypass", "skid"]"#]),
            Some("ipu.registers[3]"),
            (4, 42),
            "\"bypass\" after the map stage, whose output is a register of its own",
            Some("or 5 with the pixel map and zoom stages' output registers"),
        ),
        case(
            "ipu_dma_width",
            &with_ipu(&["dma_word_bits = 48"]),
            Some("ipu.dma_word_bits"),
            (4, 17),
            "DMA word of 48 bits",
            Some("32 (the seed's DMA word; default), 64 or 128"),
        ),
        case(
            "ipu_framebuffer_word",
            &with_ipu(&["framebuffer = true", "fb_word_bits = 64"]),
            Some("ipu.fb_word_bits"),
            (5, 16),
            "framebuffer word of 64 bits",
            Some("128 (the seed's framebuffer word"),
        ),
        case(
            "ipu_framebuffer_not_a_bool",
            &with_ipu(&["framebuffer = \"yes\""]),
            Some("ipu.framebuffer"),
            (4, 15),
            r#"invalid type: string "yes""#,
            Some("true or false"),
        ),
        case(
            "ipu_zoom_line_width",
            &with_ipu(&["[ipu.zoom]", "enabled = true", "max_line_width = 0"]),
            Some("ipu.zoom.max_line_width"),
            (6, 18),
            "line width 0",
            Some("1..=8192 pixels"),
        ),
        case(
            "ipu_pixel_map_index_map_without_ci8",
            &with_ipu(&[
                "[ipu.pixel_map]",
                "enabled = true",
                r#"maps = ["r_to_r", "i_to_r"]"#,
            ]),
            Some("ipu.pixel_map.maps[1]"),
            (6, 19),
            "map \"i_to_r\" converts colour indices, but formats does not list \"ci8\"",
            Some("with the ci8 format \"i_to_r\""),
        ),
        case(
            "ipu_pixel_map_index_to_index",
            &with_ipu(&[
                r#"formats = ["ci8"]"#,
                "[ipu.pixel_map]",
                "enabled = true",
                r#"maps = ["i_to_r", "s_to_s"]"#,
            ]),
            Some("ipu.pixel_map.maps[1]"),
            (7, 19),
            "map \"s_to_s\" applies to a colour-index framebuffer or stencil draws, which this unit has not",
            Some("this unit draws RGBA pixels"),
        ),
        case(
            "ipu_ci8_without_index_maps",
            &with_ipu(&[
                r#"formats = ["l8", "ci8"]"#,
                "[ipu.pixel_map]",
                "enabled = true",
                r#"maps = ["r_to_r"]"#,
            ]),
            Some("ipu.formats[1]"),
            (4, 18),
            "format \"ci8\" without an enabled [ipu.pixel_map] listing i_to_* maps",
            Some("at least one of \"i_to_r\""),
        ),
        case(
            "ipu_pixel_map_unknown_map",
            &with_ipu(&[
                "[ipu.pixel_map]",
                "enabled = false",
                r#"maps = ["r_to_r", "x_to_y"]"#,
            ]),
            Some("ipu.pixel_map.maps[1]"),
            (6, 19),
            "unknown map \"x_to_y\"",
            Some("\"i_to_i\""),
        ),
        case(
            "ipu_convolution_even_kernel",
            &with_ipu(&["[ipu.convolution]", "enabled = false", "kernel_size = 4"]),
            Some("ipu.convolution.kernel_size"),
            (6, 15),
            "kernel size 4",
            Some("odd integer in 1..=5"),
        ),
        case(
            "ipu_convolution_weight_bits",
            &with_ipu(&["[ipu.convolution]", "enabled = true", "weight_int_bits = 9"]),
            Some("ipu.convolution.weight_int_bits"),
            (6, 19),
            "9 integer bits",
            Some("16 fraction bits"),
        ),
    ]
}

#[test]
fn each_bad_config_names_key_line_column_and_what_is_allowed() {
    let many = format!("stages = [{}]", vec![r#""skid""#; 65].join(", "));
    let cases = cases(&many);
    assert!(cases.len() >= 20, "only {} cases", cases.len());
    let dir = scratch("cases");
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| check_case(&dir, c).err())
        .collect();
    let _ = fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

/// Runs `check` on `lines` and returns the stderr lines that start an error.
fn error_heads(tag: &str, lines: &[&str]) -> (PathBuf, Vec<String>) {
    let dir = scratch(tag);
    let path = dir.join("bad.toml");
    fs::write(&path, toml(lines)).expect("write config");
    let out = gpurtl(&["check", "-c", path.to_str().expect("utf-8 temp path")]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    let heads = stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .map(str::to_string)
        .collect();
    (path, heads)
}

#[test]
fn every_semantic_error_in_one_file_is_reported() {
    let (path, heads) = error_heads(
        "multi-semantic",
        &[
            "[design]",
            r#"name = "buf""#,
            r#"module_prefix = "9x""#,
            "[clock]",
            "target_mhz = -1.0",
            "[hs_chain]",
            "width = 0",
            r#"stages = ["skid", "fifo:0", "nope"]"#,
        ],
    );
    let p = path.display();
    let want = [
        format!(
            r#"error: {p}:2:8: key `design.name`: design name "buf" is a Verilog/SystemVerilog keyword"#
        ),
        format!(
            r#"error: {p}:3:17: key `design.module_prefix`: module prefix "9x" starts with '9'"#
        ),
        format!("error: {p}:5:14: key `clock.target_mhz`: target frequency -1 MHz is out of range"),
        format!("error: {p}:7:9: key `hs_chain.width`: width 0 is out of range"),
        format!("error: {p}:8:19: key `hs_chain.stages[1]`: fifo depth 0 is out of range"),
        format!(r#"error: {p}:8:29: key `hs_chain.stages[2]`: unknown handshake kind "nope""#),
    ];
    assert_eq!(heads, want);
    let _ = fs::remove_dir_all(path.parent().expect("scratch dir"));
}

#[test]
fn every_syntax_error_in_one_file_is_reported() {
    let (path, heads) = error_heads(
        "multi-syntax",
        &[
            "[design]",
            r#"name = "a"#,
            "module_prefix = 'g_",
            "[hs_chain]",
            "width = 8 8",
            r#"stages = ["skid"]"#,
        ],
    );
    let p = path.display();
    let want = [
        format!("error: {p}:2:8: key `design.name`: unterminated string"),
        format!("error: {p}:3:17: key `design.module_prefix`: unterminated string"),
        format!("error: {p}:5:9: key `hs_chain.width`: string values must be quoted"),
    ];
    assert_eq!(heads, want);
    let _ = fs::remove_dir_all(path.parent().expect("scratch dir"));
}

#[test]
fn the_caret_points_at_the_reported_column() {
    let dir = scratch("caret");
    let path = dir.join("bad.toml");
    fs::write(&path, toml(&with_chain(&["[design]", r#"name = "buf""#]))).expect("write config");
    let out = gpurtl(&["check", "-c", path.to_str().expect("utf-8 temp path")]);
    let stderr = text(&out.stderr);
    let want = format!(
        "error: {}:2:8: key `design.name`: design name \"buf\" is a Verilog/SystemVerilog keyword\n  \
         allowed: a Verilog identifier: a letter or `_`, then letters, digits or `_`; not a keyword\n  \
         | name = \"buf\"\n  \
         |        ^\n",
        path.display()
    );
    assert_eq!(stderr, want);
    let _ = fs::remove_dir_all(&dir);
}

/// Every file under `dir` (recursively) with its bytes, keyed by relative path.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in fs::read_dir(dir).expect("read dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).expect("under root").to_path_buf();
                out.insert(rel, fs::read(&path).expect("read file"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn a_bad_config_leaves_earlier_output_untouched() {
    let root = scratch("untouched");
    let good = root.join("good.toml");
    let bad = root.join("bad.toml");
    let out_dir = root.join("rtl");
    fs::write(
        &good,
        toml(&with_chain(&["[design]", r#"name = "keep_me""#])),
    )
    .expect("write good");
    fs::write(&bad, toml(&with_chain(&["[design]", r#"name = "buf""#]))).expect("write bad");
    let out_arg = out_dir.to_str().expect("utf-8 temp path");

    let first = gpurtl(&[
        "generate",
        "--config",
        good.to_str().expect("utf-8"),
        "--out",
        out_arg,
    ]);
    assert_eq!(
        first.status.code(),
        Some(0),
        "stderr:\n{}",
        text(&first.stderr)
    );
    let before = snapshot(&out_dir);
    assert!(
        before
            .keys()
            .any(|p| p.extension().is_some_and(|e| e == "v")),
        "no Verilog generated: {:?}",
        before.keys().collect::<Vec<_>>()
    );
    assert!(before.contains_key(Path::new("manifest.json")));

    let second = gpurtl(&[
        "generate",
        "--config",
        bad.to_str().expect("utf-8"),
        "--out",
        out_arg,
    ]);
    let stderr = text(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: {}:2:8: key `design.name`: design name \"buf\"",
            bad.display()
        )),
        "stderr:\n{stderr}"
    );
    assert_eq!(snapshot(&out_dir), before, "output directory changed");

    // Only the inputs and the output directory: no temp or backup siblings left over.
    let mut siblings: Vec<String> = fs::read_dir(&root)
        .expect("read root")
        .map(|e| {
            e.expect("dir entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    siblings.sort();
    assert_eq!(siblings, ["bad.toml", "good.toml", "rtl"]);
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn check_with_a_missing_config_file_names_the_path() {
    let path = scratch("missing").join("no_such_config.toml");
    let out = gpurtl(&["check", "--config", path.to_str().expect("utf-8 temp path")]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(
        stderr.starts_with(&format!("cannot read config {}: ", path.display())),
        "stderr:\n{stderr}"
    );
    let _ = fs::remove_dir_all(path.parent().expect("scratch dir"));
}

#[test]
fn sim_of_an_unknown_unit_lists_the_units() {
    let out = gpurtl(&["sim", "--unit", "nosuch"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert_eq!(
        stderr,
        "no unit `nosuch` in this config; it has: hs_chain, tex_cache, tex_filter, tmu, mem_arb, mem_mgr, ipu, gpu\n"
    );
}

#[test]
fn sim_with_a_gap_outside_the_unit_interval_is_a_usage_error() {
    let out = gpurtl(&["sim", "--unit", "hs_chain", "--gap", "1.5"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(
        stderr.contains("invalid value '1.5' for '--gap <GAP>': 1.5 is outside [0, 1)"),
        "stderr:\n{stderr}"
    );
}

/// A valid `[mem]` with two requesters and a region map after the design and chain
/// (lines 6..=28), with the given lines (1-based in the whole file) replaced; an empty
/// replacement drops the line's content.
fn with_mem(edits: &[(usize, &'static str)]) -> Vec<&'static str> {
    let mut lines = with_chain(&["[design]", r#"name = "a""#]);
    lines.extend([
        "[mem]",
        "data_bits = 64",
        "max_burst = 8",
        r#"policy = "round_robin""#,
        "[[mem.requesters]]",
        r#"name = "a""#,
        r#"access = "read""#,
        "max_burst = 8",
        "[[mem.requesters]]",
        r#"name = "b""#,
        r#"access = "both""#,
        "priority = 1",
        "max_burst = 4",
        "[mem.map]",
        "shader_bytes = 65536",
        "image_bytes = 1048576",
        "texture_bytes = 6291456",
        "user_bytes = 1048576",
        "page_bytes = 1024",
        "buffer_objects = 8",
        "display_lists = 256",
        "textures = 6",
        "mip_levels = 12",
    ]);
    for (at, line) in edits {
        lines[at - 1] = line;
    }
    lines
}

fn mem_cases() -> Vec<Case> {
    const NAME: &str = "a Verilog identifier of at most 32 characters";
    vec![
        case(
            "mem_data_bits_not_power_of_two",
            &with_mem(&[(7, "data_bits = 48")]),
            Some("mem.data_bits"),
            (7, 13),
            "data_bits 48 is not allowed",
            Some("a power of two in 8..=512"),
        ),
        case(
            "mem_policy_unknown",
            &with_mem(&[(9, r#"policy = "lottery""#)]),
            Some("mem.policy"),
            (9, 10),
            "unknown variant `lottery`",
            Some(r#""fixed", "round_robin" or "classes""#),
        ),
        case(
            "mem_outstanding_reads_short_of_the_latency",
            &with_mem(&[(9, "policy = \"round_robin\"\noutstanding_reads = 4")]),
            Some("mem.outstanding_reads"),
            (10, 21),
            "outstanding_reads 4 does not cover latency 100: reader \"b\"'s bursts of 4 beat(s) need 26 read bursts in flight to keep the port busy",
            Some("26..=64, or no outstanding_reads (derived), or a lower mem.latency"),
        ),
        case(
            "mem_latency_past_the_tag_fifo",
            &with_mem(&[(9, "policy = \"round_robin\"\nlatency = 300")]),
            Some("mem.latency"),
            (10, 11),
            "latency 300 needs 76 read bursts in flight for reader \"b\"'s bursts of 4 beat(s), more than the tag FIFO's 64",
            Some("at most 254 clocks with bursts of 4 beat(s), or a longer max_burst for \"b\""),
        ),
        case(
            "mem_latency_out_of_range",
            &with_mem(&[(9, "policy = \"round_robin\"\nlatency = 5000")]),
            Some("mem.latency"),
            (10, 11),
            "latency 5000 is not allowed",
            Some("0..=1000 clocks"),
        ),
        case(
            "mem_requester_burst_longer_than_port",
            &with_mem(&[(13, "max_burst = 16")]),
            Some("mem.requesters[0].max_burst"),
            (13, 13),
            "max_burst 16 does not fit the memory port's max_burst 8",
            Some("1..=mem.max_burst"),
        ),
        case(
            "mem_requester_name_twice",
            &with_mem(&[(15, r#"name = "a""#)]),
            Some("mem.requesters[1].name"),
            (15, 8),
            "name \"a\" is used by an earlier requester",
            Some(NAME),
        ),
        case(
            "mem_requester_named_mem",
            &with_mem(&[(11, r#"name = "mem""#)]),
            Some("mem.requesters[0].name"),
            (11, 8),
            "name \"mem\" is the memory port's",
            Some(NAME),
        ),
        case(
            "mem_requester_name_not_identifier",
            &with_mem(&[(11, r#"name = "9x""#)]),
            Some("mem.requesters[0].name"),
            (11, 8),
            "name \"9x\" starts with '9'",
            Some(NAME),
        ),
        case(
            "mem_requester_access_unknown",
            &with_mem(&[(12, r#"access = "rw""#)]),
            Some("mem.requesters[0].access"),
            (12, 10),
            "unknown variant `rw`",
            Some(r#""read", "write" or "both""#),
        ),
        case(
            "mem_requester_priority_too_high",
            &with_mem(&[(17, "priority = 20")]),
            Some("mem.requesters[1].priority"),
            (17, 12),
            "priority 20 is not allowed",
            Some("0..=15"),
        ),
        case(
            "mem_requester_burst_missing",
            &with_mem(&[(13, "")]),
            Some("mem.requesters[0].max_burst"),
            (10, 1),
            "required key is missing",
            Some("1..=mem.max_burst"),
        ),
        case(
            "mem_no_requester_reads",
            &with_mem(&[(12, r#"access = "write""#), (16, r#"access = "write""#)]),
            Some("mem.requesters"),
            (10, 1),
            "no requester reads: the read half of the memory port would be unused",
            Some(r#"at least one requester with access "read" or "both""#),
        ),
        case(
            "mem_page_not_power_of_two",
            &with_mem(&[(24, "page_bytes = 1000")]),
            Some("mem.map.page_bytes"),
            (24, 14),
            "page_bytes 1000 is not allowed",
            Some("(seed 002: 1024)"),
        ),
        case(
            "mem_texture_area_not_partitioned",
            &with_mem(&[(22, "texture_bytes = 6291457")]),
            Some("mem.map.texture_bytes"),
            (22, 17),
            "texture_bytes 6291457 is not a positive multiple of 6144 (6 textures x 1024-byte pages)",
            Some("a fixed partition per texture"),
        ),
        case(
            "mem_shader_area_too_small",
            &with_mem(&[(20, "shader_bytes = 1024")]),
            Some("mem.map.shader_bytes"),
            (20, 16),
            "shader_bytes 1024 is not a positive multiple of 4096 (4 slots of 1024-byte pages)",
            Some("ping-pong"),
        ),
        case(
            "mem_mip_levels_too_many",
            &with_mem(&[(28, "mip_levels = 20")]),
            Some("mem.map.mip_levels"),
            (28, 14),
            "mip_levels 20 is not allowed",
            Some("(seed 002: 12)"),
        ),
        case(
            "mem_more_buffer_objects_than_pages",
            &with_mem(&[(23, "user_bytes = 4096")]),
            Some("mem.map.buffer_objects"),
            (25, 18),
            "8 buffer objects but the user area has 4 pages",
            Some("at most one buffer object per page"),
        ),
    ]
}

#[test]
fn each_bad_mem_config_names_key_line_column_and_what_is_allowed() {
    let dir = scratch("mem-cases");
    // The unedited [mem] validates.
    let good = dir.join("good.toml");
    fs::write(&good, toml(&with_mem(&[]))).expect("write");
    let out = gpurtl(&["check", "--config", good.to_str().unwrap_or_default()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let cases = mem_cases();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| check_case(&dir, c).err())
        .collect();
    let _ = fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

/// The embedded default (which has the GPU top) with edits: each `(after, old, new)`
/// replaces the first line `old` at or after the first line `after`; and the 1-based line
/// of the first line `find` at or after the first line `after`, in the edited text.
fn with_default(edits: &[(&str, &str, &'static str)]) -> Vec<&'static str> {
    let mut lines: Vec<&'static str> = include_str!("../configs/default.toml").lines().collect();
    for (after, old, new) in edits {
        let at = line_of(&lines, after, old) - 1;
        lines[at] = new;
    }
    lines
}

fn line_of(lines: &[&str], after: &str, find: &str) -> usize {
    let from = lines
        .iter()
        .position(|l| l.starts_with(after))
        .unwrap_or_else(|| panic!("no line {after:?}"));
    from + 1
        + lines[from..]
            .iter()
            .position(|l| l.starts_with(find))
            .unwrap_or_else(|| panic!("no line {find:?} after {after:?}"))
}

#[test]
fn each_bad_gpu_binding_names_key_line_column_and_what_is_allowed() {
    let dir = scratch("gpu-cases");
    let tex = r#"name = "tex""#;
    let fb = r#"name = "fb""#;
    let at = |edits: &[(&str, &str, &'static str)], after: &str, find: &str| {
        line_of(&with_default(edits), after, find)
    };
    let mut cases = Vec::new();
    let e = [(tex, "serves", r#"serves = "tmu.fill""#)];
    cases.push(case(
        "gpu_serves_unknown",
        &with_default(&e),
        Some("mem.requesters[0].serves"),
        (at(&e, tex, "serves"), 10),
        "unknown variant `tmu.fill`",
        Some(r#""ipu.dma", "ipu.fb", "ipu.tex" or "tmu.mem""#),
    ));
    let e = [(fb, "access", r#"access = "write""#)];
    cases.push(case(
        "gpu_fb_needs_both",
        &with_default(&e),
        Some("mem.requesters[2].access"),
        (at(&e, fb, "access"), 10),
        "requester \"fb\" serves \"ipu.fb\" (the framebuffer: pixels written, regions read), which needs access \"both\", not \"write\"",
        Some(r#""both""#),
    ));
    let e = [("[[mem.requesters]]", "serves", "")];
    cases.push(case(
        "gpu_fills_unbound",
        &with_default(&e),
        Some("mem.requesters"),
        (at(&e, "[[mem.requesters]]", "[[mem.requesters]]"), 1),
        "the GPU top (this config has [ipu], [tmu] and [mem]) needs a requester that serves \"tmu.mem\" (the texture cache's line fills)",
        Some(r#"serves = "tmu.mem" in a [[mem.requesters]] table with access "read""#),
    ));
    let e = [("[tmu.cache]", "bus_bits", "bus_bits = 32")];
    cases.push(case(
        "gpu_cache_bus_not_the_memory_port",
        &with_default(&e),
        Some("tmu.cache.bus_bits"),
        (at(&e, "[tmu.cache]", "bus_bits"), 12),
        "bus_bits 32: the cache's fills come from the memory port, whose beats are 64 bits",
        Some("64 (mem.data_bits)"),
    ));
    let mut big = with_default(&[]);
    big.extend(["[gpu]", "fb_width = 1024", "fb_height = 1024"]);
    let n = big.len();
    cases.push(case(
        "gpu_framebuffer_past_its_slot",
        &big,
        Some("gpu.fb_width"),
        (n - 1, 12),
        "a 1024 x 1024 framebuffer (4194304 bytes) does not fit the image area's destination slot (1048576 bytes)",
        Some("a power of two in 16..=4096 pixels"),
    ));
    let mut odd = with_default(&[]);
    odd.extend(["[gpu]", "fb_width = 500"]);
    let n = odd.len();
    cases.push(case(
        "gpu_framebuffer_width_not_a_power_of_two",
        &odd,
        Some("gpu.fb_width"),
        (n, 12),
        "fb_width 500 is not allowed",
        Some("a power of two in 16..=4096 pixels"),
    ));
    // Without [ipu] and [tmu] there is no GPU top: a binding names traffic nobody makes.
    let mut lone = with_mem(&[]);
    lone.insert(13, r#"serves = "ipu.dma""#);
    cases.push(case(
        "gpu_serves_a_unit_the_config_lacks",
        &lone,
        Some("mem.requesters[0].serves"),
        (14, 10),
        "\"ipu.dma\" (the IPU's DMA: draw and bitmap words read, READ_PIXELS' words written): this config's units make no such traffic",
        Some("a traffic of a unit the config has"),
    ));
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| check_case(&dir, c).err())
        .collect();
    let _ = fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}
