//! Co-simulation of the `tmu` unit (descriptors, LOD, texel addresses, texture cache,
//! filter lanes) in Verilator against `model::tmu::unit`: random descriptors (every
//! format, filter and wrap code, disabled and unknown ones included), rotated and scaled
//! quads, explicit LODs, NaN, infinite, huge and negative coordinates, masked lanes,
//! descriptor rewrites between samples; random input gaps, output stalls and memory
//! latency over several seeds; every format x filter x wrap combination the presets
//! enable, each on its own descriptor; and a broken variant that must fail.

mod common;

use common::*;
use gpurtl::config::Config;
use gpurtl::model::tmu::unit;
use gpurtl::sim::{self, MemTiming};
use gpurtl::units;

fn preset(name: &str) -> Config {
    let text =
        std::fs::read_to_string(project_dir().join("configs").join(name)).expect("preset readable");
    parse(&text, name)
}

/// Builds the unit (with `from` replaced by `to`) and runs (seed, gap, stall, latency).
fn run(
    cfg: &Config,
    mutation: Option<(&str, &str)>,
    count: usize,
    runs: &[(u64, f64, f64, u64)],
) -> bool {
    let (unit, dir) = build_unit(cfg, "tmu", mutation.map(|(f, t)| ("tmu_addr", f, t)));
    runs.iter().all(|&(seed, gap, stall, latency)| {
        let mut opt = sim_options(count, seed, gap, stall);
        opt.mem = MemTiming {
            latency,
            ..Default::default()
        };
        let r = sim::run_built(cfg, &unit, &dir, false, &opt).expect("runs");
        if mutation.is_none() {
            assert!(
                r.passed,
                "{} seed {seed} gap {gap} stall {stall} latency {latency}: {:?} (vectors in {:?})",
                cfg.design.name, r.errors, r.vectors_dir
            );
            assert_eq!(r.transactions, count as u64, "every sample answers");
        }
        r.passed
    })
}

/// Every enabled format x minification filter x wrap on a descriptor of its own, three
/// quads each, under gaps, stalls and 20 clocks of memory latency.
fn every_combination(cfg: &Config) {
    let design = elaborate(cfg);
    let unit = design.unit("tmu").expect("tmu unit").clone();
    let (dir, cached) = sim::build(cfg, &design, &unit, false, &work_dir()).expect("verilates");
    let tmu = cfg.tmu.as_ref().expect("tmu");
    let cmds = unit::coverage_commands(tmu, 3, 11);
    let (v, colours) = unit::vectors_for(tmu, &cmds, unit::Memory::new(), 11);
    let combos = tmu.formats.len() * tmu.filters.len() * tmu.wraps.len();
    assert_eq!(colours.len(), 3 * combos);
    let mut opt = sim_options(colours.len(), 11, 0.2, 0.2);
    opt.mem = MemTiming {
        latency: 20,
        ..Default::default()
    };
    let e = units::expectation(cfg, &unit, &v, opt.gap, opt.stall);
    let r = sim::run_vectors(&unit, &dir, cached, &opt, &v, &e).expect("runs");
    assert!(
        r.passed,
        "{}: {combos} combinations: {:?} (vectors in {:?})",
        cfg.design.name, r.errors, r.vectors_dir
    );
}

#[test]
fn seed_organisation_four_lanes_matches_the_model() {
    // Quads with LOD from their differences, rgba8888 / rgb565 / dxt1, 4x4 tiles.
    let cfg = preset("seed001_tmu.toml");
    run(
        &cfg,
        None,
        1500,
        &[(1, 0.0, 0.0, 20), (2, 0.3, 0.4, 100), (3, 0.1, 0.0, 1)],
    );
    every_combination(&cfg);
}

#[test]
fn one_lane_linear_layout_matches_the_model_and_a_broken_floor_fails() {
    // One lane: explicit LOD or 0; linear texel layout; 8-bit weights.
    let cfg = preset("fpga_small.toml");
    let runs = [(4, 0.0, 0.0, 20), (5, 0.4, 0.3, 60)];
    run(&cfg, None, 2000, &runs);
    every_combination(&cfg);
    // Truncation toward zero where GL's floor needs the bits shifted out below the point:
    // a negative coordinate that is not a whole number of weight steps then reads a
    // weight one step off (and, at a texel boundary, the texel to its right).
    assert!(
        !run(
            &cfg,
            Some(("neg ? inexact : 1'b1", "neg ? 1'b0 : 1'b1")),
            2000,
            &runs
        ),
        "a truncated negative coordinate must fail"
    );
}

