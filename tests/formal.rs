//! Formal proofs of the handshake registers' protocol properties with Yosys, and proof
//! that the proofs can fail: deliberately broken variants must be caught.

mod common;

use common::*;
use gpurtl::config::StageKind;
use gpurtl::formal::prove;
use gpurtl::rtl::{Ctx, handshake};

const RESETS: [(&str, &str); 4] = [
    ("async", "low"),
    ("async", "high"),
    ("sync", "low"),
    ("sync", "high"),
];

fn module(kind: StageKind, kind_reset: &str, active: &str) -> (String, String) {
    let cfg = parse(
        &format!(
            "[design]\nname = \"f\"\nmodule_prefix = \"f_\"\n[reset]\nkind = \"{kind_reset}\"\nactive = \"{active}\"\n\
             [hs_chain]\nwidth = 8\nstages = [\"skid\"]\n"
        ),
        "formal config",
    );
    let ctx = Ctx::new(&cfg);
    let m = handshake::module_for(&ctx, kind, 8)
        .expect("renders")
        .expect("a module");
    (m.name, m.text)
}

fn assert_proof(
    kind: StageKind,
    text: &str,
    top: &str,
    extra: &[(&str, u64)],
    expect: bool,
    what: &str,
) {
    assert_proof_in(
        &kind.label().replace(':', ""),
        text,
        top,
        extra,
        expect,
        what,
    );
}

/// [`assert_proof`] in the scratch directory `formal-<label>`.
fn assert_proof_in(
    label: &str,
    text: &str,
    top: &str,
    extra: &[(&str, u64)],
    expect: bool,
    what: &str,
) {
    let mut params = vec![("Width", 8u64)];
    params.extend_from_slice(extra);
    let work = scratch(&format!("formal-{label}"));
    let proof = prove(text, top, &params, &work).expect("yosys runs");
    assert_eq!(
        proof.proven,
        expect,
        "{what}: expected the proof to {}\n{}",
        if expect { "pass" } else { "fail" },
        proof
            .log
            .lines()
            .rev()
            .take(15)
            .collect::<Vec<_>>()
            .join("\n")
    );
    if !expect {
        // It must fail on an assertion, not on a mutation that broke the syntax.
        assert!(
            proof.log.contains("proof did fail"),
            "{what}: failed for another reason:\n{}",
            proof.log
        );
    }
}

#[test]
fn bubble_and_skid_properties_hold_for_every_reset_style() {
    for (kind_reset, active) in RESETS {
        for kind in [StageKind::Bubble, StageKind::Skid] {
            let (top, text) = module(kind, kind_reset, active);
            assert_proof(
                kind,
                &text,
                &top,
                &[],
                true,
                &format!("{top} {kind_reset}/{active}"),
            );
        }
    }
}

#[test]
fn fifo_properties_hold_for_depths_1_to_5() {
    for depth in 1..=5u32 {
        let (kind_reset, active) = RESETS[depth as usize % RESETS.len()];
        let kind = StageKind::Fifo { depth };
        let (top, text) = module(kind, kind_reset, active);
        // The thermometer fill level (the default at these depths) and the binary count.
        for (thermo, label) in [(u64::from(depth), "thermometer"), (0, "binary count")] {
            assert_proof(
                kind,
                &text,
                &top,
                &[("Depth", u64::from(depth)), ("ThermoDepth", thermo)],
                true,
                &format!("fifo depth {depth}, {label}"),
            );
        }
    }
}

/// WriteAlways: the storage is written every clock, which holds only while the user
/// never fills the FIFO (its proof assumes so); without that promise the write reaches
/// the oldest item, and the proof catches it.
#[test]
fn fifo_written_every_clock_holds_while_never_full() {
    for depth in 2..=5u32 {
        let (kind_reset, active) = RESETS[depth as usize % RESETS.len()];
        let kind = StageKind::Fifo { depth };
        let (top, text) = module(kind, kind_reset, active);
        for (thermo, label) in [(u64::from(depth), "thermometer"), (0, "binary count")] {
            let params = [
                ("Depth", u64::from(depth)),
                ("ThermoDepth", thermo),
                ("WriteAlways", 1),
            ];
            let what = format!("fifo depth {depth}, {label}, written every clock");
            assert_proof(kind, &text, &top, &params, true, &what);
            let broken = mutate(
                &text,
                "assume(!(in_valid_i && f_count_q == LastIdx && !(out_valid_o && out_ready_i)));",
                "",
            );
            assert_proof(
                kind,
                &broken,
                &top,
                &params,
                false,
                &format!("{what}, without the promise"),
            );
        }
    }
}

