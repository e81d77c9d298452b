//! Co-simulation of the `tex_cache` unit against the tag model: every response's texel
//! words and its hit and miss counts, for direct-mapped, set-associative and fully
//! associative caches, 1 and 4 lanes, both layouts and replacements, every workload,
//! under random gaps, stalls and memory latency, over several seeds.

mod common;

use common::*;
use gpurtl::config::Config;
use gpurtl::sim::{self, MemTiming, SimOptions};
use gpurtl::workload::Workload;

#[allow(clippy::too_many_arguments)]
fn cache_toml(
    name: &str,
    size: u32,
    line: u32,
    ways: u32,
    banks: u32,
    ports: u32,
    repl: &str,
    bus: u32,
    layout: &str,
) -> String {
    format!(
        "[design]\nname = \"{name}\"\nmodule_prefix = \"c_\"\n[hs_chain]\nwidth = 1\nstages = [\"bypass\"]\n\
         [tmu.cache]\nsize_bytes = {size}\nline_bytes = {line}\nways = {ways}\nbanks = {banks}\nports = {ports}\n\
         mshr_entries = 4\nreplacement = \"{repl}\"\nbus_bits = {bus}\nlayout = \"{layout}\"\nqueue_depth = 16\n"
    )
}

#[allow(clippy::too_many_arguments)]
fn cache_config(
    name: &str,
    size: u32,
    line: u32,
    ways: u32,
    banks: u32,
    ports: u32,
    repl: &str,
    bus: u32,
    layout: &str,
) -> Config {
    parse(
        &cache_toml(name, size, line, ways, banks, ports, repl, bus, layout),
        name,
    )
}

/// The same with a merge stage: the tag unit looks up `tag_ports` lines a clock, at
/// `mhz`.
#[allow(clippy::too_many_arguments)]
fn merged_config(
    name: &str,
    size: u32,
    line: u32,
    ways: u32,
    ports: u32,
    tag_ports: u32,
    repl: &str,
    layout: &str,
    mhz: f64,
) -> Config {
    let toml = cache_toml(
        name,
        size,
        line,
        ways,
        16.min(ports * 2),
        ports,
        repl,
        64,
        layout,
    )
    .replace(
        "[tmu.cache]",
        &format!("[clock]\ntarget_mhz = {mhz:?}\n[tmu.cache]"),
    );
    parse(&format!("{toml}tag_ports = {tag_ports}\n"), name)
}

/// Builds the cache once and runs `runs` = (workload, seed, gap, stall, memory) on it.
fn cosim(cfg: &Config, count: usize, runs: &[(Option<&str>, u64, f64, f64, MemTiming)]) {
    let design = elaborate(cfg);
    let unit = design.unit("tex_cache").expect("tex_cache unit");
    let (dir, _) = sim::build(cfg, &design, unit, false, &work_dir()).expect("verilates");
    for (workload, seed, gap, stall, mem) in runs {
        let opt = SimOptions {
            count,
            seed: *seed,
            gap: *gap,
            stall: *stall,
            trace: None,
            work_dir: work_dir(),
            mem: *mem,
            workload: workload.map(String::from),
            progress: None,
        };
        let r = sim::run_built(cfg, unit, &dir, true, &opt).expect("runs");
        assert!(
            r.passed,
            "{} {workload:?} seed {seed} gap {gap} stall {stall} {mem:?}: {:?} (vectors in {:?})",
            cfg.design.name, r.errors, r.vectors_dir
        );
        assert_eq!((r.transactions, r.mismatches), (count as u64, 0));
        let c = r.cache.expect("cache figures");
        assert_eq!(c.requests, count as u64);
    }
}

fn mem(latency: u64, jitter: u64, gap: f64, stall: f64) -> MemTiming {
    MemTiming {
        latency,
        jitter,
        gap,
        stall,
    }
}

/// Every workload once, each with its own seed, under gaps, stalls and a slow, jittery,
/// stalling memory.
fn every_workload_runs() -> Vec<(Option<&'static str>, u64, f64, f64, MemTiming)> {
    Workload::ALL
        .iter()
        .enumerate()
        .map(|(k, w)| {
            (
                Some(w.name()),
                k as u64 + 1,
                0.3,
                0.3,
                mem(30, 10, 0.2, 0.2),
            )
        })
        .collect()
}

#[test]
fn every_workload_on_a_four_lane_fully_associative_cache() {
    // The seed's organisation, scaled down: fully associative, LRU, 16 texels a request.
    let cfg = cache_config("fa4", 2048, 128, 16, 16, 16, "lru", 128, "tiled4x4");
    cosim(&cfg, 300, &every_workload_runs());
}

#[test]
fn a_merge_stage_folds_texels_onto_lines_for_a_narrow_tag_unit() {
    // Four lines a clock for 16 texels: a request on more lines takes a clock a group,
    // each group the tag unit's request. Fully associative LRU on every workload, where
    // the groups' order decides the ages; direct mapped on 8 texels, where a group's
    // lines collide in a set and split into passes; at 200 MHz (a register after every
    // merge stage) and 50 (the compares and first uses in one clock).
    let fa = merged_config("mfa", 2048, 128, 16, 16, 4, "lru", "tiled4x4", 200.0);
    cosim(&fa, 300, &every_workload_runs());
    for mhz in [200.0, 50.0] {
        let dm = merged_config("mdm", 1024, 64, 1, 8, 4, "fifo", "linear", mhz);
        cosim(&dm, 500, &direct_mapped_runs("random"));
    }
}

