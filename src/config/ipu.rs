//! `[ipu]`: the image processing unit (seed 000). Implemented so far: the command decoder,
//! the control FSM, the parameter store and stack, and the main pipeline's format
//! conversion, scale, bias and zoom stages for the DrawPixels path (DMA words in, pixels
//! out), the pixel map stage's colour maps, the convolution filter and the bitmap module.
//! With `framebuffer = true`, the framebuffer paths too: ReadPixels, CopyPixels and
//! CopyTexImage (framebuffer read in, DMA out, texture-memory write out). With the `ci8`
//! format, colour-index DrawPixels through the `i_to_*` maps (GL's INDEX_SHIFT,
//! INDEX_OFFSET and colour index lookup). `i_to_i` and `s_to_s` are rejected: they apply to
//! a colour-index framebuffer and to stencil draws, which this RGBA unit has not.

use serde::{Deserialize, Serialize};

use super::error::{Invalid, Seg, path};
use super::hs_chain::{STAGE_KINDS, StageKind};

/// The DMA pixel formats, in the order of their 3-bit code in the DRAW_PIXELS command;
/// `ci8` (code 7) is GL_COLOR_INDEX, one unsigned byte a pixel, DrawPixels only.
pub const FORMATS: [&str; 8] = [
    "rgba8888", "bgra8888", "rgb565", "rgba4444", "rgba5551", "l8", "la88", "ci8",
];
/// Code of the colour-index format.
pub const CI8: usize = 7;
/// Main-pipeline stages implemented, each followed by one handshake register.
pub const STAGES: [&str; 3] = ["unpack", "scale", "bias"];
/// Stages with an output register of their own (a table read, the zoom's FSM), whose
/// `registers` entries (4th and 5th) choose what follows it.
pub const OWN_REG_STAGES: [&str; 2] = ["map", "zoom"];
pub const PIXEL_MAPS: [&str; 10] = [
    "i_to_i", "s_to_s", "i_to_r", "i_to_g", "i_to_b", "i_to_a", "r_to_r", "g_to_g", "b_to_b",
    "a_to_a",
];

pub const LANES_ALLOWED: &str = "1, 2 or 4 pixels per clock (default 1)";
pub const FB_ALLOWED: &str = "128 (the seed's framebuffer word of 4 RGBA8 pixels; default 128)";
pub const DMA_ALLOWED: &str = "32 (the seed's DMA word; default), 64 or 128: the memory words of dma (DrawPixels, Bitmap), dma_out (ReadPixels) and tex (CopyTexImage)";
pub const FORMATS_ALLOWED: &str = "a non-empty array of distinct formats, each one of \"rgba8888\", \"bgra8888\", \"rgb565\", \"rgba4444\", \"rgba5551\", \"l8\", \"la88\", \"ci8\" (default: all but ci8; ci8 needs [ipu.pixel_map] with i_to_* maps)";
pub const FORMAT_ALLOWED: &str =
    "\"rgba8888\", \"bgra8888\", \"rgb565\", \"rgba4444\", \"rgba5551\", \"l8\", \"la88\", \"ci8\"";
pub const CI8_ALLOWED: &str = "ci8 with [ipu.pixel_map] enabled = true and at least one of \"i_to_r\", \"i_to_g\", \"i_to_b\", \"i_to_a\" in its maps (colour indices become RGBA only through them)";
pub const INT_BITS_ALLOWED: &str =
    "an integer in 1..=8: integer bits of the signed fixed-point value, sign not counted";
pub const FRAC_BITS_ALLOWED: &str =
    "an integer in 10..=16: fraction bits (10 or more keep results within 1 LSB of GL)";