#[test]
fn embedded_default_one_lane_every_format_matches_the_model() {
    // All eight formats, 10-bit weights, fp32 output, one lane (explicit LOD or 0).
    let cfg = gpurtl::config::load(None).expect("embedded default");
    run(&cfg, None, 1000, &[(6, 0.3, 0.3, 40)]);
    every_combination(&cfg);
}

/// The front's stages follow the clock: at 50 MHz the embedded default's nine address
/// stages share three clocks (AddrPipe) and the LOD's six selection stages three
/// (LodPipe), with the descriptor read in the first; the unit with the shorter pipeline
/// still matches the model, under gaps, stalls and memory latency.
#[test]
fn a_slow_target_merges_the_front_stages_and_stays_exact() {
    let default = gpurtl::config::load(None).expect("embedded default");
    let text = std::fs::read_to_string(project_dir().join("configs/default.toml"))
        .expect("default.toml")
        .replace("target_mhz = 200.0", "target_mhz = 50.0");
    let cfg = parse(&text, "slow default");
    // Registers: skids, and pipeline registers where credits keep the stages from
    // stalling (tmu_addr at both clocks: AddrPipe::credits).
    let skids = |cfg: &Config, kind: &str| {
        let (name, text) = module_of(&elaborate(cfg), kind);
        let skid = format!("{}hs_skid #(", cfg.design.module_prefix);
        let regs = text.matches(&skid).count() + text.matches("// Pipeline register (").count();
        (name, regs)
    };
    let (name, fast) = skids(&default, "tmu_addr");
    assert_eq!(
        fast, 9,
        "{name} at 200 MHz: a register after each of nine stages"
    );
    assert_eq!(
        skids(&cfg, "tmu_addr").1,
        3,
        "{name} at 50 MHz: three clocks"
    );
    // The input's, the descriptor's and the six selection stages' registers at 200 MHz;
    // at 50 the input's and three.
    let (name, fast) = skids(&default, "tmu_lod");
    assert_eq!(fast, 8, "{name} at 200 MHz");
    assert_eq!(skids(&cfg, "tmu_lod").1, 4, "{name} at 50 MHz");
    run(&cfg, None, 1000, &[(12, 0.3, 0.3, 40), (13, 0.0, 0.0, 1)]);
}

/// Four lanes at 25 MHz: the quads' LOD stages (differences, rho^2, normalisation, four
/// of squarings) share clocks too, seven in three (LodPipe), and the unit still matches
/// the model.
#[test]
fn a_slow_four_lane_target_merges_the_quad_lod_stages_and_stays_exact() {
    let preset_text = std::fs::read_to_string(project_dir().join("configs/seed001_tmu.toml"))
        .expect("seed001_tmu.toml");
    let text = preset_text.replace("target_mhz = 200.0", "target_mhz = 25.0");
    assert_ne!(text, preset_text, "the preset's clock line moved");
    let cfg = parse(&text, "slow seed001");
    // A skid's instance, or a pipeline register (with credits: lod_credits).
    let quad_regs = |cfg: &Config| {
        let (_, text) = module_of(&elaborate(cfg), "tmu_lod");
        [
            "u_diff", "u_rho", "u_norm", "u_sq0", "u_sq1", "u_sq2", "u_sq3",
        ]
        .iter()
        .filter(|inst| {
            text.contains(&format!("{inst} (")) || text.contains(&format!("register ({inst})"))
        })
        .count()
    };
    assert_eq!(quad_regs(&preset("seed001_tmu.toml")), 7, "at 200 MHz");
    assert_eq!(quad_regs(&cfg), 2, "at 25 MHz: rho's and sq1's registers");
    run(&cfg, None, 600, &[(14, 0.3, 0.3, 40), (15, 0.0, 0.0, 1)]);
}

/// Eight lanes, two quads a request with their own LODs, levels and trilinear passes (a
/// request takes the larger pass count; the other quad skips the second pass's reads).
/// One build (about a minute of CPU: a 32-port cache and 8 filter lanes), two seeds.
#[test]
fn eight_lanes_two_quads_with_their_own_lods_match_the_model() {
    let cfg = parse(EIGHT_LANES_TOML, "eight lanes");
    let tmu = cfg.tmu.as_ref().expect("tmu");
    let runs = [(7, 0.3, 0.3, 40), (8, 0.1, 0.5, 100)];
    // The traffic has requests whose quads need different pass counts (one trilinear,
    // one not): the case a unit that followed quad 0 alone would get wrong.
    let mixed: u64 = runs
        .iter()
        .map(|&(seed, ..)| {
            let mut m = unit::TmuModel::new(tmu, unit::Memory::new());
            unit::random_commands(tmu, 600, seed).iter().for_each(|c| {
                m.step(c);
            });
            m.mixed_passes.get()
        })
        .sum();
    assert!(mixed >= 10, "{mixed} requests with mixed pass counts");
    run(&cfg, None, 600, &runs);
}