#[test]
fn broken_merges_are_caught() {
    let cfg = merged_config("mbrk", 2048, 64, 4, 16, 4, "lru", "tiled4x4", 200.0);
    let runs = [
        ("random", 1, 0.0, 2),
        ("rot30_1024", 2, 0.3, 2),
        ("min2x_256", 3, 0.3, 20),
    ];
    cosim_good(&cfg, &runs);
    // A texel in every group of its request, not only its line's.
    assert_broken_module_caught(
        &cfg,
        "tex_cache_merge",
        "&& rank[RankW-1:LeadW] == group_q;",
        ";",
        &runs,
    );
    // A line's rank counting every earlier first use, not only those before the line's.
    assert_broken_module_caught(
        &cfg,
        "tex_cache_merge",
        "= lead[gj] && row[gj:0] == {(gj+1){1'b0}};",
        "= lead[gj];",
        &runs,
    );
    // A later group's counts starting again.
    assert_broken_module_caught(
        &cfg,
        "tex_cache_tags",
        "if (adv[AdvRun] && l2_first_q) begin",
        "if (adv[AdvRun]) begin",
        &runs,
    );
    // A request's response after its first group.
    assert_broken_module_caught(
        &cfg,
        "tex_cache_expand",
        "kpass_i[KPassLastLsb] && side_i[SideFinalLsb];",
        "kpass_i[KPassLastLsb];",
        &runs,
    );
}

#[test]
fn direct_mapped_one_lane_linear_fifo() {
    // One way: requests whose lines collide in a set split into passes.
    let cfg = cache_config("dm1", 1024, 64, 1, 4, 4, "fifo", 32, "linear");
    cosim(&cfg, 600, &direct_mapped_runs("rot30_1024"));
}

/// Runs for a direct-mapped cache: the mixed stream with and without gaps, stalls and
/// latency; thrashing with a stalled memory; `last` under a stalled output.
fn direct_mapped_runs(last: &'static str) -> [(Option<&'static str>, u64, f64, f64, MemTiming); 4] {
    [
        (None, 1, 0.0, 0.0, mem(0, 0, 0.0, 0.0)),
        (None, 2, 0.3, 0.3, mem(100, 20, 0.3, 0.3)),
        (Some("thrash"), 3, 0.9, 0.0, mem(5, 5, 0.0, 0.5)),
        (Some(last), 4, 0.0, 0.9, mem(50, 0, 0.5, 0.0)),
    ]
}

#[test]
fn set_associative_four_lanes_with_a_mixed_stream() {
    let cfg = cache_config("sa4", 4096, 64, 4, 16, 16, "lru", 64, "tiled4x4");
    cosim(
        &cfg,
        500,
        &[
            (None, 1, 0.0, 0.0, mem(100, 0, 0.0, 0.0)),
            (None, 7, 0.3, 0.3, mem(100, 50, 0.3, 0.3)),
            (Some("same_line"), 8, 0.0, 0.3, mem(1, 0, 0.0, 0.0)),
        ],
    );
}

#[test]
fn a_deep_pass_queue_in_block_ram() {
    // 128 passes: the queue is hs_ram_fifo. A stalled output fills it
    // through the RAM; a slow memory with hits behind misses keeps it busy both ways.
    let cfg = parse(
        "[design]\nname = \"deepq\"\nmodule_prefix = \"c_\"\n[hs_chain]\nwidth = 1\nstages = [\"bypass\"]\n\
         [tmu.cache]\nsize_bytes = 4096\nline_bytes = 64\nways = 4\nbanks = 4\nports = 4\n\
         mshr_entries = 8\nreplacement = \"lru\"\nbus_bits = 64\nlayout = \"tiled4x4\"\nqueue_depth = 128\n",
        "deepq",
    );
    let design = elaborate(&cfg);
    assert!(
        design.modules.iter().any(|m| m.kind == "hs_ram_fifo"),
        "a 128-pass queue is kept in block RAM"
    );
    cosim(
        &cfg,
        600,
        &[
            (Some("rot30_1024"), 11, 0.0, 0.9, mem(2, 0, 0.0, 0.0)),
            (Some("rot30_1024"), 14, 0.3, 0.6, mem(2, 0, 0.0, 0.0)),
            (Some("same_line"), 15, 0.5, 0.5, mem(2, 0, 0.0, 0.0)),
            (None, 12, 0.2, 0.5, mem(100, 40, 0.2, 0.2)),
            (Some("same_line"), 13, 0.0, 0.0, mem(100, 0, 0.0, 0.0)),
        ],
    );
}

#[test]
fn cli_reports_cache_figures() {
    let out = gpurtl()
        .env("GPURTL_SIM_DIR", work_dir())
        .args([
            "sim",
            "--unit",
            "tex_cache",
            "--count",
            "200",
            "--workload",
            "one2one_256",
            "--mem-latency",
            "20",
            "--json",
        ])
        .output()
        .expect("runs gpurtl");
    assert!(out.status.success(), "{}", text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["passed"], true);
    let c = &v["cache"];
    assert_eq!(c["workload"], "one2one_256");
    let hit = c["hit_rate"].as_f64().expect("hit rate");
    assert!(hit > 0.5 && hit < 1.0, "hit rate {hit}");
    assert!(v["memory"][0]["beats"].as_u64().expect("beats") > 0);
    // Measured against the same run with an ideal memory, which cannot be slower.
    let ratio = v["latency_ratio"].as_f64().expect("latency ratio");
    let ideal = v["zero_latency_cycles"].as_u64().expect("ideal cycles");
    assert!(ratio > 0.0 && ratio <= 1.0, "ratio {ratio}");
    assert!(ideal <= v["cycles"].as_u64().expect("cycles"));

    let bad = gpurtl()
        .args(["sim", "--unit", "tex_cache", "--workload", "nosuch"])
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad).contains("unknown workload `nosuch`; allowed: mag2x_256"),
        "{}",
        text(&bad)
    );
}

/// The cache with `from` replaced by `to` in its top module must fail at least one of
/// the runs (workload, seed, output stall, memory latency) on data (a texel word).
fn assert_broken_cache_caught(cfg: &Config, from: &str, to: &str, runs: &[(&str, u64, f64, u64)]) {
    assert_broken_module_caught(cfg, "tex_cache", from, to, runs);
}

