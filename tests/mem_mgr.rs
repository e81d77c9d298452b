//! Co-simulation of the memory manager `mem_mgr` in Verilator against the model: the
//! seed 002 preset's map (65536 pages), a small map of 6 pages where allocations run
//! out of memory all the time, and a page table in block-RAM tiles; several seeds, random
//! input gaps and output stalls; every response (code and data) checked in order. A
//! broken manager must be caught.

mod common;

use common::*;
use gpurtl::config::Config;
use gpurtl::iface::mem_mgr::{Schedule, init_clocks};
use gpurtl::iface::timing::Timing;
use gpurtl::model::mem_mgr;
use gpurtl::sim;

/// A map of `pages` 256-byte pages, 3 buffer objects, 5 display lists, 3 textures x 3
/// levels, async active-low reset.
fn small_config(pages: u64) -> Config {
    let t = format!(
        "[design]\nname = \"mm_small\"\nmodule_prefix = \"s_\"\n[reset]\nkind = \"async\"\nactive = \"low\"\n\
         [mem]\ndata_bits = 32\nmax_burst = 4\npolicy = \"fixed\"\n\
         [[mem.requesters]]\nname = \"a\"\naccess = \"both\"\nmax_burst = 4\n\
         [mem.map]\nshader_bytes = 4096\nimage_bytes = 4096\ntexture_bytes = 6144\n\
         user_bytes = {}\npage_bytes = 256\nbuffer_objects = 3\ndisplay_lists = 5\n\
         textures = 3\nmip_levels = 3\n",
        pages * 256
    );
    parse(&t, "mm_small")
}

fn seed002() -> Config {
    let text =
        std::fs::read_to_string(project_dir().join("configs/seed002_hmgpu.toml")).expect("preset");
    parse(&text, "seed002_hmgpu.toml")
}

/// Clocks the RTL takes with no gaps and no stalls: the RAMs' initialisation (one clock
/// per word of the deepest), then the schedule's clocks per command and per page hop.
fn expected_clocks(cfg: &Config, count: usize, seed: u64) -> u64 {
    let map = cfg.mem.as_ref().and_then(|m| m.map.as_ref()).expect("map");
    let sched = Schedule::for_map(&Timing::new(&cfg.clock), map);
    init_clocks(map) + mem_mgr::clocks(map, &sched, &mem_mgr::commands(map, count, seed))
}

/// `cfg` built for another target clock.
fn at_mhz(cfg: &Config, mhz: f64) -> Config {
    let mut c = cfg.clone();
    c.clock.target_mhz = mhz;
    c
}

/// Runs seeds x (gap, stall) patterns on one build; every run must pass, and a run with
/// no gaps and no stalls must take exactly the clocks the header promises.
fn cosim(cfg: &Config, count: usize, seeds: &[u64]) {
    let design = elaborate(cfg);
    let unit = design.unit("mem_mgr").expect("mem_mgr unit");
    let (dir, _) = sim::build(cfg, &design, unit, false, &work_dir()).expect("verilates");
    for &seed in seeds {
        for (gap, stall) in [(0.0, 0.0), (0.3, 0.3), (0.7, 0.6)] {
            let r = sim::run_built(cfg, unit, &dir, true, &sim_options(count, seed, gap, stall))
                .expect("runs");
            assert!(
                r.passed,
                "{}: seed {seed}, gap {gap}, stall {stall}: {:#?}",
                cfg.design.name, r.errors
            );
            assert_eq!(r.transactions, count as u64);
            if gap == 0.0 && stall == 0.0 {
                assert_eq!(r.cycles, expected_clocks(cfg, count, seed), "seed {seed}");
            }
        }
    }
}

/// 5,000 pages on iCE40 at `mhz`: deeper than one of its block RAMs (2,048), so the
/// page table is three tiles, the last one partial.
fn tiled_config(mhz: u32) -> Config {
    let t = format!(
        "[design]\nname = \"mm_tiled\"\nmodule_prefix = \"t_\"\n[clock]\nfamily = \"ice40\"\n\
         target_mhz = {mhz}.0\n[reset]\nkind = \"sync\"\nactive = \"high\"\n\
         [mem]\ndata_bits = 32\nmax_burst = 4\npolicy = \"fixed\"\n\
         [[mem.requesters]]\nname = \"a\"\naccess = \"both\"\nmax_burst = 4\n\
         [mem.map]\nshader_bytes = 4096\nimage_bytes = 4096\ntexture_bytes = 6144\n\
         user_bytes = {}\npage_bytes = 256\nbuffer_objects = 3\ndisplay_lists = 5\n\
         textures = 3\nmip_levels = 3\n",
        5000 * 256
    );
    parse(&t, "mm_tiled")
}