/// tmu_lod's register and control-field localparams are the contract's tables.
#[test]
fn rendered_register_map_matches_the_tables() {
    use gpurtl::iface::tmu::{CTRL_FIELDS, REGS, ctrl_lsb_name, ctrl_w};
    let cfg = preset("default.toml");
    let design = elaborate(&cfg);
    let lod = design
        .modules
        .iter()
        .find(|m| m.kind == "tmu_lod")
        .expect("tmu_lod module");
    let lines: Vec<String> = lod
        .text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let has = |l: String| assert!(lines.contains(&l), "missing `{l}`");
    has(format!(
        "localparam integer CtrlW = {}; // the control register's fields",
        ctrl_w()
    ));
    for (name, lsb, _) in CTRL_FIELDS {
        has(format!(
            "localparam integer {} = {lsb};",
            ctrl_lsb_name(name)
        ));
    }
    let reg_w = lines
        .iter()
        .find_map(|l| l.strip_prefix("localparam integer RegW = "))
        .and_then(|v| v.trim_end_matches(';').parse::<u32>().ok())
        .expect("RegW");
    for (name, value) in REGS {
        has(format!("localparam [RegW-1:0] {name} = {reg_w}'d{value};"));
    }
}

/// tmu_addr's plan-quad and pass-quad localparams are the tables in rtl::tmu, and its lane
/// width is the contract's.
#[test]
fn rendered_quad_layouts_match_the_tables() {
    use gpurtl::iface::field::{lsb_params, width};
    use gpurtl::iface::tmu::LANE_W;
    use gpurtl::rtl::tmu::{pass_quad_fields, plan_quad_fields};
    let cfg = preset("default.toml");
    let design = elaborate(&cfg);
    let text = |kind: &str| -> Vec<String> {
        design
            .modules
            .iter()
            .find(|m| m.kind == kind)
            .unwrap_or_else(|| panic!("{kind} module"))
            .text
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    let addr = text("tmu_addr");
    let lod = text("tmu_lod");
    let has = |lines: &[String], l: String| {
        assert!(lines.iter().any(|x| x.starts_with(&l)), "missing `{l}`")
    };
    for (word, fields) in [
        ("PlanQuad", plan_quad_fields()),
        ("PassQuad", pass_quad_fields()),
    ] {
        for (name, lsb) in lsb_params(word, &fields) {
            has(&addr, format!("localparam integer {name} = {lsb};"));
        }
    }
    let pq = width(&plan_quad_fields());
    has(&addr, format!("localparam integer PQuadW = {pq};"));
    has(&lod, format!("localparam integer QuadW = {pq};"));
    let cq = width(&pass_quad_fields());
    has(&addr, format!("localparam integer CQuadW = {cq};"));
    for lines in [&addr, &lod] {
        has(lines, format!("localparam integer LaneW = {LANE_W};"));
    }
}

/// Every packed word tmu_lod and tmu_addr slice (the command, the descriptor, the carried
/// sample, the differences, the log state, the plan, a level, the words between tmu_addr's
/// stages and a pass lane) is rendered from its table: each `<Word><Field>Lsb` and width.
#[test]
fn rendered_word_layouts_match_the_tables() {
    use gpurtl::iface::field::{Field, width};
    use gpurtl::iface::tex_cache::CacheLayout;
    use gpurtl::iface::tex_filter::FilterLayout;
    use gpurtl::iface::tmu::{DIFF_W, TmuLayout, desc_fields};
    use gpurtl::rtl::align::localparams;
    use gpurtl::rtl::tmu::{
        K_TERMS_W, carry_fields, conv_fields, conv_lane_fields, coord_fields, coord_lane_fields,
        diff_fields, fixed_lane_fields, level_fields, level_word_fields, lod_class_fields,
        lod_cmp_fields, lod_pick_fields, log_quad_fields, mid_fields, pass_fields,
        pass_lane_fields, plan_fields, pre_fields, side_fields, word_fields,
    };
    // Four lanes (LOD from the quad's differences) and eight (two quads).
    for cfg in [
        preset("seed001_tmu.toml"),
        parse(EIGHT_LANES_TOML, "eight lanes"),
    ] {
        let tmu = cfg.tmu.clone().expect("tmu");
        let design = elaborate(&cfg);
        let params = |kind: &str| {
            localparams(
                &design
                    .modules
                    .iter()
                    .find(|m| m.kind == kind)
                    .unwrap_or_else(|| panic!("{kind} module"))
                    .text,
            )
        };
        let (lod, addr, top) = (params("tmu_lod"), params("tmu_addr"), params("tmu"));
        let check = |p: &std::collections::BTreeMap<String, u64>, word: &str, fields: &[Field]| {
            for f in fields {
                let n = format!("{word}{}Lsb", f.name);
                assert_eq!(p.get(&n), Some(&u64::from(f.lsb)), "{n}");
            }
        };
        let layout = TmuLayout::new(&tmu);
        let quads = tmu.quads();
        check(&lod, "Write", &layout.write_fields());
        // The LOD reads only a sample's lanes and texture; the rest travel on whole.
        let sample: Vec<Field> = layout
            .sample_fields()
            .into_iter()
            .filter(|f| ["Lanes", "Tex"].contains(&f.name))
            .collect();
        check(&lod, "Sample", &sample);
        check(&lod, "Desc", &desc_fields());
        check(&lod, "P0", &carry_fields(&layout));
        check(&lod, "Diff", &diff_fields());
        check(&lod, "LogQuad", &log_quad_fields());
        check(&lod, "Level", &level_fields());
        check(&lod, "Cmp", &lod_cmp_fields());
        check(&lod, "Class", &lod_class_fields());
        check(&lod, "Pick", &lod_pick_fields());
        for (name, fields) in [
            ("CmpW", lod_cmp_fields()),
            ("ClassW", lod_class_fields()),
            ("PickW", lod_pick_fields()),
        ] {
            assert_eq!(lod.get(name), Some(&u64::from(width(&fields))), "{name}");
        }
        let plan = plan_fields(tmu.lanes, quads);
        let coord = coord_fields(tmu.lanes, quads, tmu.weight_bits);
        let c_lane = coord_lane_fields(tmu.weight_bits);
        let fl = FilterLayout::new(&tmu);
        let s_lane = pass_lane_fields(tmu.weight_bits, fl.sub_w);
        let side = side_fields(tmu.lanes, quads, tmu.weight_bits, fl.sub_w);
        let pass = pass_fields(tmu.lanes, quads, tmu.weight_bits, fl.sub_w);
        // The pass's level (Lv), then the conversion's three clocks: exponent (E) and
        // shift (M), whose heads pass on whole (only their lanes are named), sum (F).
        let w = tmu.weight_bits;
        let lv_word = level_word_fields(tmu.lanes, quads);
        let lv_lane = conv_lane_fields(32);
        let e_lane = conv_lane_fields(width(&pre_fields()));
        let m_lane = conv_lane_fields(width(&mid_fields(w)));
        let f_lane = fixed_lane_fields(w);
        let e_word: Vec<Field> = conv_fields(tmu.lanes, quads, width(&e_lane))
            .into_iter()
            .filter(|f| f.name == "Lanes")
            .collect();
        let f_word = conv_fields(tmu.lanes, quads, width(&f_lane));
        let pre = pre_fields();
        let mid = mid_fields(w);
        for (p, word, fields) in [
            (&addr, "Lv", &lv_word),
            (&addr, "LvLane", &lv_lane),
            (&addr, "E", &e_word),
            (&addr, "ELane", &e_lane),
            (&addr, "Pre", &pre),
            (&addr, "MLane", &m_lane),
            (&addr, "Mid", &mid),
            (&addr, "F", &f_word),
            (&addr, "FLane", &f_lane),
            (&addr, "W", &word_fields(tmu.lanes, quads, w, fl.sub_w)),
            (&lod, "Plan", &plan),
            (&addr, "Plan", &plan),
            (&addr, "C", &coord),
            (&addr, "CLane", &c_lane),
            (&addr, "SLane", &s_lane),
            (&addr, "Pass", &pass),
            (&addr, "Side", &side),
            (&top, "Pass", &pass),
            (&top, "Side", &side),
            (&top, "SLane", &s_lane),
            (&top, "FReq", &fl.req_fields()),
            (&top, "FLane", &fl.lane_fields()),
            (&top, "FTex", &fl.texel_fields()),
        ] {
            check(p, word, fields);
        }
        // The datapath widths every TMU module names are the contract's.
        use gpurtl::iface::tmu::widths;
        for (n, w, _) in widths(&[
            "AddrW",
            "WordW",
            "LgW",
            "CoordW",
            "WrapW",
            "FormatW",
            "BlendW",
            "PassCodeW",
        ]) {
            for p in [&lod, &addr, &top] {
                if let Some(v) = p.get(n) {
                    assert_eq!(*v, u64::from(w), "{n}");
                }
            }
        }
        assert_eq!(addr.get("CoordW"), Some(&15), "levels up to 2^15 texels");
        assert_eq!(top.get("FReqW"), Some(&u64::from(fl.req_w)), "FReqW");
        for (p, n, w) in [
            (&lod, "SampleW", width(&layout.sample_fields())),
            (&lod, "DescW", width(&desc_fields())),
            (&lod, "P0W", width(&carry_fields(&layout))),
            (&lod, "DeltaW", DIFF_W),
            (&lod, "DiffW", width(&diff_fields())),
            (&lod, "LogQuadW", width(&log_quad_fields())),
            (&lod, "LevelW", width(&level_fields())),
            (&lod, "PlanW", width(&plan)),
            (&addr, "LevelW", width(&level_fields())),
            (&addr, "LvW", width(&lv_word)),
            (&addr, "LvLaneW", width(&lv_lane)),
            (&addr, "KTermsW", K_TERMS_W),
            (&addr, "C1W", width(&coord)),
            (&addr, "CLaneW", width(&c_lane)),
            (&addr, "SLaneW", width(&s_lane)),
            (&addr, "OutW", width(&pass)),
            (&top, "PassW", width(&pass)),
            (&top, "SideW", width(&side)),
            (&top, "SLaneW", width(&s_lane)),
            (&top, "FLaneW", fl.lane_w),
            (&top, "CRspW", CacheLayout::new(&tmu.cache).rsp_w),
            (&top, "CRspHitsLsb", CacheLayout::new(&tmu.cache).hits_lsb()),
        ] {
            assert_eq!(p.get(n), Some(&u64::from(w)), "{n}");
        }
        // The address stage's format and pass codes are the tables' codes.
        use gpurtl::config::TexFormat;
        use gpurtl::iface::tex_filter::{PASS_FIRST, PASS_SECOND, PASS_SINGLE};
        for (n, code) in [
            ("FmtRgba8888", TexFormat::Rgba8888.code()),
            ("FmtL8", TexFormat::L8.code()),
            ("FmtA8", TexFormat::A8.code()),
            ("FmtDxt1", TexFormat::Dxt1.code()),
            ("PassSingle", PASS_SINGLE),
            ("PassFirst", PASS_FIRST),
            ("PassSecond", PASS_SECOND),
        ] {
            assert_eq!(addr.get(n), Some(&u64::from(code)), "{n}");
        }
        // The level choice's filter codes, and the property it reads from bit 0 of one.
        use gpurtl::config::Filter;
        for f in Filter::ALL.into_iter().filter(|f| *f != Filter::Nearest) {
            let n = gpurtl::iface::mem_mgr::upper_camel("Filter", f.name());
            assert_eq!(lod.get(&n), Some(&u64::from(f.code())), "{n}");
        }
        for f in Filter::ALL {
            let linear = matches!(
                f,
                Filter::Linear | Filter::LinearMipmapNearest | Filter::LinearMipmapLinear
            );
            assert_eq!(f.code() & 1 == 1, linear, "bit 0 of {}", f.name());
        }
        let addr_text = &design
            .modules
            .iter()
            .find(|m| m.kind == "tmu_addr")
            .expect("tmu_addr")
            .text;
        assert!(
            addr_text.contains("(format == FmtL8 || format == FmtA8) ? 2'd2"),
            "four texels a word: the 8-bit formats"
        );
    }
}

/// The text of the named Verilog functions of a module, one after the other.
fn functions_of(text: &str, names: &[&str]) -> String {
    names
        .iter()
        .map(|name| {
            // A vector-valued function or a one-bit one.
            let at = text
                .find(&format!("] {name};\n"))
                .or_else(|| text.find(&format!("automatic {name};\n")))
                .unwrap_or_else(|| panic!("a function {name}"));
            let start = text[..at].rfind("function automatic").expect("its start");
            let end = at + text[at..].find("endfunction").expect("its end") + "endfunction".len();
            format!("{}\n", &text[start..end])
        })
        .collect()
}

/// The name and text of the design's module of `kind`.
fn module_of(design: &gpurtl::rtl::Design, kind: &str) -> (String, String) {
    design
        .modules
        .iter()
        .find(|m| m.kind == kind)
        .map(|m| (m.name.clone(), m.text.clone()))
        .unwrap_or_else(|| panic!("a {kind} module"))
}

/// Proves (Yosys `sat`: every fp32 coordinate, every k, level size, wrap mode and filter)
/// that tmu_addr's narrow conversion (its `coord_pre`, `coord_coarse`, `coord_align`,
/// `coord_sum` and `coord_sel`, then `wrap` of the index and of the index + 1 it also gives) gives the texels and the weight that the 64-bit
/// `tmu_fixed` gives with the wraps on 64-bit values (written out here as tmu_addr had
/// them). Variants that saturate from half the largest level on, forget the bits shifted out past
/// 2^NB, shift right coarsely by a multiple of 4 (not 8), or step the second texel by less
/// than a texel, are refuted, so the proof is not vacuous.
#[test]
fn narrow_coordinate_conversion_equals_the_64_bit_one() {
    let cfg = preset("seed001_tmu.toml");
    let design = elaborate(&cfg);
    let text_of = |kind: &str| module_of(&design, kind);
    let (fixed_name, fixed_text) = text_of("tmu_fixed");
    let (_, addr_text) = text_of("tmu_addr");
    let wbits = cfg.tmu.as_ref().expect("tmu").weight_bits;
    // tmu_addr's constants and its three functions, in a module of their own.
    let consts: String = addr_text
        .lines()
        .filter(|l| l.trim_start().starts_with("localparam"))
        .map(|l| format!("{l}\n"))
        .collect();
    let functions = functions_of(
        &addr_text,
        &[
            "wrap",
            "k_terms",
            "coord_pre",
            "at_least",
            "coord_coarse",
            "coord_align",
            "coord_sum",
            "coord_sel",
        ],
    );
    let prove = |functions: &str, tag: &str| {
        let dir = scratch(tag);
        std::fs::write(dir.join("fixed.v"), &fixed_text).expect("writes");
        std::fs::write(
            dir.join("equiv.v"),
            format!(
                "module coord_equiv #(parameter integer WBits = {wbits}) (\n\
                 input wire [31:0] s, input wire [3:0] lg, input wire [1:0] mode,\n\
                 input wire linear, output wire ok);\n\
                 {consts}{functions}\n\
                 // The reference: tmu_fixed, the arithmetic shift, the 64-bit wraps.\n\
                 function automatic [CoordW-1:0] wrap64;\n\
                 input [63:0] i; input [LgW-1:0] lg; input [WrapW-1:0] mode;\n\
                 reg [CoordW-1:0] mask; reg [CoordW:0] m; reg [CoordW-1:0] mir;\n\
                 begin\n\
                 mask = ~({{CoordW{{1'b1}}}} << lg);\n\
                 m = i[CoordW:0] & {{mask, 1'b1}};\n\
                 mir = mask - m[CoordW-1:0] + mask + 1'b1;\n\
                 case (mode)\n\
                 Clamp: wrap64 = i[63] ? {{CoordW{{1'b0}}}} : ((|i[62:CoordW] || i[CoordW-1:0] > mask) ? mask : i[CoordW-1:0]);\n\
                 Mirror: wrap64 = (m > {{1'b0, mask}}) ? mir : m[CoordW-1:0];\n\
                 default: wrap64 = i[CoordW-1:0] & mask;\n\
                 endcase\n\
                 end\n\
                 endfunction\n\
                 wire [4:0] k = {{1'b0, lg}} + (linear ? WBits[4:0] : 5'd0);\n\
                 wire sat = (mode == Clamp);\n\
                 wire [63:0] f;\n\
                 {fixed_name} #(.KW(5), .HalfLsb(WBits - 1)) u_ref (.s_i(s), .k_i(k), .sat_i(sat), .half_i(linear), .fixed_o(f));\n\
                 wire signed [63:0] f_sh = $signed(f) >>> WBits;\n\
                 wire [63:0] i_ref = linear ? f_sh : f;\n\
                 wire [WBits-1:0] a_ref = linear ? f[WBits-1:0] : {{WBits{{1'b0}}}};\n\
                 wire [2*(CoordW+2)+WBits-1:0] n = coord_sel(coord_sum(coord_align(coord_coarse(coord_pre(s, k_terms(lg, linear), sat))), linear), linear, sat);\n\
                 wire [CoordW+1:0] i_n = n[WBits +: CoordW + 2];\n\
                 wire [CoordW+1:0] i_n1 = n[WBits + CoordW + 2 +: CoordW + 2];\n\
                 assign ok = (n[0 +: WBits] == a_ref)\n\
                 & (wrap(i_n, lg, mode) == wrap64(i_ref, lg, mode))\n\
                 & (wrap(i_n1, lg, mode) == wrap64(i_ref + 64'd1, lg, mode));\n\
                 endmodule\n"
            ),
        )
        .expect("writes");
        tool(
            "yosys",
            &[
                "-q",
                "-p",
                "read_verilog fixed.v equiv.v; prep -top coord_equiv; flatten; sat -prove ok 1 -verify",
            ],
            &dir,
        )
    };
    let out = prove(&functions, "coord-equiv");
    assert!(out.status.success(), "not equal: {}", text(&out));
    for (from, to, what) in [
        (
            "(mag >= (linear ? GtLinear : GtNearest))",
            "(mag >= ((linear ? GtLinear : GtNearest) >> 1))",
            "saturating from half the largest level on",
        ),
        (
            "(c[CoarseInfLsb] | (c[CoarseHiLsb +: 24] != 24'd0))",
            "c[CoarseInfLsb]",
            "ignoring the bits shifted past 2^NB",
        ),
        (
            "mant >> {nsh[4:3], 3'b000}",
            "mant >> {nsh[4:3], 2'b00}",
            "a coarse right shift by a multiple of 4, not 8",
        ),
        (
            "~HalfV + StepV",
            "~HalfV + 1'b1",
            "stepping the second texel by a fraction's unit",
        ),
    ] {
        let broken = functions.replace(from, to);
        assert_ne!(broken, functions, "the mutation ({what}) applies");
        let out = prove(&broken, "coord-equiv-broken");
        assert!(!out.status.success(), "{what} must be refuted");
    }
}

/// Proves (Yosys `sat`, every fp32 input) that tmu_lod's `lod_post(lod_pre(s))`, x + c, equals `tmu_fixed`
/// with k = 8, saturating, clamped to 16 bits: the narrow conversion tmu_lod uses for an
/// explicit LOD in place of the 64-bit one. A variant that saturates one exponent late is
/// refuted, so the proof is not vacuous.
#[test]
fn explicit_lod_conversion_equals_the_general_converter() {
    let cfg = preset("seed001_tmu.toml");
    let design = elaborate(&cfg);
    let text_of = |kind: &str| module_of(&design, kind);
    let (fixed_name, fixed_text) = text_of("tmu_fixed");
    let (_, lod_text) = text_of("tmu_lod");
    // Its two halves, the exponent (a clock) and the shift (the next one).
    let function = functions_of(&lod_text, &["lod_pre", "lod_post"]);
    let function = function.as_str();
    // The localparams the halves read (the LodPre layout).
    let consts: String = lod_text
        .lines()
        .filter(|l| l.trim_start().starts_with("localparam") && l.contains("LodPre"))
        .map(|l| format!("{l}\n"))
        .collect();
    let prove = |function: &str, tag: &str| {
        let dir = scratch(tag);
        std::fs::write(dir.join("fixed.v"), &fixed_text).expect("writes");
        std::fs::write(
            dir.join("equiv.v"),
            format!(
                "module lod_equiv (input wire [31:0] s, output wire ok);\n{consts}{function}\n\
                 wire [63:0] f;\n\
                 {fixed_name} #(.KW(5)) u_ref (.s_i(s), .k_i(5'd8), .sat_i(1'b1), .half_i(1'b0), .fixed_o(f));\n\
                 wire [15:0] ref = ($signed(f) < -64'sd32768) ? 16'h8000\n\
                 : ($signed(f) > 64'sd32767) ? 16'h7fff : f[15:0];\n\
                 wire [17:0] xc = lod_post(lod_pre(s));\n\
                 assign ok = (xc[17:1] + {{16'd0, xc[0]}} == {{ref[15], ref}});\nendmodule\n"
            ),
        )
        .expect("writes");
        tool(
            "yosys",
            &[
                "-q",
                "-p",
                "read_verilog fixed.v equiv.v; prep -top lod_equiv; flatten; sat -prove ok 1 -verify",
            ],
            &dir,
        )
    };
    let out = prove(function, "lod-equiv");
    assert!(out.status.success(), "not equal: {}", text(&out));
    let late = function.replace("8'd142", "8'd143");
    assert_ne!(late, function, "the mutation applies");
    let out = prove(&late, "lod-equiv-late");
    assert!(
        !out.status.success(),
        "a late saturation point must be refuted"
    );
}

/// Proves (Yosys `sat`, every fp32 input, every k, both saturation modes) that
/// `tmu_fixed` with `half_i` is floor(s * 2^k) - 2^HalfLsb in its one carry chain: equal
/// to the plain conversion (written out here as it was before the half-texel step moved
/// into it) minus the half. A variant with the negative case's carry-in flipped is
/// refuted.
#[test]
fn fixed_point_conversion_with_the_half_texel_equals_convert_then_subtract() {
    let cfg = preset("seed001_tmu.toml");
    let design = elaborate(&cfg);
    let fixed = design
        .modules
        .iter()
        .find(|m| m.name.ends_with("tmu_fixed"))
        .expect("a tmu_fixed module");
    let reference = "module fixed_ref (input wire [31:0] s_i, input wire [4:0] k_i, input wire sat_i,\n\
        output wire [63:0] fixed_o);\n\
        wire neg = s_i[31];\n\
        wire [7:0] e = s_i[30:23];\n\
        wire ones = (e == 8'hff);\n\
        wire nan = ones & (s_i[22:0] != 23'd0);\n\
        wire inf = ones & (s_i[22:0] == 23'd0);\n\
        wire [23:0] mant = {(e != 8'd0), s_i[22:0]};\n\
        wire [7:0] e1 = (e == 8'd0) ? 8'd1 : e;\n\
        wire signed [10:0] sh = $signed({3'd0, e1}) - 11'sd150 + $signed({6'd0, k_i});\n\
        wire signed [10:0] nsh = -sh;\n\
        wire left = ~sh[10];\n\
        wire [63:0] m64 = {40'd0, mant};\n\
        wire [63:0] mag = left ? ((sh >= 11'sd64) ? 64'd0 : (m64 << sh[5:0]))\n\
                               : ((nsh >= 11'sd64) ? 64'd0 : (m64 >> nsh[5:0]));\n\
        wire [23:0] low = (nsh >= 11'sd24) ? 24'hff_ffff : ((24'd1 << nsh[4:0]) - 24'd1);\n\
        wire inexact = ~left & ((mant & low) != 24'd0);\n\
        wire [63:0] value = neg ? (~mag + {63'd0, ~inexact}) : mag;\n\
        wire over = sat_i & (sh > 11'sd38);\n\
        wire [63:0] sat_v = neg ? 64'hc000_0000_0000_0000 : 64'h4000_0000_0000_0000;\n\
        assign fixed_o = nan ? 64'd0 : inf ? (sat_i ? sat_v : 64'd0) : over ? sat_v : value;\n\
        endmodule\n";
    let prove = |text: &str, tag: &str| {
        let dir = scratch(tag);
        std::fs::write(dir.join("fixed.v"), text).expect("writes");
        std::fs::write(
            dir.join("equiv.v"),
            format!(
                "{reference}\
                 module half_equiv (input wire [31:0] s, input wire [4:0] k, input wire sat,\n\
                 input wire half, output wire ok);\n\
                 wire [63:0] got;\n\
                 wire [63:0] want;\n\
                 {name} #(.KW(5), .HalfLsb(7)) u_new (.s_i(s), .k_i(k), .sat_i(sat), .half_i(half), .fixed_o(got));\n\
                 fixed_ref u_ref (.s_i(s), .k_i(k), .sat_i(sat), .fixed_o(want));\n\
                 assign ok = (got == want - (half ? 64'd128 : 64'd0));\nendmodule\n",
                name = fixed.name
            ),
        )
        .expect("writes");
        tool(
            "yosys",
            &[
                "-q",
                "-p",
                "read_verilog fixed.v equiv.v; prep -top half_equiv; flatten; sat -prove ok 1 -verify",
            ],
            &dir,
        )
    };
    let out = prove(&fixed.text, "half-equiv");
    assert!(out.status.success(), "not equal: {}", text(&out));
    let broken = fixed
        .text
        .replace("neg ? inexact : 1'b1", "neg ? ~inexact : 1'b1");
    assert_ne!(broken, fixed.text, "the mutation applies");
    let out = prove(&broken, "half-equiv-broken");
    assert!(!out.status.success(), "a flipped carry-in must be refuted");
}

#[test]
fn hits_flow_at_the_units_full_rate() {
    // A request a clock on hits, every lane's four texels (issue 20's throughput): the
    // marginal rate of two runs over a magnified texture, at the default's one lane and
    // the seed's four (whose cache reads its addresses a clock after the issue, so its
    // response queue holds a credit's longer trip).
    for name in ["default.toml", "seed001_tmu.toml"] {
        let cfg = preset(name);
        let full = 4.0 * f64::from(cfg.tmu.as_ref().expect("tmu").lanes);
        let run = |n: usize| {
            let (texels, report) =
                gpurtl::sim::tmu::magnified_hits(&cfg, n, &work_dir()).expect("simulates");
            assert!(report.passed, "{name}, {n} requests: {:?}", report.errors);
            (texels, report.cycles)
        };
        let (short, long) = (run(96), run(192));
        let rate = (long.0 - short.0) as f64 / (long.1 - short.1) as f64;
        assert!(
            (rate - full).abs() < 1e-9,
            "{name}: {rate} texels a clock on hits, not {full} ({short:?}, {long:?})"
        );
    }
}
