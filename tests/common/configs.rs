//! The configs beyond the presets that the tool checks cover (tests/tools.rs), as TOML:
//! random handshake chains and caches drawn from fixed streams, and hand-picked `[mem]`,
//! `[mem.map]` and `[ipu]` configs at the edges of their ranges. The implementation
//! bench includes this file too (`GPURTL_BENCH_PRESETS=random`), so that the full
//! `synth_ecp5`, `synth_xilinx` and `synth_ice40` runs cover the same configs.

#![allow(dead_code)]

use gpurtl::rng::Rng;

pub fn random_chain(rng: &mut Rng, i: usize) -> String {
    let pick = |rng: &mut Rng, n: usize| (rng.next_u64() % n as u64) as usize;
    let widths = [
        1u32, 2, 3, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100, 128, 257, 512,
    ];
    let kinds = [
        "bypass", "bubble", "skid", "fifo:1", "fifo:2", "fifo:3", "fifo:4", "fifo:7", "fifo:16",
        "fifo:17",
    ];
    let prefixes = ["", "a_", "gpu_", "X9_", "_p"];
    let n = 1 + pick(rng, 7);
    let stages: Vec<String> = (0..n)
        .map(|_| format!("\"{}\"", kinds[pick(rng, kinds.len())]))
        .collect();
    format!(
        "[design]\nname = \"rand{i}\"\nmodule_prefix = \"{}\"\n[reset]\nkind = \"{}\"\nactive = \"{}\"\n\
         [hs_chain]\nwidth = {}\nstages = [{}]\n",
        prefixes[pick(rng, prefixes.len())],
        ["sync", "async"][pick(rng, 2)],
        ["low", "high"][pick(rng, 2)],
        widths[pick(rng, widths.len())],
        stages.join(", ")
    )
}

/// Handshake chains `0..count` of a random stream, as (name, TOML).
pub fn random_chains(stream: u64, count: usize) -> Vec<(String, String)> {
    let mut rng = Rng::stream(2026, stream);
    (0..count)
        .map(|i| (format!("rand{stream}-{i}"), random_chain(&mut rng, i)))
        .collect()
}

/// A random `[tmu.cache]` over the keys' ranges; `None` when validation rejects it (the
/// promise is about every config that validates).
fn random_cache(rng: &mut Rng, i: usize) -> Option<String> {
    let pick = |rng: &mut Rng, xs: &[u32]| xs[(rng.next_u64() % xs.len() as u64) as usize];
    let line = pick(rng, &[64, 128, 256]);
    let size = pick(rng, &[256, 512, 1024, 2048, 4096]);
    let lines = (size / line).max(1);
    let ways = pick(rng, &[1, 2, 4, 8, 16, 32, 64]).min(lines);
    // The filter unit's options too: a random non-empty format subset, weights, output.
    let all = [
        "rgba8888", "rgb565", "rgba4444", "rgba5551", "l8", "la88", "a8", "dxt1",
    ];
    let mask = 1 + rng.next_u64() % 255;
    let formats: Vec<String> = (0..8)
        .filter(|k| mask >> k & 1 == 1)
        .map(|k| format!("\"{}\"", all[k]))
        .collect();
    // And the unit's: filters (always with a magnification one), wraps, descriptors.
    let filters = [
        "linear_mipmap_linear",
        "nearest_mipmap_nearest",
        "linear_mipmap_nearest",
        "nearest_mipmap_linear",
    ];
    let mut fs = vec![["\"nearest\"", "\"linear\""][(rng.next_u64() % 2) as usize].to_string()];
    fs.extend(
        filters
            .iter()
            .filter(|_| rng.chance(0.5))
            .map(|f| format!("\"{f}\"")),
    );
    let wraps = ["repeat", "clamp_to_edge", "mirrored_repeat"];
    let wmask = 1 + rng.next_u64() % 7;
    let ws: Vec<String> = (0..3)
        .filter(|k| wmask >> k & 1 == 1)
        .map(|k| format!("\"{}\"", wraps[k]))
        .collect();
    let tmu = format!(
        "[tmu]\nformats = [{}]\nweight_bits = {}\noutput = \"{}\"\nfilters = [{}]\nwraps = [{}]\n\
         textures = {}\nmip_levels = {}\n",
        formats.join(", "),
        pick(rng, &[4, 8, 10, 12]),
        ["rgba8", "fp32"][(rng.next_u64() % 2) as usize],
        fs.join(", "),
        ws.join(", "),
        pick(rng, &[1, 3, 6, 16]),
        pick(rng, &[1, 5, 12, 16]),
    );
    let toml = format!(
        "[design]\nname = \"rc{i}\"\n[hs_chain]\nwidth = 1\nstages = [\"skid\"]\n{tmu}[tmu.cache]\n\
         size_bytes = {size}\nline_bytes = {line}\nways = {ways}\nbanks = {}\nports = {}\n\
         mshr_entries = {}\nreplacement = \"{}\"\nbus_bits = {}\nlayout = \"{}\"\nqueue_depth = {}\n",
        pick(rng, &[4, 16]),
        pick(rng, &[4, 8, 16, 32]),
        pick(rng, &[1, 2, 3, 8]),
        ["lru", "fifo", "plru"][(rng.next_u64() % 3) as usize],
        pick(rng, &[32, 64, 128]),
        ["linear", "tiled4x4"][(rng.next_u64() % 2) as usize],
        pick(rng, &[2, 4, 16]),
    );
    gpurtl::config::parse(&toml, "random cache")
        .ok()
        .map(|_| toml)
}