/// The same for any module of the cache (`kind` as the design lists it).
fn assert_broken_module_caught(
    cfg: &Config,
    kind: &str,
    from: &str,
    to: &str,
    runs: &[(&str, u64, f64, u64)],
) {
    let mut design = elaborate(cfg);
    let top = design
        .modules
        .iter_mut()
        .find(|m| m.kind == kind)
        .expect("cache module");
    top.text = mutate(&top.text, from, to);
    let unit = design.unit("tex_cache").expect("tex_cache unit").clone();
    let (dir, _) = sim::build(cfg, &design, &unit, false, &work_dir()).expect("verilates");
    let caught = runs.iter().any(|(workload, seed, stall, latency)| {
        let opt = SimOptions {
            count: 400,
            seed: *seed,
            gap: 0.0,
            stall: *stall,
            trace: None,
            work_dir: work_dir(),
            mem: mem(*latency, 0, 0.0, 0.0),
            workload: Some(workload.to_string()),
            progress: None,
        };
        let r = sim::run_built(cfg, &unit, &dir, false, &opt).expect("runs");
        !r.passed && r.mismatches > 0
    });
    assert!(caught, "the broken cache ({from} -> {to}) passed every run");
}

/// The cache as generated passes the runs a mutation test uses: (workload, seed, output
/// stall, memory latency), 400 requests each.
fn cosim_good(cfg: &Config, runs: &[(&str, u64, f64, u64)]) {
    let good: Vec<_> = runs
        .iter()
        .map(|(w, seed, stall, lat)| (Some(*w), *seed, 0.0, *stall, mem(*lat, 0, 0.0, 0.0)))
        .collect();
    cosim(cfg, 400, &good);
}

#[test]
fn broken_line_generations_are_caught() {
    // Victims are reused while queued passes still read them: 4 ways, 4 lanes, and a
    // stalled output keeps those passes queued while a fast memory delivers.
    let cfg = cache_config("gen4", 2048, 64, 4, 16, 16, "lru", 64, "tiled4x4");
    let runs = [
        ("thrash", 1, 0.8, 2),
        ("random", 2, 0.8, 2),
        ("rot30_1024", 3, 0.8, 2),
        ("rot30_1024", 4, 0.5, 20),
        ("rot30_256", 1, 0.8, 2),
        // With the read's address register (16 tiled banks at 200 MHz) the head pass
        // waits through an allocation on these runs, not on the ones above.
        ("rot30_256", 2, 0.8, 2),
        ("rot30_256", 4, 0.8, 5),
    ];
    // The cache as generated passes the very same runs.
    cosim_good(&cfg, &runs);
    // A fill that overwrites a line before its old readers have read it.
    assert_broken_cache_caught(
        &cfg,
        "fill_go_q    <= trk_pop ? next_go : head_go;",
        "fill_go_q    <= trk_pop ? two_fills : trk_valid;",
        &runs,
    );
    // An allocation whose count of old readers is written as none.
    assert_broken_cache_caught(
        &cfg,
        "mshr_free_q[i] <= new_ref_q == {{(RefW-1){1'b0}}, new_dec_q} + {{(RefW-1){1'b0}}, new_rd};",
        "mshr_free_q[i] <= 1'b1;",
        &runs,
    );
    // A flag that says free one read early (the count at two, not one, before its read).
    assert_broken_cache_caught(
        &cfg,
        "mshr_free_q[i] <= mshr_old_q[i] == OldCounting;",
        "mshr_free_q[i] <= mshr_old_q[i] == OldCounting + 1'b1;",
        &runs,
    );
    // The head pass's MSHR matches not following an entry written while it waits: the
    // entry's old readers' count then misses that pass's read (or takes a stale one).
    assert_broken_cache_caught(
        &cfg,
        "assign s1_match[gm]   = new_fix_q[gm] ? new_m_q : s1_match_q[gm];",
        "assign s1_match[gm]   = s1_match_q[gm];",
        &runs,
    );
    // An allocation's count of old readers that misses a read of the victim's slot
    // finishing in the clock after the allocation.
    assert_broken_cache_caught(
        &cfg,
        "wire new_rd = new_m_q && s1_done_q;",
        "wire new_rd = 1'b0;",
        &runs,
    );
    // A reader that does not wait for its own lines' fills.
    assert_broken_cache_caught(
        &cfg,
        "wire lines_ready = !avail_q[AvailW-1];",
        "wire lines_ready = avail_q[AvailW-1] | 1'b1;",
        &runs,
    );
    // A pass that leaves the tag unit without its fill count.
    assert_broken_module_caught(
        &cfg,
        "tex_cache_tags",
        "assign pass_data_o[PassFillsLsb +: FillsW] = alloc ? p_fills_q + 1'b1 : p_fills_q;",
        "assign pass_data_o[PassFillsLsb +: FillsW] = {FillsW{1'b0}};",
        &runs,
    );
}

#[test]
fn broken_read_plans_are_caught() {
    // Four lanes over 16 banks: random footprints ask some banks for two words, which
    // the plan puts in two rounds.
    // The tiled layout's 16 banks are four parity classes, read through a port per lane
    // and class; random texels put two banks of a class in one lane.
    let cfg = cache_config("plan4", 2048, 64, 4, 16, 16, "lru", 64, "tiled4x4");
    let runs = [("random", 2, 0.3, 2), ("rot30_1024", 3, 0.0, 20)];
    cosim_good(&cfg, &runs);
    // A plan that gives a texel the rounds of its own word only, not of its bank's: two
    // words of one bank are read in one round.
    assert_broken_module_caught(
        &cfg,
        "tex_cache_plan",
        "!seen && same_class && (same_index || by_class);",
        "!seen && word[gj] == word[gi];",
        &runs,
    );
    // A plan that counts per bank when a lane asks two banks of one class: the lane's
    // port for the class reads one of them.
    assert_broken_module_caught(
        &cfg,
        "tex_cache_plan",
        "(same_index || by_class);",
        "same_index;",
        &runs,
    );
    // A data stage that serves every texel in the first round.
    assert_broken_cache_caught(
        &cfg,
        "serve[i]    = s1_mask[i] && srow_q[i][0];",
        "serve[i]    = s1_mask[i];",
        &runs,
    );
    // Every lane's texels through lane 0's ports.
    assert_broken_cache_caught(
        &cfg,
        "_class_q[i]}];",
        "_class_q[i]}] | pt_data[{30'd0, s3_class_q[i]}];",
        &runs,
    );
    // A port that reads the first bank of its class, whichever its texels ask.
    assert_broken_cache_caught(
        &cfg,
        "pt_q[p]    = pt_q[p] | index_of(s1_bank[i]);",
        "pt_q[p]    = pt_q[p];",
        &runs,
    );

    // Without classes (the linear layout), the plan counts per bank.
    let cfg = cache_config("plan4l", 2048, 64, 4, 16, 16, "lru", 64, "linear");
    cosim_good(&cfg, &runs);
    assert_broken_module_caught(
        &cfg,
        "tex_cache_plan",
        "!seen && bank[gj] == bank[gi];",
        "!seen && word[gj] == word[gi];",
        &runs,
    );
}

