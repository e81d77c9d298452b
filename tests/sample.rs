//! `gpurtl sample` and `gpurtl draw` on the real binary: texture files (PNG, DDS with
//! mip chains, DXT1), filters, wraps, the box-filter mip chain, drawing, and the error
//! promise (exit 2, a message naming file and line, no output file).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_gpurtl");

type Rgba = [u8; 4];

/// A fresh directory of this test process, unique per `tag`.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpurtl-sample-{}-{tag}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

fn gpurtl(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run gpurtl")
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes an RGBA8 PNG with the `png` crate directly (not through gpurtl's writer).
fn write_png(path: &Path, w: u32, h: u32, f: impl Fn(u32, u32) -> Rgba) {
    let mut data = Vec::new();
    for y in 0..h {
        for x in 0..w {
            data.extend_from_slice(&f(x, y));
        }
    }
    let file = fs::File::create(path).expect("create png");
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut wr = enc.write_header().expect("png header");
    wr.write_image_data(&data).expect("png data");
    wr.finish().expect("png finish");
}

fn read_png(path: &Path) -> (u32, u32, Vec<Rgba>) {
    let bytes = fs::read(path).expect("read png");
    let dec = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut r = dec.read_info().expect("png info");
    let mut buf = vec![0; r.output_buffer_size().expect("size")];
    let info = r.next_frame(&mut buf).expect("png frame");
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let px = buf
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect();
    (info.width, info.height, px)
}

/// Distinct texels for the 8x8 tests.
fn texel(x: u32, y: u32) -> Rgba {
    [
        (x * 32 + 1) as u8,
        (y * 32 + 2) as u8,
        ((x ^ y) * 16 + 3) as u8,
        (255 - x - 8 * y) as u8,
    ]
}

/// Runs `gpurtl sample` on `texture` with the coordinate `csv` text and `extra` options,
/// and returns the colours it printed.
fn sample(dir: &Path, texture: &Path, csv: &str, extra: &[&str]) -> Vec<Rgba> {
    let coords = dir.join("coords.csv");
    fs::write(&coords, csv).expect("write coords");
    let mut args = vec!["sample", "--texture", p(texture), "--coords", p(&coords)];
    args.extend_from_slice(extra);
    let out = gpurtl(&args);
    assert_eq!(out.status.code(), Some(0), "{args:?}\n{}", stderr(&out));
    rgba_rows(&String::from_utf8(out.stdout).expect("utf-8 output"))
}

/// The rows of an `r,g,b,a` CSV.
fn rgba_rows(text: &str) -> Vec<Rgba> {
    text.lines()
        .map(|l| {
            let v: Vec<u8> = l.split(',').map(|x| x.parse().expect("0..255")).collect();
            [v[0], v[1], v[2], v[3]]
        })
        .collect()
}

const NEAREST: [&str; 4] = ["--min-filter", "nearest", "--mag-filter", "nearest"];

#[test]
fn nearest_at_texel_centres_gives_the_texels() {
    let dir = scratch("nearest");
    let tex = dir.join("t.png");
    write_png(&tex, 8, 8, texel);
    let mut csv = String::from("s,t\n# every texel centre, row by row\n");
    let mut want = Vec::new();
    for y in 0..8 {
        for x in 0..8 {
            csv += &format!("{},{}\n", (x as f32 + 0.5) / 8.0, (y as f32 + 0.5) / 8.0);
            want.push(texel(x, y));
        }
    }
    assert_eq!(sample(&dir, &tex, &csv, &NEAREST), want);
    // The same through --out: written whole, one row per input row.
    let out = dir.join("out.csv");
    let coords = dir.join("coords.csv");
    let o = gpurtl(&[
        "sample",
        "--texture",
        p(&tex),
        "--coords",
        p(&coords),
        "--min-filter",
        "nearest",
        "--mag-filter",
        "nearest",
        "--layout",
        "linear",
        "--out",
        p(&out),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert_eq!(fs::read_to_string(&out).unwrap().lines().count(), 64);
    // A partial last group (5 rows with 4 lanes) still gives one row per input row.
    let five = "0.0625,0.0625\n0.1875,0.0625\n0.0625,0.1875\n0.1875,0.1875\n0.3125,0.0625\n";
    let got = sample(&dir, &tex, five, &NEAREST);
    assert_eq!(
        got,
        vec![
            texel(0, 0),
            texel(1, 0),
            texel(0, 1),
            texel(1, 1),
            texel(2, 0)
        ]
    );
}

#[test]
fn linear_between_two_texels_is_their_rounded_mean() {
    let dir = scratch("linear");
    let tex = dir.join("t.png");
    write_png(&tex, 8, 8, texel);
    let mean = |a: Rgba, b: Rgba| -> Rgba {
        std::array::from_fn(|c| (u32::from(a[c]) + u32::from(b[c])).div_ceil(2) as u8)
    };
    let mut csv = String::new();
    let mut want = Vec::new();
    for i in 0..7 {
        // Horizontal pair (i, 3)-(i+1, 3), then vertical pair (2, i)-(2, i+1).
        csv += &format!("{},{},0\n", (i + 1) as f32 / 8.0, 3.5 / 8.0);
        want.push(mean(texel(i, 3), texel(i + 1, 3)));
        csv += &format!("{},{},0\n", 2.5 / 8.0, (i + 1) as f32 / 8.0);
        want.push(mean(texel(2, i), texel(2, i + 1)));
    }
    let linear = ["--min-filter", "linear", "--mag-filter", "linear"];
    assert_eq!(sample(&dir, &tex, &csv, &linear), want);
    // 10-bit weights give the same means.
    let ten = [
        "--min-filter",
        "linear",
        "--mag-filter",
        "linear",
        "--weight-bits",
        "10",
    ];
    assert_eq!(sample(&dir, &tex, &csv, &ten), want);
}

#[test]
fn wrap_modes_at_minus_a_quarter_and_one_and_a_quarter() {
    let dir = scratch("wrap");
    let tex = dir.join("t.png");
    write_png(&tex, 8, 8, texel);
    let csv = "-0.25,0.3125,0\n1.25,0.3125,0\n0.3125,-0.25,0\n0.3125,1.25,0\n";
    // s * 8 = -2 and 10: repeat 6 and 2, clamp 0 and 7, mirrored repeat 1 and 5.
    for (wrap, lo, hi) in [
        ("repeat", 6, 2),
        ("clamp_to_edge", 0, 7),
        ("mirrored_repeat", 1, 5),
    ] {
        let mut args = NEAREST.to_vec();
        args.extend(["--wrap-s", wrap, "--wrap-t", wrap]);
        let got = sample(&dir, &tex, csv, &args);
        assert_eq!(
            got,
            vec![texel(lo, 2), texel(hi, 2), texel(2, lo), texel(2, hi)],
            "{wrap}"
        );
    }
}

#[test]
fn box_filter_chain_of_a_checkerboard_is_grey_at_level_1() {
    let dir = scratch("checker");
    let tex = dir.join("c.png");
    let (black, white) = ([0, 0, 0, 255], [255, 255, 255, 255]);
    write_png(
        &tex,
        8,
        8,
        |x, y| if (x + y) % 2 == 0 { black } else { white },
    );
    let mut csv = String::new();
    for y in 0..4 {
        for x in 0..4 {
            csv += &format!("{},{},1\n", (x as f32 + 0.5) / 4.0, (y as f32 + 0.5) / 4.0);
        }
    }
    csv += "0.0625,0.0625,0\n0.1875,0.0625,0\n0.03,0.9,3\n";
    let got = sample(
        &dir,
        &tex,
        &csv,
        &["--min-filter", "nearest_mipmap_nearest"],
    );
    // (0 + 255 + 0 + 255 + 2) / 4 = 128 at level 1 (and every level below).
    let mut want = vec![[128, 128, 128, 255]; 16];
    want.extend([black, white, [128, 128, 128, 255]]);
    assert_eq!(got, want);
}

#[test]
fn lanes_group_rows_into_quads_whose_differences_give_the_lod() {
    let dir = scratch("lanes");
    let tex = dir.join("c.png");
    let (black, white) = ([0, 0, 0, 255], [255, 255, 255, 255]);
    write_png(
        &tex,
        8,
        8,
        |x, y| if (x + y) % 2 == 0 { black } else { white },
    );
    // White texel centres two texels apart: (0,1), (2,1), (0,3), (2,3). As one quad the
    // differences are 2 texels, lambda = 1: level 1, grey. Alone, each row has no
    // difference and is magnified: level 0, white.
    let quad = "0.0625,0.1875\n0.3125,0.1875\n0.0625,0.4375\n0.3125,0.4375\n";
    let grey = [128, 128, 128, 255];
    let run = |lanes: &str, extra: &[&str], csv: &str| {
        let mut args = vec!["--min-filter", "nearest_mipmap_nearest", "--lanes", lanes];
        args.extend_from_slice(extra);
        sample(&dir, &tex, csv, &args)
    };
    assert_eq!(run("4", &[], quad), vec![grey; 4]);
    assert_eq!(run("1", &[], quad), vec![white; 4]);
    // Two lanes: each pair's one difference (2 texels) gives lambda = 1.
    assert_eq!(run("2", &[], quad), vec![grey; 4]);
    // Eight lanes: two quads.
    assert_eq!(run("8", &[], &quad.repeat(2)), vec![grey; 8]);
    // A bias of -1 brings lambda to 0: magnified again.
    assert_eq!(run("4", &["--lod-bias", "-1"], quad), vec![white; 4]);
    // A row with a LOD ends a group: the first two rows are padded to a quad.
    let mixed = "0.0625,0.1875\n0.3125,0.1875\n0.0625,0.4375,0\n0.3125,0.4375\n";
    assert_eq!(run("4", &[], mixed), vec![grey, grey, white, white]);
}

/// A DDS header (magic, 124 bytes) built field by field.
fn dds_header(
    w: u32,
    h: u32,
    mips: u32,
    pf_flags: u32,
    four_cc: &[u8; 4],
    bits: u32,
    masks: [u32; 4],
) -> Vec<u8> {
    let mut v = b"DDS ".to_vec();
    let mut put = |x: u32| v.extend_from_slice(&x.to_le_bytes());
    put(124);
    put(0x1007 | 0x2_0000); // caps, height, width, pixel format, mip count
    put(h);
    put(w);
    put(0);
    put(0);
    put(mips);
    for _ in 0..11 {
        put(0);
    }
    put(32);
    put(pf_flags);
    put(u32::from_le_bytes(*four_cc));
    put(bits);
    for m in masks {
        put(m);
    }
    put(0x40_1008); // complex, texture, mipmap
    for _ in 0..4 {
        put(0);
    }
    v
}

#[test]
fn dds_mip_chain_is_read_from_the_file() {
    let dir = scratch("dds-mips");
    // 4x4 BGRA with three levels of one colour each: red, green, blue. Level 1 is not
    // the box filter of level 0, so reading it back proves the file's chain is used.
    let bgra = [0x00ff_0000, 0x0000_ff00, 0x0000_00ff, 0xff00_0000];
    let mut f = dds_header(4, 4, 3, 0x41, &[0; 4], 32, bgra);
    for (n, bgra_px) in [
        (16, [0u8, 0, 255, 255]),
        (4, [0, 255, 0, 200]),
        (1, [255, 0, 0, 100]),
    ] {
        for _ in 0..n {
            f.extend_from_slice(&bgra_px);
        }
    }
    let tex = dir.join("mips.dds");
    fs::write(&tex, &f).unwrap();
    let csv = "0.3,0.3,0\n0.3,0.3,1\n0.3,0.3,2\n0.3,0.3,7\n";
    let want = vec![
        [255, 0, 0, 255],
        [0, 255, 0, 200],
        [0, 0, 255, 100],
        [0, 0, 255, 100],
    ];
    assert_eq!(
        sample(&dir, &tex, csv, &["--min-filter", "nearest_mipmap_nearest"]),
        want
    );
    // A 16-bit R5G6B5 DDS without mips: the chain is generated (2x2 red and blue: level
    // 1 is their mean, (255 + 0 + 255 + 0 + 2) / 4 = 128 in red and blue), and stored as
    // the file's rgb565: 128 -> 16 of 31 -> 132.
    let mut f = dds_header(2, 2, 1, 0x40, &[0; 4], 16, [0xf800, 0x07e0, 0x001f, 0]);
    for c in [0xf800u16, 0x001f, 0x001f, 0xf800] {
        f.extend_from_slice(&c.to_le_bytes());
    }
    let tex = dir.join("565.dds");
    fs::write(&tex, &f).unwrap();
    let csv = "0.25,0.25,0\n0.75,0.25,0\n0.5,0.5,1\n";
    let want = vec![[255, 0, 0, 255], [0, 0, 255, 255], [132, 0, 132, 255]];
    assert_eq!(
        sample(&dir, &tex, csv, &["--min-filter", "nearest_mipmap_nearest"]),
        want
    );
    let mut args = vec![
        "--min-filter",
        "nearest_mipmap_nearest",
        "--format",
        "rgba8888",
    ];
    let want = vec![[255, 0, 0, 255], [0, 0, 255, 255], [128, 0, 128, 255]];
    assert_eq!(sample(&dir, &tex, csv, &args), want);
    args.extend(["--layout", "linear"]);
    assert_eq!(sample(&dir, &tex, csv, &args), want);
}

/// `--gl`: Mesa samples the same rows; its CSV has a row per input row, within 1 LSB of
/// the model's here (bilinear and trilinear, explicit and quad LODs, every wrap).
#[test]
fn gl_writes_what_mesa_samples_and_the_difference() {
    let dir = scratch("gl");
    let tex = dir.join("t.png");
    write_png(&tex, 8, 8, texel);
    let mut csv = String::new();
    for i in 0..24 {
        let (s, t) = (i as f32 * 0.173 - 1.3, i as f32 * 0.119 - 0.7);
        csv += &format!("{s},{t},{}\n", (i % 5) as f32 * 0.7 - 0.3);
        // An axis-aligned quad, 1.7 texels a step: lambda 0.77.
        let d = 1.7 / 8.0;
        csv += &format!(
            "{s},{t}\n{},{t}\n{s},{}\n{},{}\n",
            s + d,
            t + d,
            s + d,
            t + d
        );
    }
    let gl = dir.join("gl.csv");
    for wrap in ["repeat", "clamp_to_edge", "mirrored_repeat"] {
        let args = [
            "--min-filter",
            "linear_mipmap_linear",
            "--wrap-s",
            wrap,
            "--wrap-t",
            wrap,
            "--gl",
            p(&gl),
        ];
        let model = sample(&dir, &tex, &csv, &args);
        let mesa = rgba_rows(&fs::read_to_string(&gl).expect("gl csv"));
        assert_eq!(mesa.len(), model.len());
        for (m, g) in model.iter().zip(&mesa) {
            assert!(
                m.iter().zip(g).all(|(a, b)| a.abs_diff(*b) <= 1),
                "{wrap}: model {m:?}, Mesa {g:?}"
            );
        }
        // Not a copy: the texture's colours, not a constant.
        assert!(mesa.iter().any(|c| c != &mesa[0]));
    }
}

#[test]
fn dxt1_dds_decodes_its_blocks() {
    let dir = scratch("dxt1");
    // 8x4: two blocks. Block 0: red / blue, indices 0,1,2,3 along each row (four-colour
    // mode). Block 1: colour 0 = black <= colour 1 = white, indices 0,1,2,3 (three
    // colours and transparent black).
    let mut f = dds_header(8, 4, 1, 0x4, b"DXT1", 0, [0; 4]);
    for (c0, c1) in [(0xf800u16, 0x001fu16), (0x0000, 0xffff)] {
        f.extend_from_slice(&c0.to_le_bytes());
        f.extend_from_slice(&c1.to_le_bytes());
        f.extend_from_slice(&0xe4e4_e4e4u32.to_le_bytes());
    }
    let tex = dir.join("t.dds");
    fs::write(&tex, &f).unwrap();
    let mut csv = String::new();
    for x in 0..8 {
        csv += &format!("{},{},0\n", (x as f32 + 0.5) / 8.0, 2.5 / 4.0);
    }
    let want = vec![
        [255, 0, 0, 255],
        [0, 0, 255, 255],
        [170, 0, 85, 255],
        [85, 0, 170, 255],
        [0, 0, 0, 255],
        [255, 255, 255, 255],
        [127, 127, 127, 255],
        [0, 0, 0, 0],
    ];
    assert_eq!(sample(&dir, &tex, &csv, &NEAREST), want);
    // The same blocks stored as rgba8888 (decoded, then sampled): the same texels.
    let mut args = NEAREST.to_vec();
    args.extend(["--format", "rgba8888", "--layout", "linear"]);
    assert_eq!(sample(&dir, &tex, &csv, &args), want);
}

#[test]
fn formats_convert_by_rounding() {
    let dir = scratch("formats");
    let tex = dir.join("t.png");
    write_png(&tex, 4, 4, |x, _| {
        if x < 2 {
            [200, 100, 50, 30]
        } else {
            [0, 0, 255, 255]
        }
    });
    let csv = "0.125,0.5,0\n0.875,0.5,0\n";
    let run = |f: &str| {
        let mut args = NEAREST.to_vec();
        args.extend(["--format", f]);
        sample(&dir, &tex, csv, &args)
    };
    // rgba4444: round(c * 15 / 255) * 17.
    assert_eq!(run("rgba4444"), vec![[204, 102, 51, 34], [0, 0, 255, 255]]);
    // rgb565: 200 -> 24 -> 197, 100 -> 25 -> 101, 50 -> 6 -> 49; alpha 255.
    assert_eq!(run("rgb565"), vec![[197, 101, 49, 255], [0, 0, 255, 255]]);
    assert_eq!(run("l8"), vec![[200, 200, 200, 255], [0, 0, 0, 255]]);
    assert_eq!(run("a8"), vec![[0, 0, 0, 30], [0, 0, 0, 255]]);
    // dxt1 of a two-colour block: the nearest 565 colours, opaque, widened by bit
    // replication as S3TC decoders do: 24 -> 198, 25 -> 101, 6 -> 49.
    assert_eq!(run("dxt1"), vec![[198, 101, 49, 255], [0, 0, 255, 255]]);
}

#[test]
fn draw_at_scale_1_reproduces_the_texture() {
    let dir = scratch("draw");
    let tex = dir.join("t.png");
    let f = |x: u32, y: u32| {
        [
            (x * 4) as u8,
            (y * 4) as u8,
            ((x * y) % 256) as u8,
            255 - x as u8,
        ]
    };
    write_png(&tex, 64, 64, f);
    let out = dir.join("out.png");
    let o = gpurtl(&[
        "draw",
        "--texture",
        p(&tex),
        "--width",
        "64",
        "--height",
        "64",
        "--scale",
        "1",
        "--angle",
        "0",
        "--min-filter",
        "nearest",
        "--mag-filter",
        "nearest",
        "--out",
        p(&out),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("quads sampled: 1024"), "{text}");
    assert!(text.contains("\n0      64x64       1024\n"), "{text}");
    let (w, h, px) = read_png(&out);
    assert_eq!((w, h), (64, 64));
    for y in 0..64 {
        for x in 0..64 {
            assert_eq!(px[(y * 64 + x) as usize], f(x, y), "pixel ({x},{y})");
        }
    }
    // Rotated, shrunk and tilted with trilinear filtering: corners stay transparent,
    // the centre is covered, and smaller levels are chosen.
    let o = gpurtl(&[
        "draw",
        "--texture",
        p(&tex),
        "--width",
        "96",
        "--height",
        "80",
        "--scale",
        "0.5",
        "--angle",
        "30",
        "--perspective",
        "0.5",
        "--min-filter",
        "linear_mipmap_linear",
        "--out",
        p(&out),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let at_level_1: u64 = text
        .lines()
        .find(|l| l.starts_with("1 "))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no level 1 line in\n{text}"));
    assert!(at_level_1 > 0, "{text}");
    let (w, h, px) = read_png(&out);
    assert_eq!((w, h), (96, 80));
    assert_eq!(px[0], [0, 0, 0, 0]);
    assert_eq!(px[(80 * 96 - 1) as usize], [0, 0, 0, 0]);
    assert_ne!(px[(40 * 96 + 48) as usize][3], 0);
}

/// Runs a command that must fail with exit 2, mention every one of `needles` on stderr
/// and leave no output file.
fn fails(args: &[&str], out: &Path, needles: &[&str]) {
    let o = gpurtl(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}\n{err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: `{n}` not in\n{err}");
    }
    assert!(!out.exists(), "{args:?} left {}", out.display());
    let dir = out.parent().unwrap();
    let stray: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(stray.is_empty(), "temporary files left: {stray:?}");
}

#[test]
fn bad_inputs_exit_2_and_write_nothing() {
    let dir = scratch("errors");
    let good = dir.join("good.png");
    write_png(&good, 8, 8, texel);
    let coords = dir.join("coords.csv");
    fs::write(&coords, "s,t\n0.5,0.5\n").unwrap();
    let out = dir.join("out.csv");
    let missing = dir.join("missing.png");
    fails(
        &[
            "sample",
            "--texture",
            p(&missing),
            "--coords",
            p(&coords),
            "--out",
            p(&out),
        ],
        &out,
        &["missing.png", "cannot read the texture"],
    );
    let npot = dir.join("npot.png");
    write_png(&npot, 6, 8, texel);
    fails(
        &[
            "sample",
            "--texture",
            p(&npot),
            "--coords",
            p(&coords),
            "--out",
            p(&out),
        ],
        &out,
        &[
            "npot.png: texture is 6x8: width 6 is not a power of two",
            "allowed:",
        ],
    );
    let bad = dir.join("bad.csv");
    fs::write(&bad, "s,t\n0.5,0.5\n0.25,zero\n").unwrap();
    fails(
        &[
            "sample",
            "--texture",
            p(&good),
            "--coords",
            p(&bad),
            "--out",
            p(&out),
        ],
        &out,
        &[
            "bad.csv:3:6: field 2 (t) `zero` is not a number",
            "allowed:",
        ],
    );
    fails(
        &[
            "sample",
            "--texture",
            p(&good),
            "--coords",
            p(&coords),
            "--min-filter",
            "bilinear",
            "--out",
            p(&out),
        ],
        &out,
        &[
            "bilinear",
            "nearest, linear, nearest_mipmap_nearest, linear_mipmap_nearest, nearest_mipmap_linear, linear_mipmap_linear",
        ],
    );
    fails(
        &[
            "sample",
            "--texture",
            p(&good),
            "--coords",
            p(&coords),
            "--mag-filter",
            "linear_mipmap_linear",
            "--out",
            p(&out),
        ],
        &out,
        &["allowed: nearest, linear"],
    );
    let png_out = dir.join("out.png");
    fails(
        &["draw", "--texture", p(&npot), "--out", p(&png_out)],
        &png_out,
        &["texture is 6x8"],
    );
    fails(
        &[
            "draw",
            "--texture",
            p(&good),
            "--perspective",
            "1",
            "--out",
            p(&png_out),
        ],
        &png_out,
        &["[0, 1)"],
    );
    // A failed run leaves an earlier output untouched.
    fs::write(&out, "earlier\n").unwrap();
    let o = gpurtl(&[
        "sample",
        "--texture",
        p(&good),
        "--coords",
        p(&bad),
        "--out",
        p(&out),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(fs::read_to_string(&out).unwrap(), "earlier\n");
}

/// `gpurtl` with the simulator builds where the co-simulation tests keep theirs (the
/// seed001 tmu is verilated once).
fn gpurtl_rtl(args: &[&str]) -> Output {
    let work = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("test-sim");
    Command::new(BIN)
        .args(args)
        .env("GPURTL_SIM_DIR", work)
        .output()
        .expect("run gpurtl")
}

#[test]
fn rtl_samples_and_draws_what_the_model_does() {
    let dir = scratch("rtl");
    let tex = dir.join("t.png");
    write_png(&tex, 32, 32, |x, y| {
        [
            (x * 8) as u8,
            (y * 8) as u8,
            ((x ^ y) * 8) as u8,
            (255 - x * y) as u8,
        ]
    });
    // Quads of a rotated, shrunk view, rows with a LOD, and coordinates far outside.
    let mut csv = String::new();
    for q in 0..12 {
        let (s0, t0) = (0.07 * q as f32 - 0.3, 0.05 * q as f32);
        for (dx, dy) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)] {
            csv += &format!(
                "{},{}\n",
                s0 + 0.09 * dx - 0.04 * dy,
                t0 + 0.04 * dx + 0.09 * dy
            );
        }
    }
    csv += "0.3,0.6,1.5\n-1e30,2.5\n1e30,-7.25\n0.5,0.5,-2\n";
    let coords = dir.join("c.csv");
    fs::write(&coords, &csv).unwrap();
    let cfg = project_dir_file("configs/seed001_tmu.toml");
    for format in ["rgba8888", "rgb565", "dxt1"] {
        let args = |rtl: bool| {
            let mut v = vec![
                "sample",
                "--texture",
                p(&tex),
                "--coords",
                p(&coords),
                "--format",
                format,
                "--min-filter",
                "linear_mipmap_linear",
                "--wrap-s",
                "clamp_to_edge",
                "--wrap-t",
                "mirrored_repeat",
                "--layout",
                "linear",
            ];
            if rtl {
                v.extend(["--rtl", "-c", p(&cfg)]);
            }
            v.iter().map(|s| s.to_string()).collect::<Vec<_>>()
        };
        let run = |rtl: bool| {
            let a = args(rtl);
            let o = gpurtl_rtl(&a.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(o.status.code(), Some(0), "{a:?}\n{}", stderr(&o));
            (String::from_utf8(o.stdout.clone()).unwrap(), stderr(&o))
        };
        let (model, _) = run(false);
        let (rtl, log) = run(true);
        assert_eq!(rtl, model, "{format}: the RTL's samples");
        assert!(log.contains("cache hit rate"), "{log}");
    }
    // draw --rtl: the same picture as the model's, with the unit's figures.
    let draw = |out: &Path, rtl: bool| {
        let mut a = vec![
            "draw",
            "--texture",
            p(&tex),
            "--width",
            "40",
            "--height",
            "40",
            "--angle",
            "25",
            "--scale",
            "0.6",
            "--out",
            p(out),
        ];
        if rtl {
            a.extend(["--rtl", "-c", p(&cfg)]);
        }
        let o = gpurtl_rtl(&a);
        assert_eq!(o.status.code(), Some(0), "{a:?}\n{}", stderr(&o));
        String::from_utf8(o.stdout).unwrap()
    };
    let (m, r) = (dir.join("m.png"), dir.join("r.png"));
    draw(&m, false);
    let log = draw(&r, true);
    assert!(
        log.contains("per clock") && log.contains("cache hit rate"),
        "{log}"
    );
    assert_eq!(
        read_png(&m),
        read_png(&r),
        "draw --rtl paints the model's picture"
    );
    // A unit without the format refuses, naming the key.
    let small = project_dir_file("configs/fpga_small.toml");
    let o = gpurtl_rtl(&[
        "sample",
        "--texture",
        p(&tex),
        "--coords",
        p(&coords),
        "--format",
        "dxt1",
        "--rtl",
        "-c",
        p(&small),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("has no dxt1 format (tmu.formats)"),
        "{}",
        stderr(&o)
    );
}

fn project_dir_file(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}