/// The first 8 random caches that validate, with the index they were drawn at.
pub fn random_caches() -> Vec<(usize, String)> {
    let mut rng = Rng::stream(77, 0);
    let caches: Vec<(usize, String)> = (0..200)
        .filter_map(|i| random_cache(&mut rng, i).map(|t| (i, t)))
        .take(8)
        .collect();
    assert_eq!(caches.len(), 8, "enough random caches validate");
    caches
}

/// Every reset style, as `[reset]` spells it: (kind, active).
pub const RESET_STYLES: [(&str, &str); 4] = [
    ("async", "low"),
    ("sync", "high"),
    ("async", "high"),
    ("sync", "low"),
];

/// `[mem]` configs at the edges: 1 to 16 requesters, every policy, 8- to 512-bit beats,
/// bursts of 1 to 256 beats, every reset style.
pub fn mem_arb_toml(i: usize, n: usize, policy: &str, data_bits: u32, max_burst: u32) -> String {
    let (kind, active) = RESET_STYLES[i % 4];
    let mut t = format!(
        "[design]\nname = \"ma{i}\"\nmodule_prefix = \"{}\"\n[reset]\nkind = \"{kind}\"\nactive = \"{active}\"\n\
         [hs_chain]\nwidth = 1\nstages = [\"skid\"]\n[mem]\ndata_bits = {data_bits}\nmax_burst = {max_burst}\n\
         policy = \"{policy}\"\nlatency = 0\noutstanding_reads = {}\n",
        ["", "x_", "gpu_"][i % 3],
        [2, 3, 5, 64][i % 4]
    );
    // Every other config at a slow clock: the arbiter without its grant queue, beat
    // register and head-tag register.
    if i % 2 == 1 {
        t += "[clock]\ntarget_mhz = 50.0\n";
    }
    for r in 0..n {
        t += &format!(
            "[[mem.requesters]]\nname = \"port{r}\"\naccess = \"{}\"\npriority = {}\nmax_burst = {}\n",
            // Offset by the config, so that a config of one requester can be read-only.
            ["both", "read", "write"][(r + i) % 3],
            (r * 7) % 4,
            1 + (r as u32 * 5) % max_burst
        );
    }
    t
}

/// The arbiter configs the tool checks cover: (requesters, policy, data bits, max burst).
pub const MEM_ARB_EDGES: [(usize, &str, u32, u32); 8] = [
    (1, "round_robin", 8, 1),
    (2, "fixed", 32, 2),
    (3, "classes", 64, 16),
    (5, "round_robin", 128, 256),
    (8, "classes", 512, 8),
    (16, "fixed", 16, 4),
    (16, "round_robin", 64, 8),
    (1, "fixed", 64, 4), // a lone reader: no write path at all
];

/// Every [`MEM_ARB_EDGES`] config, as (name, TOML).
pub fn mem_arb_configs() -> Vec<(String, String)> {
    MEM_ARB_EDGES
        .into_iter()
        .enumerate()
        .map(|(i, (n, policy, bits, burst))| {
            (format!("mem{i}"), mem_arb_toml(i, n, policy, bits, burst))
        })
        .collect()
}