#[test]
fn broken_tag_forwarding_and_ages_are_caught() {
    // Set associative, 4 lanes: allocations land while later requests are being looked
    // up, and LRU order decides hits on the rotated workload.
    let cfg = cache_config("tags4", 2048, 64, 4, 16, 16, "lru", 64, "tiled4x4");
    let runs = [
        ("thrash", 1, 0.0, 2),
        ("random", 2, 0.3, 2),
        ("rot30_1024", 3, 0.0, 20),
    ];
    // A lookup that keeps hitting the line its set just evicted.
    assert_broken_module_caught(
        &cfg,
        "tex_cache_tags",
        "fwd_way = way & ~victim;",
        "fwd_way = way;",
        &runs,
    );
    // A request that loads as M_ACT's allocation lands, without it.
    assert_broken_module_caught(
        &cfg,
        "tex_cache_tags",
        "load_way[i] = fwd_way(l2_way_now[i], l2_on_m_q[i], l2_in_m_q[i], alloc, 1'b0, v_q);",
        "load_way[i] = l2_way_now[i];",
        &runs,
    );
    // The forwarding's line flag from L2's line when a new request loads into L2.
    assert_broken_module_caught(
        &cfg,
        "tex_cache_tags",
        "l2_on_m_q[i] <= adv[AdvL2] ? look_line[i] == m_line_q : l2_line_q[i] == m_line_q;",
        "l2_on_m_q[i] <= l2_line_q[i] == m_line_q;",
        &runs,
    );
    // LA's tag copies: an allocation to a waiting request's set not written into its copy,
    // and one in the clock a request loads not applied to the RAM read it loads.
    assert_broken_module_caught(
        &cfg,
        "tex_cache_tags",
        "la_vld_q <= !inv_now && (la_fix || la_vld_q);",
        "la_vld_q <= !inv_now && la_vld_q;",
        &runs,
    );
    assert_broken_module_caught(
        &cfg,
        "tex_cache_tags",
        "la_tag_q <= rd_fix ? tag_of(m_line_q) : way_tag_q[set_of(rd_line)];",
        "la_tag_q <= way_tag_q[set_of(rd_line)];",
        &runs,
    );
    // The load enables' own flag copies: L2's data loading only into an empty L2, not as
    // its request moves into an empty RUN, and no stage's data moving up when M_ACT lets
    // its request go (the control's flags still do, so the stages hold stale requests).
    assert_broken_module_caught(
        &cfg,
        "tex_cache_tags",
        "adv_room_d[AdvL2]   = l2_room_d;",
        "adv_room_d[AdvL2]   = !l2_valid_d;",
        &runs,
    );
    assert_broken_module_caught(
        &cfg,
        "tex_cache_tags",
        "adv_leave_d = {AdvCopies{vict_ok && rest_hit_d}};",
        "adv_leave_d = {AdvCopies{1'b0}};",
        &runs,
    );
    // RUN's all-hit flag not updated by an allocation: the request goes back to M_VICT.
    assert_broken_module_caught(
        &cfg,
        "tex_cache_tags",
        "t_all_hit_q <= all_hit_alloc;",
        "t_all_hit_q <= t_all_hit_q;",
        &runs,
    );
    // M_ACT finishing a request whose texels left still miss.
    assert_broken_module_caught(
        &cfg,
        "tex_cache_tags",
        "rest_hit_d = 1'b0;",
        "rest_hit_d = 1'b1;",
        &runs,
    );
    // A victim picked without the hits its request committed in RUN: a line the pass
    // being built reads is replaced under it. Four lines, one set: a request's hits and
    // its miss share the set. FIFO, since under LRU those hits are the youngest ways by
    // the time one set's victim is picked, and no victim then.
    let pins = cache_config("pins4", 256, 64, 4, 4, 4, "fifo", 64, "tiled4x4");
    let pin_runs = [
        ("random", 2, 0.0, 2),
        ("rot30_256", 3, 0.0, 2),
        ("thrash", 1, 0.0, 2),
    ];
    cosim_good(&pins, &pin_runs);
    assert_broken_module_caught(
        &pins,
        "tex_cache_tags",
        "if (c_pin_q[i] && m_set_eq_q[i]) begin",
        "if (1'b0) begin",
        &pin_runs,
    );
    // Hits that do not make their way the youngest: the cache then replaces as FIFO does.
    // 512 bytes of 4 ways: on these runs the model's LRU and FIFO miss counts differ
    // (200 against 233 misses for rot30_256, seed 3).
    let small = cache_config("ages4", 512, 64, 4, 16, 16, "lru", 64, "tiled4x4");
    cosim(
        &small,
        400,
        &[
            (Some("rot30_256"), 3, 0.0, 0.0, mem(2, 0, 0.0, 0.0)),
            (Some("min2x_256"), 3, 0.0, 0.3, mem(20, 0, 0.0, 0.0)),
        ],
    );
    assert_broken_module_caught(
        &small,
        "tex_cache_tags",
        "c_touch_q <= run ? commit : (act_done ? t_pend_q : {Ports{1'b0}});",
        "c_touch_q <= {Ports{1'b0}};",
        &[("rot30_256", 3, 0.0, 2), ("min2x_256", 3, 0.3, 20)],
    );
}