#[test]
fn broken_skid_variants_fail_the_proof() {
    let (top, text) = module(StageKind::Skid, "async", "low");
    let cases = [
        // Ready no longer registered: an item arriving while the skid is full is lost.
        (
            "assign in_ready_o = ~skid_valid_q;",
            "assign in_ready_o = 1'b1;",
            "always ready",
        ),
        // The held output reloads from the input: data changes under stall.
        (
            "out_load     = out_ready_i | ~out_valid_q;",
            "out_load     = 1'b1;",
            "reload while stalled",
        ),
        // The skid is not drained first: order breaks.
        (
            "out_data_d   = skid_valid_q ? skid_data_q : in_data_i;",
            "out_data_d   = in_data_i;",
            "skid bypassed",
        ),
        // The skid copies the input while it holds an item: the held item is lost.
        (
            "if (skid_free_q) begin\n      skid_data_q <= in_data_i;",
            "if (1'b1) begin\n      skid_data_q <= in_data_i;",
            "skid overwritten",
        ),
    ];
    for (from, to, what) in cases {
        assert_proof(
            StageKind::Skid,
            &mutate(&text, from, to),
            &top,
            &[],
            false,
            what,
        );
    }
}

/// `hs_ram_fifo` under a reset style: (module name, text).
fn ram_fifo(kind_reset: &str, active: &str) -> (String, String) {
    let cfg = parse(
        &format!(
            "[design]\nname = \"f\"\nmodule_prefix = \"f_\"\n[reset]\nkind = \"{kind_reset}\"\nactive = \"{active}\"\n\
             [hs_chain]\nwidth = 8\nstages = [\"skid\"]\n"
        ),
        "formal config",
    );
    let m = handshake::ram_fifo_module(&Ctx::new(&cfg)).expect("renders");
    (m.name, m.text)
}

#[test]
fn ram_fifo_properties_hold_for_depths_1_to_6_and_short_heads() {
    // Depths below, at and above the head's; heads of 4 (the generator's), 2 and 1.
    for depth in 1..=6u64 {
        for head in [4u64, 2, 1] {
            let (kind_reset, active) = RESETS[(depth + head) as usize % RESETS.len()];
            let (top, text) = ram_fifo(kind_reset, active);
            assert_proof_in(
                "ram-fifo",
                &text,
                &top,
                &[("Depth", depth), ("Head", head)],
                true,
                &format!("ram fifo depth {depth}, head {head}, {kind_reset}/{active}"),
            );
        }
    }
}

#[test]
fn broken_ram_fifo_variants_fail_the_proof() {
    let (top, text) = ram_fifo("async", "low");
    let params: &[(&str, u64)] = &[("Depth", 5), ("Head", 2)];
    let cases = [
        // Straight to the head while an older item is still in the RAM's read registers.
        (
            "wire direct_ok = ~ram_any_q & ~rd1_q & ~rd2_q & has_credit;",
            "wire direct_ok = ~ram_any_q & ~rd2_q & has_credit;",
            "direct write overtakes a read in flight",
        ),
        // Reads issued without a credit: the head overflows.
        (
            "wire rd = ram_any_q & has_credit;",
            "wire rd = ram_any_q;",
            "reads without credits",
        ),
        // A pop does not give its credit back: the FIFO stops (the count goes wrong first).
        (
            "end else if (pop & ~(rd | direct)) begin",
            "end else if (1'b0) begin",
            "credits never return",
        ),
        // The RAM's write pointer also moves for an item that went straight to the head.
        (
            "if (to_ram) begin\n        wr_ptr_q",
            "if (push) begin\n        wr_ptr_q",
            "RAM write pointer moves on a direct write",
        ),
        // The RAM count is not told of a read in the clock of a write.
        (
            "end else if (rd & ~to_ram) begin",
            "end else if (rd) begin",
            "RAM count misses a read beside a write",
        ),
        // The read pointer misses the wrap at a depth that is not a power of two.
        (
            "rd_ptr_q <= (rd_ptr_q == LastPtr) ? {PtrW{1'b0}} : rd_ptr_q + 1'b1;",
            "rd_ptr_q <= rd_ptr_q + 1'b1;",
            "RAM read pointer misses the wrap",
        ),
    ];
    for (from, to, what) in cases {
        assert_proof_in(
            "ram-fifo-broken",
            &mutate(&text, from, to),
            &top,
            params,
            false,
            what,
        );
    }
}