/// `[ipu]` configs beyond the presets: 2 and 4 lanes, format subsets, every register kind,
/// both fraction widths at their ends, the smallest and largest stacks, each reset style,
/// zoom, pixel maps, bitmap and the convolution filter alone and together (1x1, 3x3 and
/// 5x5 filters, the narrowest and widest weights, the smallest line buffers and tables),
/// the framebuffer paths with one to three formats, colour-index draws with the smallest
/// and largest tables.
pub fn ipu_configs() -> Vec<(String, String)> {
    let configs = [
        (
            "ipu_l4",
            "sync",
            "high",
            "lanes = 4\nframebuffer = true\nformats = [\"l8\", \"rgb565\"]\nscale_frac_bits = 16\nbias_frac_bits = 16\n\
             scale_int_bits = 8\nbias_int_bits = 8\nstack_depth = 1\nregisters = [\"skid\", \"fifo:3\", \"bypass\"]\n\
             [ipu.convolution]\nenabled = true\nkernel_size = 3\nmax_line_width = 1\nweight_int_bits = 8\n",
        ),
        (
            "ipu_l2",
            "async",
            "high",
            "lanes = 2\ndma_word_bits = 64\nframebuffer = true\nformats = [\"bgra8888\"]\nscale_frac_bits = 10\nbias_frac_bits = 14\n\
             stack_depth = 32\nregisters = [\"bypass\", \"bypass\", \"bypass\"]\n",
        ),
        (
            "ipu_zoom_maps_l4",
            "async",
            "low",
            "lanes = 4\ndma_word_bits = 128\nbitmap = true\nframebuffer = true\nformats = [\"l8\", \"ci8\"]\n\
             registers = [\"bubble\", \"bubble\", \"skid\", \"fifo:4\", \"skid\"]\n\
             [ipu.zoom]\nenabled = true\nmax_line_width = 1\n\
             [ipu.pixel_map]\nenabled = true\ntable_size = 2\nmaps = [\"a_to_a\", \"i_to_g\"]\n\
             [ipu.convolution]\nenabled = true\nkernel_size = 5\nmax_line_width = 100\nweight_int_bits = 1\n",
        ),
        (
            "ipu_zoom_l2",
            "sync",
            "low",
            "lanes = 2\nregisters = [\"bubble\", \"bubble\", \"bubble\", \"skid\", \"fifo:1\"]\n\
             [ipu.zoom]\nenabled = true\nmax_line_width = 100\n[ipu.convolution]\nenabled = true\nkernel_size = 1\n",
        ),
        (
            "ipu_maps_l1",
            "sync",
            "high",
            "lanes = 1\nbitmap = true\nformats = [\"ci8\", \"rgb565\"]\n[ipu.pixel_map]\nenabled = true\ntable_size = 4096\n\
             maps = [\"r_to_r\", \"g_to_g\", \"b_to_b\", \"a_to_a\", \"i_to_r\", \"i_to_g\", \"i_to_b\", \"i_to_a\"]\n",
        ),
    ];
    configs
        .into_iter()
        .map(|(name, kind, active, body)| {
            (
                name.to_string(),
                format!(
                    "[design]\nname = \"{name}\"\nmodule_prefix = \"q_\"\n[reset]\nkind = \"{kind}\"\nactive = \"{active}\"\n[ipu]\n{body}"
                ),
            )
        })
        .collect()
}

/// `[mem.map]` at its edges for `mem_mgr`: one page (1-bit page numbers), 65536-byte
/// pages with a {page, offset} address that fills all 32 bits, the most textures, levels
/// and display lists, power-of-two and odd table sizes, every reset style.
pub fn mem_mgr_maps() -> Vec<(String, String)> {
    let maps: [(u64, u64, u32, u32, u64, u32); 4] = [
        // (page_bytes, pages, buffer_objects, display_lists, textures, mip_levels)
        (256, 1, 1, 1, 1, 1),
        (1024, 5, 4, 4, 2, 16),
        (65536, 32769, 256, 4096, 64, 16),
        (512, 100, 7, 9, 5, 7),
    ];
    maps.into_iter()
        .enumerate()
        .map(|(i, (page, pages, bo, dl, tex, mips))| {
            let (kind, active) = RESET_STYLES[i % 4];
            let t = format!(
                "[design]\nname = \"mm{i}\"\nmodule_prefix = \"mm{i}_\"\n[reset]\nkind = \"{kind}\"\nactive = \"{active}\"\n\
                 [mem]\ndata_bits = 32\nmax_burst = 2\npolicy = \"fixed\"\n\
                 [[mem.requesters]]\nname = \"a\"\naccess = \"both\"\nmax_burst = 2\n\
                 [mem.map]\nshader_bytes = {}\nimage_bytes = {page}\ntexture_bytes = {}\n\
                 user_bytes = {}\npage_bytes = {page}\nbuffer_objects = {bo}\ndisplay_lists = {dl}\n\
                 textures = {tex}\nmip_levels = {mips}\n",
                4 * page,
                tex * page,
                pages * page
            );
            (format!("mm{i}"), t)
        })
        .collect()
}

