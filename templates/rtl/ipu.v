{{ stamp }}
// {{ name }}: image processing unit (seed 000), the DrawPixels path{% if fb.is_some() %} and the framebuffer paths{% endif %}: the command
// decoder and control FSM with the parameter store and stack ({{ ctrl }}), and the main
// pipeline's stages (1) unpack: DMA words to RGBA8 pixels, (2) scale and (3) bias
// (glPixelTransfer: c * scale + bias, clamped and rounded), a handshake register after
// each ({{ reg_labels }}).
//
// Commands (cmd, 32 bits, opcode in [31:24]; see src/iface/ipu.rs, src/model/ipu.rs and
// README.md):
{%- for l in command_lines %}
//   {{ l }}
{%- endfor %}
// DRAW_PIXELS sends the DMA request (dma_req: 32-bit words to send), then takes that many
// words from dma; pixels leave on pix as {% if multi %}{mask[{{ lanes }}], {% else %}{{ "{" }}{% endif %}y[15:0], x[15:0], {{ lanes }} x RGBA8}: up to {{ lanes }}
// pixel(s) of one row from one DMA word per beat. Formats: {{ format_list }}.
{%- for l in status_lines %}
// {{ l }}
{%- endfor %}
// Scale S{{ sint }}.{{ sf }}, bias S{{ bint }}.{{ bf }} (signed fixed point); commands carry S15.16 values, floored
// and saturated. Stack of {{ depth }} entries of the 4 scales and 4 biases.
// Throughput: one beat per clock in PIPELINE; a parameter change waits until the
// pipeline ({{ capacity }} register slot(s)) has drained.
{%- if let Some((_, line)) = zoom %}
// Stage (4), zoom (glPixelZoom, factors signed Q7.16, pushed and popped with scale and
// bias): see its module; a draw waits for the one before to leave it, draws wider than
// its line buffer ({{ line }} pixels) are dropped with status event {{ ev_width }}.
{%- endif %}
{%- if let Some(m) = map %}
// Stage (5), pixel maps (glPixelMap colour maps, {{ m.size }} entries; placed after bias, before the
// filter and zoom, in GL's order): see its module; PIXELMAP
// writes a table an entry a clock (state PIXELMAP) once the pipeline has drained.
{%- endif %}
{%- if ci %}
// Colour-index draws (format ci8, GL_COLOR_INDEX): 0x50 INDEX_TRANSFER (2 words) sets GL's
// INDEX_SHIFT or INDEX_OFFSET (not on the stack); a ci8 draw's index skips scale and bias
// (both set to the identity for its pixels) and the map stage turns it into RGBA through
// the I_TO_* maps. A draw waits for the one before to leave the unit.
{%- endif %}
{%- if let Some(c) = conv %}
// Convolution filter (glConvolutionFilter2D, GL_REDUCE, up to {{ c.k }}x{{ c.k }}, weights signed
// {{ c.ww }} bits with 16 fraction bits; not on the stack): see its module. It follows the
// pixel maps and precedes zoom, as in GL. CONVOLUTION_FILTER loads the weights a word a
// clock (state FILTER) once the pipeline has drained; a size of 0 or above {{ c.k }} is
// status event {{ ev_filter }}.{% if c.checks_width %} With the filter on, draws wider than its line buffers ({{ c.line }} pixels)
// are dropped with status event {{ ev_width }}.{% endif %}
{%- endif %}
{%- if bitmap %}
// Bitmap (glBitmap): BITMAP requests ceil(width / 8) bytes a row from the DMA and, in
// state BITMAP, makes a fragment in the raster colour for each set bit (bit 7 of a byte
// leftmost), one a clock, merged onto pix ahead of the (drained) pipeline; the bitmap
// sits at the raster position (RASTER_POS) less its origin, and the raster position then
// moves by BITMAP's xmove, ymove.
{%- endif %}
{%- if let Some(pk) = fb %}
// Framebuffer paths: 0x4D READ_PIXELS (3 words), 0x4E COPY_PIXELS (4 words),
// 0x4F COPY_TEX_IMAGE (4 words). Each sends fb_req {height, width, y, x} (SEND_PARA), then
// takes the region from fb: rows bottom up, ceil(width / 4) 128-bit words a row, pixel i of
// a word in bits [32i+31:32i] (a row's last word partly filled); stage 1 takes up to
// {{ lanes }} pixel(s) of a word a beat. COPY_PIXELS' pixels leave on pix like a draw's, at the
// destination; READ_PIXELS' and COPY_TEX_IMAGE's bypass zoom and go to the packer
// ({{ pk.module }}): words on dma_out, or on tex as {address, word} from the base address.
// A draw, bitmap or framebuffer command waits for the one before to leave the unit.
{%- endif %}
// Latency: DMA word to pixel {{ regs.len() }} register stage(s) (bypass stages add none).
// Combinational paths: pix_ready_i -> dma_ready_o (through bubble and bypass stages);{% if fb.is_some() %}
// pix_ready_i, dma_out_ready_i, tex_ready_i -> fb_ready_o (likewise, and the packer);{% endif %}
// pass_ready_i -> cmd_ready_o (in {{ ctrl }}). Outputs come from flops{% if regs[2].module.is_none() %} (pix from the stage before when the
// last register is a bypass){% endif %}.
module {{ name }} #(
  // Entries of the parameter stack (1..=32).
  parameter integer StackDepth = {{ depth }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire cmd_valid_i,
  output wire cmd_ready_o,
  input wire [31:0] cmd_data_i,
  input wire dma_valid_i,
  output wire dma_ready_o,
  input wire [{{ dma_w - 1 }}:0] dma_data_i,
  output wire pass_valid_o,
  input wire pass_ready_i,
  output wire [31:0] pass_data_o,
  output wire dma_req_valid_o,
  input wire dma_req_ready_i,
  output wire [31:0] dma_req_data_o,
  output wire pix_valid_o,
  input wire pix_ready_i,
  output wire [{{ pix_w - 1 }}:0] pix_data_o,
  output wire status_valid_o,
  input wire status_ready_i,
  output wire [{{ status_w - 1 }}:0] status_data_o{% if fb.is_some() %},
  input wire fb_valid_i,
  output wire fb_ready_o,
  input wire [127:0] fb_data_i,
  output wire fb_req_valid_o,
  input wire fb_req_ready_i,
  output wire [63:0] fb_req_data_o,
  output wire dma_out_valid_o,
  input wire dma_out_ready_i,
  output wire [{{ dma_w - 1 }}:0] dma_out_data_o,
  output wire tex_valid_o,
  input wire tex_ready_i,
  output wire [{{ dma_w + 31 }}:0] tex_data_o{% endif %}
);
  // Stage data, lane 0 lowest: {mask[lanes], y, x, lanes x item} (iface::ipu::beat_fields;
  // the pix beat has no mask at one lane).
{%- for l in beat_params %}
  {{ l }}
{%- endfor %}
{%- if conv.is_some() || map.is_some() || zoom.is_some() %}
  // Sizes of the stages' buffers, the stages' and the decoder's parameters.
{%- endif %}
{%- if let Some(c) = conv %}
  localparam integer ConvKernel = {{ c.k }};
  localparam integer WeightW = {{ c.ww }};  // a stored weight, 16 fraction bits
{%- if c.checks_width %}
  localparam integer ConvMaxLine = {{ c.line }};
{%- endif %}
{%- endif %}
{%- if let Some(m) = map %}
  localparam integer MapEntries = {{ m.size }};
  localparam integer MapAddrW = {{ m.addr_w }};
{%- endif %}
{%- if let Some((_, line)) = zoom %}
  localparam integer ZoomMaxLine = {{ line }};
{%- if fb.is_some() %}
  localparam [23:0] ZoomOne = 24'h{{ zoom_one }};  // zoom factor 1.0 (signed Q7.16)
{%- endif %}
{%- endif %}

  // ---------------------------------------------------------------------------------
  // What the decoder ({{ ctrl }}) holds and the stages read.
  wire in_pipe;
  wire [2:0] sel;  // the draw's format{% if map.is_some() %}; PIXELMAP's map{% endif %}
  wire [1:0] bpp_log;
  wire [15:0] col;
  wire [15:0] row;
  wire last_row;  // the draw's last row (the decoder's flag)
{%- if bitmap %}
  wire bm_last_col;  // a bitmap's last column (the decoder's flag)
{%- endif %}
  wire [{{ byte_w - 1 }}:0] px_byte;  // byte of the next pixel in the current DMA word
  wire [15:0] width;
  wire [15:0] height;
{%- if zoom.is_none() && conv.is_none() %}
  wire unused_height = ^height;  // only the zoom and the filter read it
{%- endif %}
  wire [15:0] x0;
  wire [15:0] y0;
  wire [{{ 4 * sw - 1 }}:0] scale;  // {A, B, G, R}
  wire [{{ 4 * bw - 1 }}:0] bias;
{%- if zoom.is_some() %}
  wire [23:0] zx;  // zoom factors, signed Q7.16
  wire [23:0] zy;
{%- endif %}
  reg [{{ cnt_w - 1 }}:0] inflight_q;  // pixels issued and not yet out
  reg [{{ cnt_w - 1 }}:0] inflight_d;
{%- if fb.is_some() %}
  wire fb_act;
  wire to_pack;  // the pipeline's pixels go to the packer, not pix
  wire to_tex;  // ... and its words to tex, not dma_out
  wire [2:0] pkfmt;  // the packed format
  wire [31:0] taddr;  // COPY_TEX_IMAGE: the next word's address
  wire pack_busy;
  // The pipeline's end, split between pix and the packer.
  wire tail_valid;
  wire tail_ready;
  wire [PixW-1:0] tail_data;
{%- endif %}
{%- if bitmap %}
  wire in_bitmap;
  wire [31:0] raster;  // GL's current raster colour {A, B, G, R}
  reg bm_valid_q;  // a bitmap fragment waits on pix
  reg bm_valid_d;
  reg [PixW-1:0] bm_data_q;
  // The pipeline's output, merged with the bitmap's fragments on pix.
  wire pipe_valid;
  wire pipe_ready;
  wire [PixW-1:0] pipe_data;
{%- endif %}
{%- if map.is_some() %}
  wire map_color;
  wire [4*MapAddrW-1:0] msize;  // per channel: entries - 1
  wire [3:0] loaded;
  wire map_we;
  wire [MapAddrW-1:0] map_waddr;
  wire [7:0] map_wdata;
  wire map_busy;
{%- endif %}
{%- if ci %}
  wire ci;  // the pipeline's pixels are a ci8 draw's
  wire [4:0] ishift;
  wire [MapAddrW-1:0] ioff;
  wire [4*MapAddrW-1:0] imask;
  wire [3:0] iloaded;
{%- endif %}
{%- if conv.is_some() %}
  wire conv_on;  // GL's CONVOLUTION_2D
  wire [2:0] kw;  // the filter's size
  wire [2:0] kh;
  wire conv_clr;
  wire [3:0] fmask;  // the filter being loaded: its channels and size
  wire [2:0] lkw;
  wire [2:0] lkh;
  wire conv_we;
  wire [WeightW-1:0] weight;
  wire conv_busy;
{%- endif %}

