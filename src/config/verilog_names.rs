//! Legal Verilog identifiers: every name the config lends to generated RTL passes here.

/// Verilog-2005 and SystemVerilog-2017 keywords: a name that is one breaks some tool.
#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "accept_on", "alias", "always", "always_comb", "always_ff", "always_latch", "and",
    "assert", "assign", "assume", "automatic", "before", "begin", "bind", "bins", "binsof",
    "bit", "break", "buf", "bufif0", "bufif1", "byte", "case", "casex", "casez", "cell",
    "chandle", "checker", "class", "clocking", "cmos", "config", "const", "constraint",
    "context", "continue", "cover", "covergroup", "coverpoint", "cross", "deassign",
    "default", "defparam", "design", "disable", "dist", "do", "edge", "else", "end",
    "endcase", "endchecker", "endclass", "endclocking", "endconfig", "endfunction",
    "endgenerate", "endgroup", "endinterface", "endmodule", "endpackage", "endprimitive",
    "endprogram", "endproperty", "endsequence", "endspecify", "endtable", "endtask", "enum",
    "event", "eventually", "expect", "export", "extends", "extern", "final", "first_match",
    "for", "force", "foreach", "forever", "fork", "forkjoin", "function", "generate",
    "genvar", "global", "highz0", "highz1", "if", "iff", "ifnone", "ignore_bins",
    "illegal_bins", "implements", "implies", "import", "incdir", "include", "initial",
    "inout", "input", "inside", "instance", "int", "integer", "interconnect", "interface",
    "intersect", "join", "join_any", "join_none", "large", "let", "liblist", "library",
    "local", "localparam", "logic", "longint", "macromodule", "matches", "medium",
    "modport", "module", "nand", "negedge", "nettype", "new", "nexttime", "nmos", "nor",
    "noshowcancelled", "not", "notif0", "notif1", "null", "or", "output", "package",
    "packed", "parameter", "pmos", "posedge", "primitive", "priority", "program",
    "property", "protected", "pull0", "pull1", "pulldown", "pullup",
    "pulsestyle_ondetect", "pulsestyle_onevent", "pure", "rand", "randc", "randcase",
    "randsequence", "rcmos", "real", "realtime", "ref", "reg", "reject_on", "release",
    "repeat", "restrict", "return", "rnmos", "rpmos", "rtran", "rtranif0", "rtranif1",
    "s_always", "s_eventually", "s_nexttime", "s_until", "s_until_with", "scalared",
    "sequence", "shortint", "shortreal", "showcancelled", "signed", "small", "soft",
    "solve", "specify", "specparam", "static", "string", "strong", "strong0", "strong1",
    "struct", "super", "supply0", "supply1", "sync_accept_on", "sync_reject_on", "table",
    "tagged", "task", "this", "throughout", "time", "timeprecision", "timeunit", "tran",
    "tranif0", "tranif1", "tri", "tri0", "tri1", "triand", "trior", "trireg", "type",
    "typedef", "union", "unique", "unique0", "unsigned", "until", "until_with", "untyped",
    "use", "uwire", "var", "vectored", "virtual", "void", "wait", "wait_order", "wand",
    "weak", "weak0", "weak1", "while", "wildcard", "wire", "with", "within", "wor", "xnor",
    "xor",
];

pub fn is_keyword(name: &str) -> bool {
    KEYWORDS.binary_search(&name).is_ok()
}

/// Ok when `name` is a plain Verilog identifier that is no keyword; else says why not.
pub fn check_identifier(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("is empty".into());
    }
    check_prefix(name)?;
    if is_keyword(name) {
        return Err("is a Verilog/SystemVerilog keyword".into());
    }
    if name.len() > 64 {
        return Err("is longer than 64 characters".into());
    }
    Ok(())
}

/// Ok for an empty prefix or one that can start an identifier.
pub fn check_prefix(prefix: &str) -> Result<(), String> {
    let mut chars = prefix.chars();
    match chars.next() {
        None => return Ok(()),
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        Some(c) => return Err(format!("starts with {c:?}")),
    }
    if let Some(c) = chars.find(|c| !(c.is_ascii_alphanumeric() || *c == '_')) {
        return Err(format!("contains {c:?}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_table_is_sorted_so_binary_search_works() {
        let mut sorted = KEYWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, KEYWORDS);
    }

    #[test]
    fn identifiers() {
        assert!(check_identifier("hs_chain").is_ok());
        assert!(check_identifier("buf").unwrap_err().contains("keyword"));
        assert!(check_identifier("logic").unwrap_err().contains("keyword"));
        assert!(
            check_identifier("3dtex")
                .unwrap_err()
                .contains("starts with")
        );
        assert!(check_identifier("a-b").unwrap_err().contains("contains"));
        assert!(check_identifier("").is_err());
        assert!(check_prefix("").is_ok());
    }
}