/// A mutation (from, to), the parameters it is proven under, and what it breaks.
type Mutation<'a> = (&'a str, &'a str, &'a [(&'a str, u64)], &'a str);

#[test]
fn broken_bubble_and_fifo_variants_fail_the_proof() {
    let (top, text) = module(StageKind::Bubble, "sync", "high");
    let broken = mutate(
        &text,
        "assign in_ready_o = out_ready_i | ~valid_q;",
        "assign in_ready_o = 1'b1;",
    );
    assert_proof(
        StageKind::Bubble,
        &broken,
        &top,
        &[],
        false,
        "bubble overwrites a held item",
    );

    let kind = StageKind::Fifo { depth: 3 };
    let (top, text) = module(kind, "async", "low");
    let binary = [("Depth", 3), ("ThermoDepth", 0)];
    let thermo = [("Depth", 3), ("ThermoDepth", 3)];
    let cases: [Mutation; 5] = [
        // The full flag never sets: the FIFO accepts when full.
        (
            "full_d  = grow ? (count_q == LastCount) : (full_q & ~shrink);",
            "full_d  = 1'b0;",
            &binary,
            "fifo accepts when full",
        ),
        // The empty flag does not set on the last pop: a stale item is offered again.
        (
            "empty_d = shrink ? (count_q == OneCount) : (empty_q & ~grow);",
            "empty_d = shrink ? 1'b0 : (empty_q & ~grow);",
            &binary,
            "fifo never empties",
        ),
        // The thermometer does not fall on a pop.
        (
            "grow ? up : (shrink ? down : level_q[gk]);",
            "grow ? up : (shrink ? level_q[gk] : level_q[gk]);",
            &thermo,
            "fifo level ignores pops",
        ),
        // The free-entry write also runs when full: it overwrites the oldest item.
        (
            "if (~full) begin\n          mem_q[wr_ptr_q] <= in_data_i;",
            "if (1'b1) begin\n          mem_q[wr_ptr_q] <= in_data_i;",
            &thermo,
            "fifo writes over its head when full",
        ),
        (
            "if (~full) begin\n          mem_q[wr_ptr_q] <= in_data_i;",
            "if (1'b1) begin\n          mem_q[wr_ptr_q] <= in_data_i;",
            &binary,
            "fifo (binary count) writes over its head when full",
        ),
    ];
    for (from, to, params, what) in cases {
        assert_proof(kind, &mutate(&text, from, to), &top, params, false, what);
    }
    let wrap = mutate(
        &text,
        "rd_ptr_d = (rd_ptr_q == LastPtr) ? {PtrW{1'b0}} : rd_ptr_q + 1'b1;",
        "rd_ptr_d = rd_ptr_q + 1'b1;",
    );
    assert_proof(
        kind,
        &wrap,
        &top,
        &[("Depth", 3)],
        false,
        "fifo read pointer misses the wrap at Depth 3",
    );
}

/// A `[mem]` config with `n` requesters under `policy`; accesses cycle through
/// read, both, write; priorities `prio(i)`. At the default 200 MHz the arbiter has its
/// grant queue; [`at_mhz`] gives the same config at another clock.
fn mem_config(n: usize, policy: &str, reset: (&str, &str), prio: fn(usize) -> u32) -> String {
    let mut t = format!(
        "[design]\nname = \"fm\"\nmodule_prefix = \"f_\"\n[reset]\nkind = \"{}\"\nactive = \"{}\"\n\
         [hs_chain]\nwidth = 8\nstages = [\"skid\"]\n[mem]\ndata_bits = 8\nmax_burst = 4\n\
         policy = \"{policy}\"\nlatency = 0\noutstanding_reads = 2\n",
        reset.0, reset.1
    );
    for i in 0..n {
        t += &format!(
            "[[mem.requesters]]\nname = \"r{i}\"\naccess = \"{}\"\npriority = {}\nmax_burst = {}\n",
            ["read", "both", "write"][i % 3],
            prio(i),
            1 + i % 4
        );
    }
    t
}

/// `toml` with a `[clock]` of `mhz`: at 50 MHz the arbiter loads each winner straight
/// into its burst register (no grant queue).
fn at_mhz(toml: &str, mhz: u32) -> String {
    format!("{toml}[clock]\ntarget_mhz = {mhz}.0\n")
}

/// Proves `mem_arb` of the config, with `mutate` applied to its text first; returns the
/// proof.
fn prove_mem_arb(toml: &str, mutation: Option<(&str, &str)>) -> gpurtl::formal::Proof {
    let cfg = parse(toml, "formal mem config");
    let design = elaborate(&cfg);
    let unit = design.unit("mem_arb").expect("mem_arb unit");
    let mods = design.unit_modules(unit);
    let (top, deps) = mods.split_last().expect("modules");
    let deps: Vec<(String, String)> = deps
        .iter()
        .map(|m| (m.name.clone(), m.text.clone()))
        .collect();
    let text = match mutation {
        Some((from, to)) => mutate(&top.text, from, to),
        None => top.text.clone(),
    };
    let work = scratch("formal-mem-arb");
    gpurtl::formal::prove_with_deps(&deps, &text, &top.name, &[], &work).expect("yosys runs")
}

fn tail(log: &str) -> String {
    log.lines().rev().take(15).collect::<Vec<_>>().join("\n")
}

#[test]
fn mem_arb_properties_hold_for_each_policy_size_and_reset() {
    let configs = [
        mem_config(4, "round_robin", ("async", "low"), |_| 0),
        mem_config(2, "round_robin", ("sync", "high"), |_| 0),
        mem_config(8, "round_robin", ("sync", "low"), |_| 0),
        mem_config(4, "fixed", ("async", "high"), |i| i as u32),
        mem_config(8, "classes", ("async", "low"), |i| (i % 3) as u32),
        mem_config(3, "classes", ("sync", "high"), |i| u32::from(i > 0)),
    ];
    for toml in configs {
        for toml in [toml.clone(), at_mhz(&toml, 50)] {
            let proof = prove_mem_arb(&toml, None);
            assert!(proof.proven, "{toml}\n{}", tail(&proof.log));
        }
    }
}

#[test]
fn broken_mem_arb_variants_fail_the_proof() {
    let rr = mem_config(4, "round_robin", ("async", "low"), |_| 0);
    let mutations = [
        // The round-robin pointer never moves: fixed priority, unbounded wait.
        (
            "      rr_mask_q <= rr_mask_d;",
            "      rr_mask_q <= rr_mask_q;",
        ),
        // A write tag leaves the head before its beats are through.
        (
            "assign wtag_pop = ~wtag_valid_q | (wfire & wtag_last_q);",
            "assign wtag_pop = ~wtag_valid_q | wfire;",
        ),
        // A writer's data is taken when the head write tag is not its.
        (
            "assign r1_wdata_ready_o = wtake & wtag_r1_q;",
            "assign r1_wdata_ready_o = wskid_in_ready;",
        ),
        // The write room flop ignores the count: a write is sent with its tag FIFO full.
        (
            "wtag_room_d = wtags_grow ? (wtags_q != WtagsLast) : (wtag_room_q | wtags_shrink);",
            "wtag_room_d = 1'b1;",
        ),
        // A grant with nobody asking.
        ("grant = arb_take & (|req_valid);", "grant = arb_take;"),
        // The grant queue's head does not move on: a burst is loaded twice.
        ("gq_rd_q    <= gq_rd_q ^ load;", "gq_rd_q    <= gq_rd_q;"),
        // The arbitration writes the queue when it is full: a queued grant is lost.
        (
            "if (arb_take) begin\n      gq_gnt_q[gq_wr_q]",
            "if (1'b1) begin\n      gq_gnt_q[gq_wr_q]",
        ),
        // The priority matrix is not a total order: with neither masked, members 0 and 1 both win.
        (
            "(rr_req[0] & (rr_mask_q[0] | ~rr_mask_q[1]))",
            "(rr_req[0] & (rr_mask_q[0] & ~rr_mask_q[1]))",
        ),
        // A burst's single-beat flag is wrong: its tag's head would end a burst early.
        (
            "single_q <= (nxt_len == {LenW{1'b0}});",
            "single_q <= 1'b1;",
        ),
        // The room flop ignores the tag count: a read is sent with the tag FIFO full.
        (
            "tag_room_d = tags_grow ? (tags_q != TagsLast) : (tag_room_q | tags_shrink);",
            "tag_room_d = 1'b1;",
        ),
        // The head's index stays at requester 0: the ready muxed is not its reader's.
        ("rtag_id_q   <= tag_id;", "rtag_id_q   <= {IdW{1'b0}};"),
        // A read tag pushed whenever its burst holds the request side, room or not.
        (
            "wire tag_push = busy_rd_q & tag_room_q & mem_req_ready_i;",
            "wire tag_push = busy_rd_q & mem_req_ready_i;",
        ),
    ];
    for (from, to) in mutations {
        let proof = prove_mem_arb(&rr, Some((from, to)));
        assert!(
            !proof.proven && proof.log.contains("proof did fail"),
            "mutation {from:?} -> {to:?} was not caught:\n{}",
            tail(&proof.log)
        );
    }
    // Without the grant queue (50 MHz) the burst register loads this clock's winner: a
    // load with nobody asking leaves the port busy with no grant.
    let slow = at_mhz(&rr, 50);
    let proof = prove_mem_arb(
        &slow,
        Some(("wire nxt_valid = |req_valid;", "wire nxt_valid = 1'b1;")),
    );
    assert!(
        !proof.proven && proof.log.contains("proof did fail"),
        "the direct arbiter loading with nobody asking was not caught:\n{}",
        tail(&proof.log)
    );
}