#[test]
fn every_workload_on_a_fully_associative_tree_plru_cache_behind_a_merge() {
    // The seed's organisation with the replacement a 64-way set can afford, scaled down:
    // one set of 16 ways, each a tree pseudo-LRU node's half, four lines looked up a clock.
    let cfg = merged_config("pfa", 2048, 128, 16, 16, 4, "plru", "tiled4x4", 200.0);
    cosim(&cfg, 300, &every_workload_runs());
}

#[test]
fn broken_tree_plru_is_caught() {
    // Four ways in 2 sets, 16 texels a request: a request's touches land in several
    // nodes of a set in one clock, and its misses pick victims from trees its hits moved.
    let cfg = cache_config("plru4", 512, 64, 4, 16, 16, "plru", 64, "tiled4x4");
    let runs = [
        ("rot30_256", 3, 0.0, 2),
        ("min2x_256", 3, 0.3, 20),
        ("random", 2, 0.3, 2),
    ];
    cosim_good(&cfg, &runs);
    let broken = [
        // Hits that do not move the tree: it then points as allocations alone leave it.
        (
            "c_touch_q <= run ? commit : (act_done ? t_pend_q : {Ports{1'b0}});",
            "c_touch_q <= {Ports{1'b0}};",
        ),
        // The first of a clock's touches in a node decides, not the last.
        (
            "for (p = 0; p < Ports; p = p + 1) begin\n        if (thru[p]) begin",
            "for (p = Ports - 1; p >= 0; p = p - 1) begin\n        if (thru[p]) begin",
        ),
        // M_SET's copy of the tree without the hits of the clock before.
        (
            "assign s_tree_d[gn] = tree_bit(m_tree[gn], thru, lo);",
            "assign s_tree_d[gn] = m_tree[gn];",
        ),
    ];
    for (from, to) in broken {
        assert_broken_module_caught(&cfg, "tex_cache_tags", from, to, &runs);
    }
    // A root that sends the walk where it points even when the pass uses both ways
    // there. One set of four lines, so that a request's lines share it and pin its ways.
    let one = cache_config("plru1", 256, 64, 4, 4, 4, "plru", 64, "tiled4x4");
    let one_runs = [
        ("rot30_256", 3, 0.0, 2),
        ("min2x_256", 1, 0.0, 2),
        ("random", 2, 0.0, 2),
    ];
    cosim_good(&one, &one_runs);
    assert_broken_module_caught(
        &one,
        "tex_cache_tags",
        "assign go_hi[0] = s_tree[0] ? !(&s_pin_q[3:2])",
        "assign go_hi[0] = s_tree[0] ? 1'b1",
        &one_runs,
    );
}

#[test]
fn broken_lru_order_within_a_request_is_caught() {
    // One request's texels touch two ways in turn (a 2x2 footprint across lines: a b a b);
    // the way of the later texel is the younger. Broken: way b counts as the younger only
    // when every touch of way a is at one of b's own texels, so b's last touch no longer
    // decides.
    let small = cache_config("order4", 512, 64, 4, 16, 16, "lru", 64, "tiled4x4");
    assert_broken_module_caught(
        &small,
        "tex_cache_tags",
        "& ~touch_last[gu*Ports +: Ports]",
        "& ~touch_way[gu*Ports +: Ports]",
        &[
            ("rot30_256", 3, 0.0, 2),
            ("min2x_256", 3, 0.3, 20),
            ("random", 2, 0.3, 2),
        ],
    );
}

#[test]
fn the_bank_read_and_tag_lookup_depths_follow_the_clock_target_and_match_the_model() {
    // At 50 MHz the RAM's clock-to-out fits with the bank select after it: a one-clock
    // read; and the tag RAMs' read with the compare: a one-clock lookup. At 200 MHz on
    // ECP5 neither does: the RAM's output register is on, and the tags are read into
    // copies a clock before the compare.
    for (mhz, two_clock) in [(50.0, false), (200.0, true)] {
        let cfg = parse(
            &format!(
                "[design]\nname = \"clk{n}\"\n[clock]\ntarget_mhz = {mhz:?}\n\
                 [tmu.cache]\nsize_bytes = 1024\nline_bytes = 64\nways = 2\nbanks = 4\nports = 4\n\
                 mshr_entries = 4\nreplacement = \"lru\"\nbus_bits = 64\nlayout = \"tiled4x4\"\nqueue_depth = 16\n",
                n = mhz as u32
            ),
            "clk",
        );
        let design = elaborate(&cfg);
        let bank = design
            .modules
            .iter()
            .find(|m| m.kind == "tex_cache_bank")
            .expect("bank module");
        assert_eq!(
            bank.text.contains("out_q <= rdata_q;"),
            two_clock,
            "{mhz} MHz:\n{}",
            bank.text
        );
        let tags = design
            .modules
            .iter()
            .find(|m| m.kind == "tex_cache_tags")
            .expect("tag module");
        assert_eq!(tags.text.contains("la_tag_q <="), two_clock, "{mhz} MHz");
        cosim(
            &cfg,
            600,
            &[
                (None, 1, 0.2, 0.2, mem(20, 5, 0.0, 0.0)),
                (Some("rot30_256"), 2, 0.0, 0.5, mem(2, 0, 0.0, 0.0)),
            ],
        );
    }
}