#[test]
fn a_tiled_page_table_matches_the_model_and_a_wrong_tile_select_is_caught() {
    // At 100 MHz the hop's address goes straight to the tiles; at 150 it is registered
    // first (StAddr) and the tiles' word after its select (StSelect): a hop takes four
    // clocks.
    for (mhz, addr_reg) in [(100, false), (150, true)] {
        let cfg = tiled_config(mhz);
        let map = cfg.mem.as_ref().and_then(|m| m.map.as_ref()).expect("map");
        let sched = Schedule::for_map(&Timing::new(&cfg.clock), map);
        assert_eq!(sched.addr_reg, addr_reg, "{mhz} MHz");
        assert_eq!(sched.hop_clocks(), 2 + 2 * u64::from(addr_reg));
        let design = elaborate(&cfg);
        let m = design
            .modules
            .iter()
            .find(|m| m.kind == "mem_mgr")
            .expect("mem_mgr module");
        let flat: String = m.text.split_whitespace().collect();
        assert!(flat.contains("localparamintegerPtTiles=3;"), "three tiles");
        // Enough commands that the free list's head passes the first tile (2,048 pages).
        cosim(&cfg, 6000, &[2, 7]);
    }
    // Every read from the first tile: pages past it read the wrong pointer.
    let opts = sim_options(6000, 2, 0.0, 0.0);
    let from_to = ("pt_tile_word[pt_rtile_out_q]", "pt_tile_word[0]");
    let r = run_mutated(&tiled_config(150), "mem_mgr", "mem_mgr", from_to, &opts);
    assert!(!r.passed && r.mismatches > 0, "{:?}", r.errors);
}

#[test]
fn small_map_runs_out_of_memory_and_matches_the_model() {
    cosim(&small_config(6), 1500, &[1, 2, 9]);
}

#[test]
fn seed002_preset_map_matches_the_model() {
    cosim(&seed002(), 2500, &[3, 4]);
}

// The four depths the ECP5 schedule chooses: one-clock reads at 50 MHz, two-clock reads
// at 70, and a registered verdict at 100, also with the words' sums registered at 200.
// The clock counts stay exact.
#[test]
fn every_depth_matches_the_model_and_its_clock_count() {
    let mut seen = Vec::new();
    for mhz in [50.0, 70.0, 100.0, 200.0] {
        let cfg = at_mhz(&small_config(6), mhz);
        let s = Schedule::for_map(
            &Timing::new(&cfg.clock),
            cfg.mem.as_ref().and_then(|m| m.map.as_ref()).expect("map"),
        );
        seen.push((s.command_clocks(), s.hop_clocks()));
        cosim(&cfg, 1000, &[5]);
    }
    assert_eq!(seen, [(2, 1), (3, 2), (4, 2), (5, 2)]);
}

#[test]
fn seed002_map_at_a_slow_target_matches_the_model() {
    cosim(&at_mhz(&seed002(), 50.0), 1500, &[6]);
}

#[test]
fn cosim_catches_a_broken_free_list() {
    // FREE links the tail to the freed object's last page instead of its first: the pages
    // before it fall off the free list, and later allocations and translations differ.
    let r = run_mutated(
        &small_config(6),
        "mem_mgr",
        "mem_mgr",
        ("pt_wdata = obj_start;", "pt_wdata = obj_end;"),
        &sim_options(1500, 5, 0.2, 0.2),
    );
    assert!(!r.passed && r.mismatches > 0, "{:?}", r.errors);
    assert!(r.vectors_dir.is_some(), "a failed run keeps its vectors");
}

#[test]
fn cosim_catches_a_texture_range_check_off_at_either_end() {
    // seed002's textures own 4 MiB each from a base 256 KiB past a 4 MiB boundary, so the
    // check is two compares of the address's high bits, each with its low bits against
    // the base's. Broken: the low bits not checked at the start (the bytes below a base
    // accepted), and the second compare's low-bit test turned round (the bytes past a
    // texture's end accepted, those at its top refused). The workload sets addresses
    // within 4 bytes of both ends.
    let map = seed002();
    let design = elaborate(&map);
    let m = design
        .modules
        .iter()
        .find(|m| m.kind == "mem_mgr")
        .expect("mem_mgr module");
    assert!(
        m.text.contains("TexLow") && m.text.contains("part_hi1"),
        "the unaligned check"
    );
    for from_to in [
        ("== part_hi) & arg_low_ge)", "== part_hi))"),
        ("== part_hi1) & ~arg_low_ge)", "== part_hi1) & arg_low_ge)"),
    ] {
        let r = run_mutated(
            &map,
            "mem_mgr",
            "mem_mgr",
            from_to,
            &sim_options(2500, 3, 0.0, 0.0),
        );
        assert!(!r.passed && r.mismatches > 0, "{from_to:?}: {:?}", r.errors);
    }
}