pub const STACK_ALLOWED: &str = "an integer in 1..=32 (default 4)";
pub const REGISTERS_ALLOWED: &str = "an array of 3 handshake kinds, one after each stage (unpack, scale, bias), or 5 with the pixel map and zoom stages' output registers (\"bubble\", their own; \"skid\" or \"fifo:N\" also after it; not \"bypass\"); default all \"bubble\"";
pub const ZOOM_LINE_ALLOWED: &str = "an integer in 1..=8192 pixels (the widest DrawPixels the zoom stage takes; its line buffer holds one row)";
pub const ON_ALLOWED: &str = "true or false";
pub const MAP_SIZE_ALLOWED: &str = "a power of two in 2..=4096 entries";
pub const MAPS_ALLOWED: &str = "an array of distinct map names, each one of \"i_to_i\", \"s_to_s\", \"i_to_r\", \"i_to_g\", \"i_to_b\", \"i_to_a\", \"r_to_r\", \"g_to_g\", \"b_to_b\", \"a_to_a\"";
/// The maps the pixel map stage implements, by channel: colour maps, and the colour-index
/// to RGBA maps of the ci8 format.
pub const COLOUR_MAPS: [&str; 4] = ["r_to_r", "g_to_g", "b_to_b", "a_to_a"];
pub const INDEX_MAPS: [&str; 4] = ["i_to_r", "i_to_g", "i_to_b", "i_to_a"];
pub const MAP_SUPPORTED: &str = "with the stage enabled: \"r_to_r\", \"g_to_g\", \"b_to_b\", \"a_to_a\", and with the ci8 format \"i_to_r\", \"i_to_g\", \"i_to_b\", \"i_to_a\" (i_to_i and s_to_s apply to colour-index framebuffers and stencil draws: this unit draws RGBA pixels)";
pub const KERNEL_ALLOWED: &str = "an odd integer in 1..=5 (a 1x1 to 5x5 kernel)";
pub const CONV_LINE_ALLOWED: &str = "an integer in 1..=8192 pixels (the widest DrawPixels the convolution filter takes; its kernel_size - 1 line buffers hold one row each)";
pub const WEIGHT_INT_ALLOWED: &str =
    "an integer in 1..=8: integer bits of the filter weights (signed, 16 fraction bits; default 4)";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IpuSection {
    #[serde(default = "default_lanes")]
    pub lanes: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fb_word_bits: Option<u32>,
    #[serde(default = "default_dma_bits")]
    pub dma_word_bits: u32,
    #[serde(default = "default_formats")]
    pub formats: Vec<String>,
    #[serde(default = "default_scale_int")]
    pub scale_int_bits: u32,
    #[serde(default = "default_frac")]
    pub scale_frac_bits: u32,
    #[serde(default = "default_bias_int")]
    pub bias_int_bits: u32,
    #[serde(default = "default_frac")]
    pub bias_frac_bits: u32,
    #[serde(default = "default_stack")]
    pub stack_depth: u32,
    #[serde(default = "default_registers")]
    pub registers: Vec<String>,
    #[serde(default)]
    pub bitmap: bool,
    /// The framebuffer paths (ReadPixels, CopyPixels, CopyTexImage).
    #[serde(default)]
    pub framebuffer: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zoom: Option<ZoomSection>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixel_map: Option<PixelMapSection>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub convolution: Option<ConvolutionSection>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZoomSection {
    pub enabled: bool,
    #[serde(default = "default_line")]
    pub max_line_width: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PixelMapSection {
    pub enabled: bool,
    #[serde(default = "default_map_size")]
    pub table_size: u32,
    #[serde(default)]
    pub maps: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConvolutionSection {
    pub enabled: bool,
    #[serde(default = "default_kernel")]
    pub kernel_size: u32,
    #[serde(default = "default_line")]
    pub max_line_width: u32,
    #[serde(default = "default_weight_int")]
    pub weight_int_bits: u32,
}

fn default_lanes() -> u32 {
    1
}
fn default_dma_bits() -> u32 {
    32
}
fn default_formats() -> Vec<String> {
    FORMATS[..CI8].iter().map(|f| f.to_string()).collect()
}
fn default_scale_int() -> u32 {
    4
}
fn default_bias_int() -> u32 {
    2
}
fn default_frac() -> u32 {
    12
}
fn default_stack() -> u32 {
    4
}
fn default_registers() -> Vec<String> {
    vec!["bubble".into(); STAGES.len()]
}
fn default_line() -> u32 {
    1024
}
fn default_map_size() -> u32 {
    256
}
fn default_kernel() -> u32 {
    3
}
fn default_weight_int() -> u32 {
    4
}

/// Fraction bits of a convolution weight: the command's Q15.16 value kept exactly.
pub const WEIGHT_FRAC: u32 = 16;

/// A signed fixed-point format: 1 sign bit, `int` integer bits, `frac` fraction bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Fixed {
    pub int: u32,
    pub frac: u32,
}

impl Fixed {
    /// Total bits, sign included.
    pub fn width(&self) -> u32 {
        1 + self.int + self.frac
    }
    pub fn min(&self) -> i64 {
        -(1i64 << (self.int + self.frac))
    }
    pub fn max(&self) -> i64 {
        (1i64 << (self.int + self.frac)) - 1
    }
}

/// The validated `[ipu]`.
#[derive(Debug, Clone, Serialize)]
pub struct Ipu {
    pub lanes: u32,
    pub dma_word_bits: u32,
    /// Enabled formats by code (index into [`FORMATS`]).
    pub formats: [bool; 8],
    pub scale: Fixed,
    pub bias: Fixed,
    pub stack_depth: u32,
    /// Handshake register after unpack, scale and bias.
    pub registers: Vec<StageKind>,
    /// After the pixel map and zoom stages' own output registers: none (`Bubble`, the
    /// default), or a skid or FIFO register that stops ready rippling through them.
    pub map_register: StageKind,
    pub zoom_register: StageKind,
    /// The zoom stage (glPixelZoom) when enabled: its line buffer's width in pixels.
    pub zoom: Option<u32>,
    /// The pixel map stage (glPixelMap) when enabled.
    pub pixel_map: Option<PixelMap>,
    /// The bitmap module (glBitmap).
    pub bitmap: bool,
    /// The convolution filter (glConvolutionFilter2D) when enabled.
    pub convolution: Option<Convolution>,
    /// The framebuffer paths: framebuffer read in (128-bit words), DMA out, texture write
    /// out (glReadPixels, glCopyPixels, glCopyTexImage2D).
    pub framebuffer: bool,
}

/// The convolution filter: the largest kernel (`size` x `size`), the widest line its
/// line buffers hold, and the weights' format (16 fraction bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Convolution {
    pub size: u32,
    pub line: u32,
    pub weight: Fixed,
}

/// The colour maps R->R, G->G, B->B, A->A and the colour-index maps I->R, I->G, I->B,
/// I->A: the largest table and which are generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PixelMap {
    pub size: u32,
    /// By channel: R, G, B, A.
    pub maps: [bool; 4],
    /// The I_TO_* maps by channel (only with the ci8 format).
    pub index_maps: [bool; 4],
}