/// The rendered `localparam integer <name> = <value>;` of a module, as a number.
#[test]
fn the_victim_and_the_read_address_take_a_clock_of_their_own_at_a_fast_clock() {
    // 16 ways in one set: at 200 MHz on ECP5 the victim (M_VICT) and its checks (M_PICK)
    // take a clock each; at 50 MHz they share one, and 4 ways keep one at 200 MHz too.
    let cfg_at = |ways: u32, mhz: f64| {
        merged_config(
            &format!("v{ways}_{}", mhz as u32),
            2048,
            128,
            ways,
            16,
            4,
            "plru",
            "tiled4x4",
            mhz,
        )
    };
    for (ways, mhz, pick) in [(16, 200.0, true), (16, 50.0, false), (4, 200.0, false)] {
        let cfg = cfg_at(ways, mhz);
        let design = elaborate(&cfg);
        let tags = design
            .modules
            .iter()
            .find(|m| m.kind == "tex_cache_tags")
            .expect("tag module");
        assert_eq!(
            tags.text.contains("MPick: state_d = MAct;"),
            pick,
            "{ways} ways at {mhz} MHz"
        );
        let c = &cfg.tmu.as_ref().expect("tmu").cache;
        let pipe = gpurtl::iface::tex_cache::CachePipe::new(
            c,
            &gpurtl::iface::timing::Timing::new(&cfg.clock),
        );
        assert_eq!(pipe.victim_pick, pick, "{ways} ways at {mhz} MHz");
        assert_eq!(pipe.miss_clocks(), 3 + u32::from(pick));
        // With bank classes (16 tiled banks) a bank's address takes two selects after the
        // round compare: registered at 200 MHz, not at 50.
        let fast = mhz > 100.0;
        assert_eq!(pipe.addr_reg, fast, "{ways} ways at {mhz} MHz");
        let top = design
            .modules
            .iter()
            .find(|m| m.kind == "tex_cache")
            .expect("cache module");
        assert_eq!(top.text.contains("sa_rd_addr_q[i] <= rd_addr[i];"), fast);
        // ... and the texels' serve flags come from shifted one-hot rounds.
        assert_eq!(top.text.contains("srow_q[i] <= srow_q[i] >> 1;"), fast);
    }
    // The one-clock victim over 16 ways (the two-clock one is every_workload_on_a_fully_
    // associative_tree_plru_cache_behind_a_merge's).
    cosim(&cfg_at(16, 50.0), 300, &every_workload_runs());
    // M_PICK's slot register taken from a fixed way: the fill and the pass read the
    // wrong line.
    let cfg = cfg_at(16, 200.0);
    let runs = [("rot30_256", 3, 0.0, 2), ("random", 2, 0.3, 20)];
    cosim_good(&cfg, &runs);
    assert_broken_module_caught(
        &cfg,
        "tex_cache_tags",
        "alloc_slot_q <= slot_of(m_set_q, way_index(v_q));",
        "alloc_slot_q <= slot_of(m_set_q, {WayW{1'b0}});",
        &runs,
    );
    // The rounds' rows not shifted at an issue: a pass's later rounds read nothing.
    assert_broken_module_caught(
        &cfg,
        "tex_cache",
        "srow_q[i] <= srow_q[i] >> 1;",
        "srow_q[i] <= srow_q[i];",
        &runs,
    );
    // Every texel served in the first round: the banks asked for two words read one.
    assert_broken_module_caught(
        &cfg,
        "tex_cache",
        "srow_q[i] <= OneRound << q_out[PlanRoundLsb + i * RoundW +: RoundW];",
        "srow_q[i] <= OneRound;",
        &runs,
    );
}

#[test]
fn eight_lanes_register_the_read_address_without_classes() {
    // 32 texels over 16 linear banks (no parity classes): a bank's address is an AND-OR
    // over all 32 texels, registered at 200 MHz as with classes.
    let cfg = cache_config("a32", 2048, 128, 4, 16, 32, "lru", 128, "linear");
    let c = &cfg.tmu.as_ref().expect("tmu").cache;
    assert!(c.bank_classes().is_none());
    let pipe = gpurtl::iface::tex_cache::CachePipe::new(
        c,
        &gpurtl::iface::timing::Timing::new(&cfg.clock),
    );
    assert!(pipe.addr_reg);
    cosim(
        &cfg,
        300,
        &[
            (Some("random"), 2, 0.2, 0.3, mem(20, 5, 0.1, 0.1)),
            (Some("one2one_256"), 1, 0.0, 0.3, mem(2, 0, 0.0, 0.0)),
        ],
    );
}

fn localparam(text: &str, name: &str) -> u32 {
    text.lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("localparam integer "))
        .filter_map(|l| l.trim_start().strip_prefix(name))
        .find_map(|l| {
            let v = l.trim_start().strip_prefix('=')?;
            v.split(';').next()?.trim().parse().ok()
        })
        .unwrap_or_else(|| panic!("no numeric localparam {name}"))
}