/// Every config above, as (name, TOML): what the implementation bench's `random` preset
/// synthesizes.
pub fn all() -> Vec<(String, String)> {
    let mut v = random_chains(0, 12);
    v.extend(random_chains(1, 12));
    v.extend(
        random_caches()
            .into_iter()
            .map(|(i, t)| (format!("cache-rand{i}"), t)),
    );
    v.extend(mem_arb_configs());
    v.extend(ipu_configs());
    v.extend(mem_mgr_maps());
    v
}

/// The embedded default with COPY_TEX_IMAGE's words on a requester of their own (the
/// default leaves them to the framebuffer's).
pub fn gpu_own_texture_writer() -> String {
    gpurtl::config::DEFAULT_TOML.replacen(
        "# Seed 002's region map",
        "[[mem.requesters]]\nname = \"copytex\"\naccess = \"write\"\nmax_burst = 1\nserves = \"ipu.tex\"\n\n# Seed 002's region map",
        1,
    )
}

/// The embedded default with four lanes in the IPU (64-bit DMA words) and the TMU (a quad
/// a request, 16 cache ports and banks), and COPY_TEX_IMAGE's words on a requester of
/// their own: the GPU top's four-lane config.
pub fn gpu_four_lanes() -> String {
    gpu_own_texture_writer()
        .replacen("[tmu]\n", "[tmu]\nlanes = 4\n", 1)
        .replacen("banks = 4\n", "banks = 16\n", 1)
        .replacen("ports = 4\n", "ports = 16\n", 1)
        .replacen("lanes = 1 ", "lanes = 4 ", 1)
        .replacen("dma_word_bits = 32 ", "dma_word_bits = 64 ", 1)
}

/// The GPU top across the template's branches, from the embedded default, in two builds:
/// 32-bit beats (a pixel a beat) with a synchronous active-high reset, a small
/// framebuffer at two lanes, 50 clocks of latency and bursts of one beat and of three (an
/// engine's burst is the power of two below), at 50 MHz (the units' short pipelines: the
/// TMU's front, the filter, the cache's block-RAM reads and the IPU's stages merge); and
/// 128-bit beats (four pixels a beat, two
/// 64-bit DMA words) with no framebuffer paths (read-only DMA, write-only framebuffer
/// engine).
pub fn gpu_variants() -> Vec<(&'static str, String)> {
    let d = gpurtl::config::DEFAULT_TOML;
    let edit = |edits: &[(&str, &str)]| {
        let mut s = d.to_string();
        for (a, b) in edits {
            assert!(s.contains(a), "the default has {a:?}");
            s = s.replacen(a, b, 1);
        }
        s
    };
    vec![
        (
            "beat32_sync_high_small_short_bursts",
            edit(&[
                ("data_bits = 64", "data_bits = 32"),
                ("bus_bits = 64", "bus_bits = 32"),
                ("target_mhz = 200.0", "target_mhz = 50.0"),
                ("kind = \"async\"", "kind = \"sync\""),
                ("active = \"low\" ", "active = \"high\""),
                ("[ipu]", "[gpu]\nfb_width = 64\nfb_height = 16\n\n[ipu]"),
                ("lanes = 1 ", "lanes = 2 "),
                ("latency = 100 ", "latency = 50 "),
                (
                    "name = \"ipu\"\naccess = \"both\"\nmax_burst = 8",
                    "name = \"ipu\"\naccess = \"both\"\nmax_burst = 1",
                ),
                (
                    "name = \"fb\"\naccess = \"both\"\nmax_burst = 8",
                    "name = \"fb\"\naccess = \"both\"\nmax_burst = 3",
                ),
            ]),
        ),
        (
            "beat128_no_framebuffer",
            edit(&[
                ("data_bits = 64", "data_bits = 128"),
                ("bus_bits = 64", "bus_bits = 128"),
                ("banks = 4\n", "banks = 16\n"),
                ("dma_word_bits = 32 ", "dma_word_bits = 64 "),
                ("framebuffer = true", "framebuffer = false"),
                (
                    "name = \"ipu\"\naccess = \"both\"",
                    "name = \"ipu\"\naccess = \"read\"",
                ),
                (
                    "name = \"fb\"\naccess = \"both\"",
                    "name = \"fb\"\naccess = \"write\"",
                ),
            ]),
        ),
    ]
}