impl Ipu {
    /// Pixels the pipeline's registers hold when full.
    pub fn capacity(&self) -> u32 {
        self.registers
            .iter()
            .map(|s| match s {
                StageKind::Bypass => 0,
                StageKind::Bubble => 1,
                StageKind::Skid => 2,
                StageKind::Fifo { depth } => *depth,
            })
            .sum()
    }
}

impl IpuSection {
    pub fn validate(&self, errs: &mut Vec<Invalid>) -> Option<Ipu> {
        let at = |keys: &[&str]| {
            let mut p = path(&["ipu"]);
            p.extend(keys.iter().map(|k| Seg::Key((*k).into())));
            p
        };
        let before = errs.len();
        if ![1, 2, 4].contains(&self.lanes) {
            errs.push(Invalid::at(
                &at(&["lanes"]),
                format!("{} lanes", self.lanes),
                LANES_ALLOWED,
            ));
        }
        if let Some(fb) = self.fb_word_bits
            && fb != 128
        {
            errs.push(Invalid::at(
                &at(&["fb_word_bits"]),
                format!("framebuffer word of {fb} bits"),
                FB_ALLOWED,
            ));
        }
        if ![32, 64, 128].contains(&self.dma_word_bits) {
            errs.push(Invalid::at(
                &at(&["dma_word_bits"]),
                format!("DMA word of {} bits", self.dma_word_bits),
                DMA_ALLOWED,
            ));
        }
        let mut formats = [false; 8];
        if self.formats.is_empty() {
            errs.push(Invalid::at(
                &at(&["formats"]),
                "no format enabled",
                FORMATS_ALLOWED,
            ));
        }
        for (i, f) in self.formats.iter().enumerate() {
            let mut p = at(&["formats"]);
            p.push(Seg::Index(i));
            match FORMATS.iter().position(|x| x == f) {
                Some(code) if formats[code] => {
                    errs.push(Invalid::at(
                        &p,
                        format!("format {f:?} listed twice"),
                        FORMATS_ALLOWED,
                    ));
                }
                Some(code) => formats[code] = true,
                None => errs.push(Invalid::at(
                    &p,
                    format!("unknown format {f:?}"),
                    FORMAT_ALLOWED,
                )),
            }
        }
        for (key, v) in [
            ("scale_int_bits", self.scale_int_bits),
            ("bias_int_bits", self.bias_int_bits),
        ] {
            if !(1..=8).contains(&v) {
                errs.push(Invalid::at(
                    &at(&[key]),
                    format!("{v} integer bits"),
                    INT_BITS_ALLOWED,
                ));
            }
        }
        for (key, v) in [
            ("scale_frac_bits", self.scale_frac_bits),
            ("bias_frac_bits", self.bias_frac_bits),
        ] {
            if !(10..=16).contains(&v) {
                errs.push(Invalid::at(
                    &at(&[key]),
                    format!("{v} fraction bits"),
                    FRAC_BITS_ALLOWED,
                ));
            }
        }
        if !(1..=32).contains(&self.stack_depth) {
            errs.push(Invalid::at(
                &at(&["stack_depth"]),
                format!("stack depth {}", self.stack_depth),
                STACK_ALLOWED,
            ));
        }
        let mut registers = Vec::new();
        let own = STAGES.len() + OWN_REG_STAGES.len();
        if self.registers.len() != STAGES.len() && self.registers.len() != own {
            errs.push(Invalid::at(
                &at(&["registers"]),
                format!("{} registers given", self.registers.len()),
                REGISTERS_ALLOWED,
            ));
        }
        for (i, text) in self.registers.iter().enumerate() {
            let mut p = at(&["registers"]);
            p.push(Seg::Index(i));
            match StageKind::parse(text) {
                Ok(StageKind::Bypass) if i >= STAGES.len() => errs.push(Invalid::at(
                    &p,
                    format!(
                        "\"bypass\" after the {} stage, whose output is a register of its own",
                        OWN_REG_STAGES[(i - STAGES.len()).min(OWN_REG_STAGES.len() - 1)]
                    ),
                    REGISTERS_ALLOWED,
                )),
                Ok(k) => registers.push(k),
                Err(msg) => errs.push(Invalid::at(&p, msg, STAGE_KINDS)),
            }
        }
        // The map and zoom entries, when given, leave the main three.
        let own_regs: Vec<StageKind> = registers.split_off(STAGES.len().min(registers.len()));
        let own_reg = |k: usize| own_regs.get(k).copied().unwrap_or(StageKind::Bubble);
        if let Some(z) = &self.zoom
            && !(1..=8192).contains(&z.max_line_width)
        {
            errs.push(Invalid::at(
                &at(&["zoom", "max_line_width"]),
                format!("line width {}", z.max_line_width),
                ZOOM_LINE_ALLOWED,
            ));
        }
        let mut pixel_map = None;
        if let Some(m) = &self.pixel_map {
            if !(m.table_size.is_power_of_two() && (2..=4096).contains(&m.table_size)) {
                errs.push(Invalid::at(
                    &at(&["pixel_map", "table_size"]),
                    format!("table size {}", m.table_size),
                    MAP_SIZE_ALLOWED,
                ));
            }
            let mut seen = Vec::new();
            let mut colour = [false; 4];
            let mut index = [false; 4];
            if m.enabled && m.maps.is_empty() {
                errs.push(Invalid::at(
                    &at(&["pixel_map", "maps"]),
                    "no map listed",
                    MAPS_ALLOWED,
                ));
            }
            for (i, name) in m.maps.iter().enumerate() {
                let mut p = at(&["pixel_map", "maps"]);
                p.push(Seg::Index(i));
                if !PIXEL_MAPS.contains(&name.as_str()) {
                    errs.push(Invalid::at(
                        &p,
                        format!("unknown map {name:?}"),
                        MAPS_ALLOWED,
                    ));
                } else if seen.contains(name) {
                    errs.push(Invalid::at(
                        &p,
                        format!("map {name:?} listed twice"),
                        MAPS_ALLOWED,
                    ));
                } else if let Some(ch) = COLOUR_MAPS.iter().position(|c| c == name) {
                    colour[ch] = true;
                } else if let Some(ch) = INDEX_MAPS.iter().position(|c| c == name) {
                    index[ch] = true;
                    if m.enabled && !formats[CI8] {
                        errs.push(Invalid::at(
                            &p,
                            format!("map {name:?} converts colour indices, but formats does not list \"ci8\""),
                            MAP_SUPPORTED,
                        ));
                    }
                } else if m.enabled {
                    errs.push(Invalid::at(
                        &p,
                        format!("map {name:?} applies to a colour-index framebuffer or stencil draws, which this unit has not"),
                        MAP_SUPPORTED,
                    ));
                }
                seen.push(name.clone());
            }
            if m.enabled {
                pixel_map = Some(PixelMap {
                    size: m.table_size,
                    maps: colour,
                    index_maps: index,
                });
            }
        }
        // Colour indices become RGBA only through the I_TO_* maps.
        if formats[CI8]
            && !pixel_map.is_some_and(|m: PixelMap| m.index_maps.iter().any(|on| *on))
            && let Some(i) = self.formats.iter().position(|f| f == FORMATS[CI8])
        {
            let mut p = at(&["formats"]);
            p.push(Seg::Index(i));
            errs.push(Invalid::at(
                &p,
                "format \"ci8\" without an enabled [ipu.pixel_map] listing i_to_* maps",
                CI8_ALLOWED,
            ));
        }
        if let Some(c) = &self.convolution {
            if !(c.kernel_size % 2 == 1 && (1..=5).contains(&c.kernel_size)) {
                errs.push(Invalid::at(
                    &at(&["convolution", "kernel_size"]),
                    format!("kernel size {}", c.kernel_size),
                    KERNEL_ALLOWED,
                ));
            }
            if !(1..=8192).contains(&c.max_line_width) {
                errs.push(Invalid::at(
                    &at(&["convolution", "max_line_width"]),
                    format!("line width {}", c.max_line_width),
                    CONV_LINE_ALLOWED,
                ));
            }
            if !(1..=8).contains(&c.weight_int_bits) {
                errs.push(Invalid::at(
                    &at(&["convolution", "weight_int_bits"]),
                    format!("{} integer bits", c.weight_int_bits),
                    WEIGHT_INT_ALLOWED,
                ));
            }
        }
        (errs.len() == before).then_some(Ipu {
            lanes: self.lanes,
            dma_word_bits: self.dma_word_bits,
            formats,
            scale: Fixed {
                int: self.scale_int_bits,
                frac: self.scale_frac_bits,
            },
            bias: Fixed {
                int: self.bias_int_bits,
                frac: self.bias_frac_bits,
            },
            stack_depth: self.stack_depth,
            registers,
            map_register: own_reg(0),
            zoom_register: own_reg(1),
            zoom: self
                .zoom
                .as_ref()
                .filter(|z| z.enabled)
                .map(|z| z.max_line_width),
            pixel_map,
            bitmap: self.bitmap,
            framebuffer: self.framebuffer,
            convolution: self
                .convolution
                .as_ref()
                .filter(|c| c.enabled)
                .map(|c| Convolution {
                    size: c.kernel_size,
                    line: c.max_line_width,
                    weight: Fixed {
                        int: c.weight_int_bits,
                        frac: WEIGHT_FRAC,
                    },
                }),
        })
    }
}