/// Runs the rendered bank functions of `cfg`'s cache (bank_of, idx_of, bank_addr) in
/// Icarus over every word offset of a line and checks them against the one Rust
/// definition, `TexCache::bank`, at several line addresses; and that each bank's
/// words get distinct addresses in it.
fn check_bank_functions(cfg: &Config) {
    let c = &cfg.tmu.as_ref().expect("tmu").cache;
    let design = elaborate(cfg);
    let top = design
        .modules
        .iter()
        .find(|m| m.kind == "tex_cache")
        .expect("tex_cache module");
    let t = &top.text;
    let start = t
        .find("function [BankW-1:0] bank_of")
        .expect("bank_of rendered");
    let addr = t[start..].find("bank_addr(input").expect("bank_addr") + start;
    let end = t[addr..].find("endfunction").expect("its end") + addr + "endfunction".len();
    let params: String = ["OffW", "BankW", "SlotW", "BankAddrW"]
        .iter()
        .map(|n| format!("  localparam integer {n} = {};\n", localparam(t, n)))
        .collect();
    let (off_w, slot_w) = (localparam(t, "OffW"), localparam(t, "SlotW"));
    assert_eq!(1 << off_w, c.words_per_line);
    let tb = format!(
        "module tb;\n{params}  {}\n  integer o;\n  reg [SlotW-1:0] slot;\n  initial begin\n    \
         slot = {{SlotW{{1'b1}}}};\n    for (o = 0; o < (1 << OffW); o = o + 1) begin\n      \
         $display(\"%0d %0d %0d\", o, bank_of(o[OffW-1:0]), bank_addr(slot, o[OffW-1:0]));\n    \
         end\n    $finish;\n  end\nendmodule\n",
        &t[start..end]
    );
    let dir = scratch("bank_fn");
    std::fs::write(dir.join("tb.v"), tb).expect("writes tb");
    let out = tool("iverilog", &["-g2005", "-o", "tb.vvp", "tb.v"], &dir);
    assert!(out.status.success(), "iverilog: {}", text(&out));
    let out = tool("vvp", &["-n", "tb.vvp"], &dir);
    assert!(out.status.success(), "vvp: {}", text(&out));
    let rows: Vec<Vec<u64>> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty() && l.chars().all(|ch| ch.is_ascii_digit() || ch == ' '))
        .map(|l| l.split(' ').map(|x| x.parse().expect("number")).collect())
        .collect();
    assert_eq!(rows.len() as u32, c.words_per_line, "{}", text(&out));
    check_class_functions(cfg, t);
    let slot_bits = ((1u64 << slot_w) - 1) << (localparam(t, "BankAddrW") - slot_w);
    let mut seen = std::collections::BTreeSet::new();
    for r in &rows {
        let (off, bank, baddr) = (r[0], r[1] as u32, r[2]);
        for line in [0u64, 1, 5, 0x3ff_fff] {
            let byte = (line * u64::from(c.words_per_line) + off) * 4;
            assert_eq!(
                bank,
                c.bank(byte),
                "{}: offset {off} of line {line}",
                cfg.design.name
            );
        }
        assert_eq!(
            baddr & slot_bits,
            slot_bits,
            "slot in the high address bits"
        );
        assert!(
            seen.insert((bank, baddr)),
            "offset {off} shares a bank word"
        );
    }
}

/// Runs the rendered class functions (class_of, index_of, bank_join) in Icarus over
/// every bank and checks them against `TexCache::bank_class`; they are rendered exactly
/// when the config has bank classes.
fn check_class_functions(cfg: &Config, t: &str) {
    let c = &cfg.tmu.as_ref().expect("tmu").cache;
    let Some(start) = t.find("function [1:0] class_of") else {
        assert!(
            c.bank_classes().is_none(),
            "{}: classes not rendered",
            cfg.design.name
        );
        return;
    };
    assert!(
        c.bank_classes().is_some(),
        "{}: classes rendered",
        cfg.design.name
    );
    let join = t[start..]
        .find("function [BankW-1:0] bank_join")
        .expect("bank_join")
        + start;
    let end = t[join..].find("endfunction").expect("its end") + join + "endfunction".len();
    let params: String = ["BankW", "IndexW"]
        .iter()
        .map(|n| format!("  localparam integer {n} = {};\n", localparam(t, n)))
        .collect();
    let tb = format!(
        "module tb;\n{params}  {}\n  integer b;\n  initial begin\n    \
         for (b = 0; b < (1 << BankW); b = b + 1) begin\n      \
         $display(\"%0d %0d %0d %0d\", b, class_of(b[BankW-1:0]), index_of(b[BankW-1:0]), \
         bank_join(class_of(b[BankW-1:0]), index_of(b[BankW-1:0])));\n    \
         end\n    $finish;\n  end\nendmodule\n",
        &t[start..end]
    );
    let dir = scratch("class_fn");
    std::fs::write(dir.join("tb.v"), tb).expect("writes tb");
    let out = tool("iverilog", &["-g2005", "-o", "tb.vvp", "tb.v"], &dir);
    assert!(out.status.success(), "iverilog: {}", text(&out));
    let out = tool("vvp", &["-n", "tb.vvp"], &dir);
    assert!(out.status.success(), "vvp: {}", text(&out));
    let rows: Vec<Vec<u32>> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty() && l.chars().all(|ch| ch.is_ascii_digit() || ch == ' '))
        .map(|l| l.split(' ').map(|x| x.parse().expect("number")).collect())
        .collect();
    assert_eq!(rows.len() as u32, c.banks, "{}", text(&out));
    // A word of each bank: its offset in the line is the bank's number spread over the
    // bank bits.
    for r in &rows {
        let (bank, class, index, joined) = (r[0], r[1], r[2], r[3]);
        let word = (0..c.banks.trailing_zeros()).fold(0u64, |w, k| {
            w | (u64::from((bank >> k) & 1) << c.bank_bit(k))
        });
        assert_eq!(c.bank(word * 4), bank, "the word's bank");
        assert_eq!(c.bank_class(word * 4), Some((class, index)), "bank {bank}");
        assert_eq!(joined, bank, "bank_join of bank {bank}'s class and index");
    }
}

#[test]
fn rendered_bank_functions_match_the_bank_mapping() {
    for (name, text) in presets() {
        let cfg = parse(&text, &name);
        if cfg.tmu.is_some() {
            check_bank_functions(&cfg);
        }
    }
    for (size, line, ways, banks, ports, bus, layout) in [
        (1024, 64, 1, 4, 4, 32, "linear"),
        (1024, 64, 1, 4, 4, 32, "tiled4x4"),
        (2048, 128, 16, 16, 16, 128, "tiled4x4"),
        (4096, 64, 4, 16, 16, 64, "linear"),
        (16384, 256, 4, 4, 8, 64, "tiled4x4"),
        (65536, 4096, 2, 16, 16, 256, "linear"),
    ] {
        let cfg = cache_config("bk", size, line, ways, banks, ports, "lru", bus, layout);
        check_bank_functions(&cfg);
    }
}