{%- if zoom.is_some() %}
  wire zoom_busy;
{%- endif %}
{%- for b in reg_busy %}
  wire {{ b }};
{%- endfor %}
  wire        drained_now = (inflight_q == {{ cnt_w }}'d0){% for b in reg_busy %} & ~{{ b }}{% endfor %}{% if zoom.is_some() %} & ~zoom_busy{% endif %}{% if map.is_some() %} & ~map_busy{% endif %}{% if bitmap %} & ~bm_valid_q{% endif %}{% if conv.is_some() %} & ~conv_busy{% endif %}{% if fb.is_some() %} & ~pack_busy{% endif %};
{%- if drained_reg %}
  // What the FSM waits on, from a flop: the pipeline was empty a clock ago, and the state
  // reading it (RECEIVE_1, SEND_ONE_IDLE, PIXELMAP{% if conv.is_some() %}, FILTER{% endif %}) was not one issuing pixels{% if bitmap %}
  // or bitmap fragments{% endif %} then (the clock's schedule: busy flags to the FSM's enables do not
  // fit a clock).
  reg drained_q;
  wire drained = drained_q;
{%- else %}
  wire drained = drained_now;
{%- endif %}


  // ---------------------------------------------------------------------------------
  // Stage 1, unpack: a group of up to {{ lanes }} pixel(s) of one row from the DMA word.
{%- if fb.is_some() %}
  // From the framebuffer, px_byte counts pixels of the 128-bit word: one "byte" a pixel.
  wire [1:0] step_log = fb_act ? 2'd0 : bpp_log;
  wire src_valid = fb_act ? fb_valid_i : dma_valid_i;
{%- else %}
  wire [1:0] step_log = bpp_log;
  wire src_valid = dma_valid_i;
{%- endif %}
{%- if lanes == 1 %}
  // One lane: a group is one pixel. The word has room for it (pixels are aligned in a
  // word, and a word that a pixel ends is done), and the row has one left until its last
  // column, so neither the room nor the row's count is looked at before the issue.
{%- else %}
  // Pixels left in the word: its bytes after px_byte, by bytes per pixel.
{%- if fb_word_differs %}
  wire [{{ byte_w }}:0] room = fb_act ? ({{ byte_w + 1 }}'d4 - {1'b0, px_byte}) : ({{ byte_w + 1 }}'d{{ wb }} - {1'b0, px_byte});
{%- else %}
  wire [{{ byte_w }}:0] room = {{ byte_w + 1 }}'d{{ wb }} - {1'b0, px_byte};
{%- endif %}
  wire [{{ byte_w }}:0] slots = room >> step_log;
  wire [2:0] cap = (slots < {{ byte_w + 1 }}'d{{ lanes }}) ? slots[2:0] : 3'd{{ lanes }};
{%- endif %}
  // The row's pixels left (width - col), counted down in two parts so that no
  // subtract or 16-bit compare sits in front of the group: left_hi_q = left / 8, with
  // flags for 0 and 1 kept beside it, and left_lo_q = left % 8. A group is at most
  // {{ lanes }} pixels, below 8, so "left < cap" and "left == group" need only the low part
  // and the zero flag. Loaded from the width outside the pipeline states (the size loads
  // two clocks before them) and at each row's end.
  reg [12:0] left_hi_q;
  reg left_hi0_q;
  reg left_hi1_q;
  reg [2:0] left_lo_q;
{%- if lanes == 1 %}
  wire [2:0] group = 3'd1;
{%- else %}
  wire [2:0] group = (left_hi0_q & (left_lo_q < cap)) ? left_lo_q : cap;
{%- endif %}
  wire [{{ byte_w + 1 }}:0] advance = {{ "{{" }}{{ byte_w - 1 }}{1'b0}}, group} << step_log;
  wire [{{ byte_w + 1 }}:0] byte_end = {2'b0, px_byte} + advance;
  wire last_col = left_hi0_q & (left_lo_q == group);
  wire last_px = last_col & last_row;
{%- if fb.is_some() %}
  // A framebuffer row ends its word.
{%- if fb_word_differs %}
  wire word_done = (byte_end == (fb_act ? {{ byte_w + 2 }}'d4 : {{ byte_w + 2 }}'d{{ wb }})) | last_px | (fb_act & last_col);
{%- else %}
  wire word_done = (byte_end == {{ byte_w + 2 }}'d{{ wb }}) | last_px | (fb_act & last_col);
{%- endif %}
{%- else %}
  wire word_done = (byte_end == {{ byte_w + 2 }}'d{{ wb }}) | last_px;
{%- endif %}

  wire unpack_in_valid = in_pipe & src_valid;
  wire unpack_in_ready;
  wire issue = unpack_in_valid & unpack_in_ready;
  always @(posedge clk_i) begin
    if (~in_pipe | (issue & last_col)) begin
      left_hi_q  <= width[15:3];
      left_hi0_q <= (width[15:3] == 13'd0);
      left_hi1_q <= (width[15:3] == 13'd1);
      left_lo_q  <= width[2:0];
    end else if (issue) begin
      left_lo_q <= left_lo_q - group;
      if (left_lo_q < group) begin
        // The borrow: one fewer eight.
        left_hi_q  <= left_hi_q - 13'd1;
        left_hi0_q <= left_hi1_q;
        left_hi1_q <= (left_hi_q == 13'd2);
      end
    end
  end
{%- if bitmap %}
  // Bitmap: bit 7 - col[2:0] of byte px_byte is the pixel at col; a set bit waits for pix.
  // (7 - c is ~c in three bits: the index is the two fields side by side, no subtract.)
  wire [{{ byte_w + 2 }}:0] bm_index = {px_byte, ~col[2:0]};
  wire bm_bit = dma_data_i[bm_index];
  wire bm_byte_end = (col[2:0] == 3'd7) | bm_last_col;
  wire bm_word_end = bm_byte_end & ((&px_byte) | (bm_last_col & last_row));
  wire bm_ok = ~bm_bit | ~bm_valid_q | pix_ready_i;
  wire bm_step = in_bitmap & dma_valid_i & bm_ok;
  wire bm_load = bm_step & bm_bit;
  // The fragment register loads at every step that finds it free or leaving, the bit
  // aside: a clear bit's load is never looked at (bm_valid_q stays low), and the enable of
  // 64 flops does not wait for the word's bit select.
  wire bm_free = in_bitmap & dma_valid_i & (~bm_valid_q | pix_ready_i);
  assign dma_ready_o = (in_pipe & {% if fb.is_some() %}~fb_act & {% endif %}unpack_in_ready & word_done) | (in_bitmap & bm_ok & bm_word_end);
{%- else %}
  assign dma_ready_o = in_pipe & {% if fb.is_some() %}~fb_act & {% endif %}unpack_in_ready & word_done;
{%- endif %}
{%- if fb.is_some() %}
  assign fb_ready_o  = in_pipe & fb_act & unpack_in_ready & word_done;
{%- endif %}

  // ---------------------------------------------------------------------------------
  // Decoder and control FSM: commands, parameters, the stack, status and requests.
  {{ ctrl }} #(
    .StackDepth  (StackDepth){% if zoom.is_some() %},
    .ZoomMaxLine (ZoomMaxLine){% endif %}{% if map.is_some() %},
    .TableSize   (MapEntries){% endif %}{% if let Some(c) = conv %},
    .Kernel      (ConvKernel),{% if c.checks_width %}
    .ConvMaxLine (ConvMaxLine),{% endif %}
    .WeightWidth (WeightW){% endif %}
  ) u_ctrl (
    .clk_i           (clk_i),
    .{{ rst.port }}{{ ctrl_pad }} ({{ rst.port }}),
    .cmd_valid_i     (cmd_valid_i),
    .cmd_ready_o     (cmd_ready_o),
    .cmd_data_i      (cmd_data_i),
    .pass_valid_o    (pass_valid_o),
    .pass_ready_i    (pass_ready_i),
    .pass_data_o     (pass_data_o),
    .dma_req_valid_o (dma_req_valid_o),
    .dma_req_ready_i (dma_req_ready_i),
    .dma_req_data_o  (dma_req_data_o),
{%- if fb.is_some() %}
    .fb_req_valid_o  (fb_req_valid_o),
    .fb_req_ready_i  (fb_req_ready_i),
    .fb_req_data_o   (fb_req_data_o),
{%- endif %}
    .status_valid_o  (status_valid_o),
    .status_ready_i  (status_ready_i),
    .status_data_o   (status_data_o),
    .drained_i       (drained),
    .issue_i         (issue),
    .group_i         (group),
    .last_col_i      (last_col),
    .last_px_i       (last_px),
    .word_done_i     (word_done),
    .byte_end_i      (byte_end[{{ byte_w - 1 }}:0]),
    .src_valid_i     (src_valid),
{%- if bitmap %}
    .bm_step_i       (bm_step),
    .bm_byte_end_i   (bm_byte_end),
{%- endif %}
{%- if fb.is_some() %}
    .tex_take_i      (tex_valid_o & tex_ready_i),
{%- endif %}
    .in_pipe_o       (in_pipe),
{%- if bitmap %}
    .in_bitmap_o     (in_bitmap),
{%- endif %}
    .sel_o           (sel),
    .bpp_log_o       (bpp_log),
    .col_o           (col),
    .row_o           (row),
    .last_row_o      (last_row),
{%- if bitmap %}
    .bm_last_col_o   (bm_last_col),
{%- endif %}
    .byte_o          (px_byte),
    .width_o         (width),
    .height_o        (height),
    .x0_o            (x0),
    .y0_o            (y0),
    .scale_o         (scale),
    .bias_o          (bias){% if zoom.is_some() %},
    .zx_o            (zx),
    .zy_o            (zy){% endif %}{% if map.is_some() %},
    .map_color_o     (map_color),
    .msize_o         (msize),
    .loaded_o        (loaded),
    .map_we_o        (map_we),
    .map_waddr_o     (map_waddr),
    .map_wdata_o     (map_wdata){% endif %}{% if ci %},
    .ci_o            (ci),
    .ishift_o        (ishift),
    .ioff_o          (ioff),
    .imask_o         (imask),
    .iloaded_o       (iloaded){% endif %}{% if bitmap %},
    .raster_o        (raster){% endif %}{% if conv.is_some() %},
    .conv_on_o       (conv_on),
    .kw_o            (kw),
    .kh_o            (kh),
    .conv_clr_o      (conv_clr),
    .fmask_o         (fmask),
    .lkw_o           (lkw),
    .lkh_o           (lkh),
    .conv_we_o       (conv_we),
    .weight_o        (weight){% endif %}{% if fb.is_some() %},
    .fb_act_o        (fb_act),
    .to_pack_o       (to_pack),
    .to_tex_o        (to_tex),
    .pkfmt_o         (pkfmt),
    .taddr_o         (taddr){% endif %}
  );

  wire [{{ dma_w + 31 }}:0] dma_wide = {32'd0, dma_data_i};
  wire [{{ lanes - 1 }}:0] mask;
  wire [UnpackW-1:0] unpack_in_data;
{%- if fetch.is_some() %}
  wire [{{ fetch_w - 1 }}:0] fetch_in_data;
{%- endif %}
{%- for l in lanes_v_list %}

  // Lane {{ l.i }}: the pixel {{ l.i }} after the group's first, {{ l.i }} x bytes_per_pixel further on.
{%- if let Some(step) = l.step_any %}
  wire [{{ byte_w - 1 }}:0] lane{{ l.i }}_step = {{ byte_w }}'d{{ step }};
{%- else %}
  reg [{{ byte_w - 1 }}:0] lane{{ l.i }}_step;
  always @(*) begin
    case (step_log)
      2'd0:    lane{{ l.i }}_step = {{ byte_w }}'d{{ l.step1 }};
      2'd1:    lane{{ l.i }}_step = {{ byte_w }}'d{{ l.step2 }};
      default: lane{{ l.i }}_step = {{ byte_w }}'d{{ l.step4 }};
    endcase
  end
{%- endif %}
  wire [{{ byte_w - 1 }}:0] lane{{ l.i }}_byte = px_byte + lane{{ l.i }}_step;
  assign mask[{{ l.i }}] = (group > 3'd{{ l.i }});
  wire [{{ raw_w - 1 }}:0] lane{{ l.i }}_raw = dma_wide[{1'b0, lane{{ l.i }}_byte, 3'b000} +: {{ raw_w }}];
{%- if fb.is_some() %}
  wire [31:0] lane{{ l.i }}_fb = fb_data_i[{lane{{ l.i }}_byte[1:0], 5'b00000} +: 32];
{%- endif %}
{%- if fetch.is_some() %}
  assign fetch_in_data{{ l.px }} = {% if fb.is_some() %}fb_act ? lane{{ l.i }}_fb : {% endif %}{% if let Some(pad) = l.pad_px %}{ {{- 32 - raw_w }}'d0, lane{{ l.i }}_raw}{% else %}lane{{ l.i }}_raw{% endif %};
{%- else %}
{%- if fb.is_some() %}
  wire [31:0] lane{{ l.i }}_rgba;
  assign unpack_in_data{{ l.px }} = fb_act ? lane{{ l.i }}_fb : lane{{ l.i }}_rgba;
{%- endif %}

  {{ convert }} u_convert{{ l.i }} (
    .fmt_i  (sel),
    .raw_i  (lane{{ l.i }}_raw),
    .rgba_o ({% if fb.is_some() %}lane{{ l.i }}_rgba{% else %}unpack_in_data{{ l.px }}{% endif %})
  );
{%- endif %}
{%- endfor %}
{%- if let Some(r) = fetch %}
  // The fetch register (the clock's schedule): the group's raw pixels, mask and position,
  // with their format{% if fb.is_some() %} and framebuffer flag{% endif %} (the next command may change sel{% if fb.is_some() %}
  // and fb_act{% endif %} while they wait in it), before the converter.
  assign fetch_in_data[{{ fetch_w - 1 }}:UnpackW] = {% if fb.is_some() %}{fb_act, sel}{% else %}sel{% endif %};
  assign fetch_in_data[UnpackW-1:UnpackXLsb] = {mask, y0 + row, x0 + col};
{% include "rtl/ipu_reg.v" %}
  wire [2:0] fetch_fmt = fetch_data[UnpackW +: 3];
{%- if fb.is_some() %}
  wire fetch_fb = fetch_data[UnpackW + 3];
{%- endif %}
{%- for l in lanes_v_list %}
{%- if fb.is_some() %}
  wire [31:0] lane{{ l.i }}_rgba;
  assign unpack_in_data{{ l.px }} = fetch_fb ? fetch_data{{ l.px }} : lane{{ l.i }}_rgba;
{%- else if let Some(pad) = l.pad_px %}
  wire unused_fetch_pad{{ l.i }};
  assign unused_fetch_pad{{ l.i }} = ^fetch_data{{ pad }};
{%- endif %}

  {{ convert }} u_convert{{ l.i }} (
    .fmt_i  (fetch_fmt),
    .raw_i  (fetch_data{{ l.raw_px }}),
    .rgba_o ({% if fb.is_some() %}lane{{ l.i }}_rgba{% else %}unpack_in_data{{ l.px }}{% endif %})
  );
{%- endfor %}
  assign unpack_in_data[UnpackW-1:UnpackXLsb] = fetch_data[UnpackW-1:UnpackXLsb];
{%- else %}
  assign unpack_in_data[UnpackW-1:UnpackXLsb] = {mask, y0 + row, x0 + col};
{%- endif %}
{% for r in regs %}
{%- if r.stage == "scale" %}
  // Stage 2, scale: c * scale per channel, exact.
  wire [ScaleW-1:0] scale_in_data;
{%- if mul_operands %}
  // The multipliers' operands come from plain registers (no reset, no select), which an
  // FPGA's DSP block takes in as its input registers: the pixel from the unpack
  // register, the scale from this copy (a clock behind its register; the scale changes
  // only while the unit is empty, clocks before a draw's pixels get here).
  reg [{{ 4 * sw - 1 }}:0] scale_op_q;
  always @(posedge clk_i) begin
    scale_op_q <= {% if ci %}scale{% else %}scale{% endif %};
  end
{%- endif %}
{%- for l in lanes_v_list %}
  {{ scale_mod }} u_scale{{ l.i }} (
    .rgba_i  (unpack_data{{ l.px }}),
    .scale_i ({% if mul_operands %}scale_op_q{% else if ci %}scale{% else %}scale{% endif %}),
    .prod_o  (scale_in_data{{ l.prod }})
  );
{%- endfor %}
  assign scale_in_data[ScaleW-1:ScaleXLsb] = unpack_data[UnpackW-1:UnpackXLsb];
{% endif %}
{%- if r.stage == "bias" %}
{%- if let Some(r) = sum_reg %}
  // Stage 3, bias: + 255 * bias and the rounding's sum, registered (the clock's
  // schedule), then the clamp; lanes outside the mask are zero.
  localparam integer SumXLsb = {{ sum_x_lsb }};
  wire [{{ r.width - 1 }}:0] sum_in_data;
  assign sum_in_data[{{ r.width - 1 }}:SumXLsb] = scale_data[ScaleW-1:ScaleXLsb];
{% include "rtl/ipu_reg.v" %}
  // {mask, y, x}
  wire [{{ 32 + lanes - 1 }}:0] bias_meta = sum_data[{{ r.width - 1 }}:SumXLsb];
{%- else %}
  // Stage 3, bias: + 255 * bias, round, clamp; lanes outside the mask are zero.
  // {mask, y, x}
  wire [{{ 32 + lanes - 1 }}:0] bias_meta = scale_data[ScaleW-1:ScaleXLsb];
{%- endif %}
  wire [{{ lanes - 1 }}:0] bias_mask = bias_meta[ScaleMaskLsb - ScaleXLsb +: {{ lanes }}];
  wire [PixW-1:0] bias_in_data;
{%- for l in lanes_v_list %}
  wire [31:0] bias_px{{ l.i }};
{%- if sum_reg.is_none() %}
  wire [{{ 4 * sum_hi_w - 1 }}:0] bias_sum{{ l.i }};
{%- endif %}
  {{ bias_mod }} u_bias{{ l.i }} (
    .clk_i  (clk_i),
    .prod_i (scale_data{{ l.prod }}),
    .bias_i ({% if ci %}bias{% else %}bias{% endif %}),
{%- if sum_reg.is_some() %}
    .sum_o  (sum_in_data{{ l.sum }}),
    .sum_i  (sum_data{{ l.sum }}),
{%- else %}
    .sum_o  (bias_sum{{ l.i }}),
    .sum_i  (bias_sum{{ l.i }}),
{%- endif %}
    .rgba_o (bias_px{{ l.i }})
  );
  assign bias_in_data{{ l.px }} = bias_mask[{{ l.i }}] ? bias_px{{ l.i }} : 32'd0;
{%- endfor %}
{%- if multi %}
  assign bias_in_data[PixW-1:PixXLsb] = bias_meta;
{%- else %}
  assign bias_in_data[PixW-1:PixXLsb] = bias_meta[31:0];
{%- endif %}
{% endif %}
{% include "rtl/ipu_reg.v" %}
{% endfor %}
  // Pixels leave the bias register (the count of pixels in flight ends here).
  wire bias_take = {{ bias_out.valid }} & {{ bias_out.ready }};
{%- if bitmap %}
  assign pix_valid_o = pipe_valid | bm_valid_q;
  assign pix_data_o  = bm_valid_q ? bm_data_q : pipe_data;
  assign pipe_ready  = pix_ready_i & ~bm_valid_q;
{%- endif %}
{%- if let Some(m) = map %}
{%- if let Some((i, o)) = map_io %}
  // Stage 5, pixel maps: looked up while MAP_COLOR is on (a per-pixel function, placed
  // before the filter and zoom as GL orders them).
{%- if o.declare %}
  wire {{ o.valid }};
  wire {{ o.ready }};
  wire [PixW-1:0] {{ o.data }};
{%- endif %}
  {{ m.module }} #(
    .Lanes     ({{ lanes }}),
    .TableSize (MapEntries),
    .Maps      (4'b{{ m.bits }}),
{%- if let Some(ib) = m.ibits %}
    .IndexMaps (4'b{{ ib }}),
{%- endif %}
    .BeatWidth (PixW)
  ) u_map (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .map_color_i (map_color),
    .size_i      (msize),
    .loaded_i    (loaded),
{%- if ci %}
    .index_i     (ci),
    .ishift_i    (ishift),
    .ioff_i      (ioff),
    .imask_i     (imask),
    .iloaded_i   (iloaded),
{%- endif %}
    .we_i        (map_we),
    .wsel_i      (sel),
    .waddr_i     (map_waddr),
    .wdata_i     (map_wdata),
    .in_valid_i  ({{ i.valid }}),
    .in_ready_o  ({{ i.ready }}),
    .in_data_i   ({{ i.data }}),
    .out_valid_o ({{ o.valid }}),
    .out_ready_i ({{ o.ready }}),
    .out_data_o  ({{ o.data }}),
    .busy_o      (map_busy)
  );
{%- if let Some(r) = map_reg %}
{% include "rtl/ipu_reg.v" %}
  assign map_reg_busy = {{ r.out_valid }};
{%- endif %}
{%- endif %}
{%- endif %}
{%- if let Some(c) = conv %}
{%- if let Some((i, o)) = conv_io %}
  // Convolution filter: a plain register while CONVOLUTION is off.
{%- if o.declare %}
  wire {{ o.valid }};
  wire {{ o.ready }};
  wire [PixW-1:0] {{ o.data }};
{%- endif %}
  {{ c.module }} #(
    .Kernel      (ConvKernel),{% if c.checks_width %}
    .MaxLine     (ConvMaxLine),{% endif %}
    .WeightWidth (WeightW)
  ) u_conv (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .conv_on_i   (conv_on),
    .kw_i        (kw),
    .kh_i        (kh),
    .width_i     (width),
    .height_i    (height),
    .x0_i        (x0),
    .y0_i        (y0),
    .clr_i       (conv_clr),
    .mask_i      (fmask),
    .lkw_i       (lkw),
    .lkh_i       (lkh),
    .we_i        (conv_we),
    .m_i         (col[2:0]),
    .n_i         (row[2:0]),
    .wdata_i     (weight),
    .in_valid_i  ({{ i.valid }}),
    .in_ready_o  ({{ i.ready }}),
    .in_data_i   ({{ i.data }}),
    .out_valid_o ({{ o.valid }}),
    .out_ready_i ({{ o.ready }}),
    .out_data_o  ({{ o.data }}),
    .busy_o      (conv_busy)
  );
{%- endif %}
{%- endif %}
{%- if let Some((zoom_mod, line)) = zoom %}
{%- if let Some((i, o)) = zoom_io %}
  // Stage 4, zoom: bypassed (a plain register) while both factors are 1.0.
{%- if o.declare %}
  wire {{ o.valid }};
  wire {{ o.ready }};
  wire [PixW-1:0] {{ o.data }};
{%- endif %}
  {{ zoom_mod }} #(
    .MaxLine (ZoomMaxLine)
  ) u_zoom (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .zx_i        ({% if fb.is_some() %}to_pack ? ZoomOne : {% endif %}zx),
    .zy_i        ({% if fb.is_some() %}to_pack ? ZoomOne : {% endif %}zy),
    .width_i     ({{ zoom_size.0 }}),
    .height_i    ({{ zoom_size.1 }}),
    .x0_i        (x0),
    .y0_i        (y0),
    .in_valid_i  ({{ i.valid }}),
    .in_ready_o  ({{ i.ready }}),
    .in_data_i   ({{ i.data }}),
    .out_valid_o ({{ o.valid }}),
    .out_ready_i ({{ o.ready }}),
    .out_data_o  ({{ o.data }}),
    .busy_o      (zoom_busy)
  );
{%- if let Some(r) = zoom_reg %}
{% include "rtl/ipu_reg.v" %}
  assign zoom_reg_busy = {{ r.out_valid }};
{%- endif %}
{%- endif %}
{%- endif %}
{%- if let Some(pk) = fb %}

  // The pipeline's end: pix for draws and copies, the packer for ReadPixels and
  // CopyTexImage (to_pack changes only while the unit is empty).
  wire pk_in_valid = tail_valid & to_pack;
  wire pk_in_ready;
  assign {{ pk.pix.0 }} = tail_valid & ~to_pack;
  assign {{ pk.pix.2 }} = tail_data;
  assign tail_ready = to_pack ? pk_in_ready : {{ pk.pix.1 }};
  wire pk_valid;
  wire [{{ dma_w - 1 }}:0] pk_data;
  wire pk_ready = to_tex ? tex_ready_i : dma_out_ready_i;
  {{ pk.module }} #(
    .Lanes     ({{ lanes }}),
    .BeatWidth (PixW),
    .WordBytes ({{ pk.wbytes }})
  ) u_pack (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .fmt_i       (pkfmt),
    .lum_sum_i   (~to_tex),
    .end_x_i     ({{ pk.end_x }}),
    .last_y_i    ({{ pk.last_y }}),
    .in_valid_i  (pk_in_valid),
    .in_ready_o  (pk_in_ready),
    .in_data_i   (tail_data),
    .out_valid_o (pk_valid),
    .out_ready_i (pk_ready),
    .out_data_o  (pk_data),
    .busy_o      (pack_busy)
  );
  assign dma_out_valid_o = pk_valid & ~to_tex;
  assign dma_out_data_o  = pk_data;
  assign tex_valid_o     = pk_valid & to_tex;
  assign tex_data_o      = {taddr, pk_data};
{%- endif %}

  always @(*) begin
{%- if bitmap %}
    bm_valid_d = bm_load | (bm_valid_q & ~pix_ready_i);
{%- endif %}
    inflight_d = inflight_q + {{ "{{" }}{{ cnt_w - 1 }}{1'b0}}, issue} - {{ "{{" }}{{ cnt_w - 1 }}{1'b0}}, bias_take};
  end

{%- if drained_reg %}
  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      drained_q <= 1'b1;
    end else begin
      // No term for a pixel{% if bitmap %} or fragment{% endif %} entering in this clock: one enters only in
      // PIPELINE or WAIT_FIFO{% if bitmap %} (BITMAP){% endif %}, whose next state never reads drained (they leave
      // for IDLE only), and the flop holds drained_now again by the first state that does.
      drained_q <= drained_now;
    end
  end
{%- endif %}
  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      inflight_q <= {{ cnt_w }}'d0;
{%- if bitmap %}
      bm_valid_q <= 1'b0;
{%- endif %}
    end else begin
      inflight_q <= inflight_d;
{%- if bitmap %}
      bm_valid_q <= bm_valid_d;
{%- endif %}
    end
  end
{%- if bitmap %}

  always @(posedge clk_i) begin
    if (bm_free) begin
      bm_data_q <= {{ bm_beat }};
    end
  end
{%- endif %}

endmodule