/// The rendered localparams of a queued pass are the Rust table's.
#[test]
fn rendered_pass_fields_match_the_table() {
    let cfg = cache_config("pf", 2048, 128, 16, 16, 16, "lru", 128, "tiled4x4");
    let c = &cfg.tmu.as_ref().expect("tmu").cache;
    let design = elaborate(&cfg);
    let t = &design
        .modules
        .iter()
        .find(|m| m.kind == "tex_cache")
        .expect("tex_cache module")
        .text;
    let tex_w = localparam(t, "SlotW") + localparam(t, "OffW");
    let fields = gpurtl::rtl::tex_cache::pass_fields(c.ports, tex_w);
    for f in &fields {
        let name = format!("Pass{}Lsb", f.name);
        assert_eq!(localparam(t, &name), f.lsb, "{name}");
    }
    let last = fields.last().expect("fields");
    assert_eq!(localparam(t, "PassW"), last.lsb + last.width);
    // A planned pass: the same in the cache and in its plan module.
    let plan = gpurtl::rtl::tex_cache::plan_fields(c.ports, last.lsb + last.width);
    let p = &design
        .modules
        .iter()
        .find(|m| m.kind == "tex_cache_plan")
        .expect("tex_cache_plan module")
        .text;
    for text in [t, p] {
        for f in &plan {
            let name = format!("Plan{}Lsb", f.name);
            assert_eq!(localparam(text, &name), f.lsb, "{name}");
        }
    }
    let last = plan.last().expect("fields");
    assert_eq!(localparam(t, "PlanW"), last.lsb + last.width);
    assert_eq!(
        localparam(p, "RoundW"),
        gpurtl::rtl::tex_cache::round_w(c.ports)
    );
}

#[test]
fn rendered_merge_words_match_their_tables() {
    // The tag unit's request, the side word and the tag unit's pass at 4 ports: the same
    // offsets in every module that reads or writes them.
    use gpurtl::rtl::tex_cache::{pass_fields, side_fields, side_texel_fields, tag_req_fields};
    let cfg = merged_config("mw", 2048, 128, 16, 16, 4, "lru", "tiled4x4", 200.0);
    let design = elaborate(&cfg);
    let text = |kind: &str| {
        design
            .modules
            .iter()
            .find(|m| m.kind == kind)
            .unwrap_or_else(|| panic!("{kind} module"))
            .text
            .clone()
    };
    let (merge, expand, tags, top) = (
        text("tex_cache_merge"),
        text("tex_cache_expand"),
        text("tex_cache_tags"),
        text("tex_cache"),
    );
    let treq = tag_req_fields(4);
    for f in &treq {
        assert_eq!(localparam(&merge, &format!("TReq{}Lsb", f.name)), f.lsb);
    }
    for name in ["Act", "Inv", "First", "Count"] {
        let f = gpurtl::iface::field::get(&treq, name);
        assert_eq!(localparam(&tags, &format!("Req{name}Lsb")), f.lsb, "{name}");
    }
    let stex = side_texel_fields(4, localparam(&top, "OffW"));
    let side = side_fields(16, stex.last().map_or(0, |f| f.lsb + f.width));
    for t in [&merge, &expand] {
        for f in &stex {
            assert_eq!(localparam(t, &format!("SideTex{}Lsb", f.name)), f.lsb);
        }
        for f in &side {
            assert_eq!(localparam(t, &format!("Side{}Lsb", f.name)), f.lsb);
        }
    }
    let kpass = pass_fields(4, localparam(&top, "SlotW") + localparam(&top, "OffW"));
    for f in &kpass {
        assert_eq!(localparam(&expand, &format!("KPass{}Lsb", f.name)), f.lsb);
        assert_eq!(localparam(&tags, &format!("Pass{}Lsb", f.name)), f.lsb);
    }
    assert_eq!(
        localparam(&top, "KPassLastLsb"),
        kpass.last().map_or(0, |f| f.lsb)
    );
}

/// An array that many texels (or every MSHR entry) read is generated as flops
/// (`ram_style = "logic"`): Yosys's RAM mapping tries every assignment of read ports to
/// RAM copies and runs out of memory past about 16 reads. Checked on what Yosys itself
/// collects as memories, in a 16-texel cache with 8 MSHRs; a 4-texel, 4-MSHR cache keeps
/// its small RAMs.
#[test]
fn arrays_with_many_reads_are_kept_out_of_ram_inference() {
    let mut cfg = cache_config("mr", 1024, 64, 4, 16, 16, "lru", 64, "linear");
    cfg.tmu.as_mut().expect("tmu").cache.mshr_entries = 8;
    let (dir, design) = generate(&cfg, "many-reads");
    let unit = design.unit("tex_cache").expect("tex_cache unit");
    let files: Vec<String> = design.unit_files(unit);
    let script = format!(
        "read_verilog -defer {}; hierarchy -top {top}; proc; flatten; memory_collect; \
         tee -o many.txt select -list t:$mem_v2 r:RD_PORTS>8 %i; \
         select -assert-none t:$mem_v2 r:RD_PORTS>8 %i a:ram_style=logic %d",
        files.join(" "),
        top = unit.top
    );
    let out = tool("yosys", &["-q", "-p", &script], &dir);
    assert!(
        out.status.success(),
        "a RAM with more than 8 reads is left to the tools: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let many = std::fs::read_to_string(dir.join("many.txt")).expect("select output");
    // 4 ways' tags (16 reads each) and the MSHR slots (9 reads): the rule is not idle.
    assert_eq!(
        many.lines().filter(|l| l.contains("way_tag_q")).count(),
        4,
        "{many}"
    );
    assert_eq!(
        many.lines().filter(|l| l.contains("mshr_slot_q")).count(),
        1,
        "{many}"
    );
    let small = cache_config("fr", 1024, 64, 4, 16, 4, "lru", 64, "linear");
    let small = elaborate(&small);
    assert!(
        small.modules.iter().all(|m| !m.text.contains("ram_style")),
        "4 texels and 4 MSHRs leave their arrays to the tools"
    );
}
