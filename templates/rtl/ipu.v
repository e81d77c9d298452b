{{ stamp }}
// {{ name }}: image processing unit (seed 000), the DrawPixels path{% if fb.is_some() %} and the framebuffer paths{% endif %}: command decoder,
// control FSM, parameter store and stack, and the main pipeline's stages
// (1) unpack: DMA words to RGBA8 pixels, (2) scale and (3) bias (glPixelTransfer:
// c * scale + bias, clamped and rounded), a handshake register after each
// ({{ reg_labels }}).
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
// pass_ready_i -> cmd_ready_o. Outputs come from flops{% if regs[2].module.is_none() %} (pix from the stage before when the
// last register is a bypass){% endif %}.
module {{ name }} #(
  // Entries of the parameter stack (1..=32).
  parameter integer StackDepth = {{ depth }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire cmd_valid_i,
  output reg cmd_ready_o,
  input wire [31:0] cmd_data_i,
  input wire dma_valid_i,
  output wire dma_ready_o,
  input wire [{{ dma_w - 1 }}:0] dma_data_i,
  output wire pass_valid_o,
  input wire pass_ready_i,
  output wire [31:0] pass_data_o,
  output wire dma_req_valid_o,
  input wire dma_req_ready_i,
  output reg [31:0] dma_req_data_o,
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

{%- for t in tables %}
  // {{ t.doc }}
{%- for l in t.lines %}
  {{ l }}
{%- endfor %}
{% endfor %}
  // Stage data, lane 0 lowest: {mask[lanes], y, x, lanes x item} (iface::ipu::beat_fields;
  // the pix beat has no mask at one lane).
{%- for l in beat_params %}
  {{ l }}
{%- endfor %}
  // Command-word fields (iface::ipu::CMD_FIELDS).
{%- for l in cmd_params %}
  {{ l }}
{%- endfor %}
{%- if !reg_params.is_empty() %}
  // Offsets of the command fields held in registers (bmove_q, fsel_q).
{%- endif %}
{%- for l in reg_params %}
  {{ l }}
{%- endfor %}
{%- if conv.is_some() || map.is_some() || zoom.is_some() %}
  // Sizes of the stages' buffers: integers for the stages' parameters, and at the widths
  // they are compared with.
{%- endif %}
{%- if let Some(c) = conv %}
  localparam integer ConvKernel = {{ c.k }};
  localparam [2:0] KernelMax = ConvKernel[2:0];
  localparam integer WeightW = {{ c.ww }};  // a stored weight, 16 fraction bits
{%- if c.checks_width %}
  localparam integer ConvMaxLine = {{ c.line }};
  localparam [15:0] ConvLine = ConvMaxLine[15:0];
{%- endif %}
{%- endif %}
{%- if let Some(m) = map %}
  localparam integer MapEntries = {{ m.size }};
  localparam [12:0] MapSize = MapEntries[12:0];
  localparam integer MapAddrW = {{ m.addr_w }};
{%- endif %}
{%- if let Some((_, line)) = zoom %}
  localparam integer ZoomMaxLine = {{ line }};
  localparam [15:0] MaxLine = ZoomMaxLine[15:0];
  localparam [23:0] ZoomOne = 24'h{{ zoom_one }};  // zoom factor 1.0 (signed Q7.16)
{%- endif %}
{%- if bitmap %}
  localparam [31:0] RasterInit = 32'h{{ raster_init }};  // GL's initial raster colour (1, 1, 1, 1)
{%- endif %}
{%- if conv.is_some() %}
  localparam [2:0] FilterInit = {{ filter_init }};  // the 1x1 identity filter
{%- endif %}
  // Pixel formats (DRAW_PIXELS' word 0 [2:0]).
{% for f in formats %}
  localparam [2:0] {{ f.name }} = 3'd{{ f.code }};
{%- endfor %}

  localparam integer SpW = $clog2(StackDepth + 1);
  localparam integer AddrW = (StackDepth > 1) ? $clog2(StackDepth) : 1;
  localparam [SpW-1:0] StackFull = StackDepth[SpW-1:0];

  // ---------------------------------------------------------------------------------
  // Control state and parameters.
  // state_q is readable from Verilator's C++: the co-simulation reports the states visited.
  reg  [3:0]  state_q /* verilator public_flat_rd */;
  reg [3:0] state_d;
  reg [3:0] act_q;
  reg [3:0] act_d;
  reg [2:0] sel_q;  // PIXEL_TRANSFER: {bias, channel[1:0]}; DRAW: format
  reg [2:0] sel_d;
  reg [SpW-1:0] sp_q;  // stack level
  reg [SpW-1:0] sp_d;
  reg [15:0] col_q;
  reg [15:0] col_d;
  reg [15:0] row_q;
  reg [15:0] row_d;
  reg [{{ byte_w - 1 }}:0] byte_q;  // byte of the next pixel in the current DMA word
  reg [{{ byte_w - 1 }}:0] byte_d;
  reg [{{ cnt_w - 1 }}:0] inflight_q;  // pixels issued and not yet out
  reg [{{ cnt_w - 1 }}:0] inflight_d;
  reg pass_valid_q;
  reg pass_valid_d;
  reg [31:0] pass_data_q;
  reg [{{ 4 * sw - 1 }}:0] scale_q;  // {A, B, G, R}
  reg [{{ 4 * sw - 1 }}:0] scale_d;
  reg [{{ 4 * bw - 1 }}:0] bias_q;
  reg [{{ 4 * bw - 1 }}:0] bias_d;
{%- if zoom.is_some() %}
  reg [23:0] zx_q;  // zoom factors, signed Q7.16
  reg [23:0] zx_d;
  reg [23:0] zy_q;
  reg [23:0] zy_d;
  reg [23:0] zx_new_q;  // ZOOM's first word, until the second arrives
  reg zx_new_en;
{%- endif %}
  // Command fields (datapath: loaded before use, no reset).
{%- if let Some(w) = value_w %}
  reg [{{ w - 1 }}:0] value_q;
{%- endif %}
  reg [15:0] width_q;
  reg [15:0] height_q;
  // The size's checks, worked out as it loads, so that the FSM's decision on the draw's
  // last word reads flops, not comparators.
  reg size_zero_q;  // width or height 0: nothing to draw
{%- if zoom.is_some() %}
  reg over_zoom_q;  // wider than the zoom's line buffer
{%- endif %}
{%- if let Some(c) = conv %}
{%- if c.checks_width %}
  reg over_conv_q;  // wider than the convolution's line buffers
{%- endif %}
{%- endif %}
  reg [15:0] x0_q;
  reg [15:0] y0_q;
  reg value_en;
  reg size_en;
  reg pos_en;
  reg pass_load;
  reg push_en;
{%- if fb.is_some() %}
  reg [1:0] fbop_q;  // READ, COPY or COPYTEX
  reg [1:0] fbop_d;
  reg got_q;  // RECEIVE_2: the source word of a 4-word command taken
  reg got_d;
  reg to_pack_q;  // the pipeline's pixels go to the packer, not pix
  reg to_pack_d;
  reg to_tex_q;  // ... and its words to tex, not dma_out
  reg to_tex_d;
  reg [2:0] pkfmt_q;  // the packed format
  reg [2:0] pkfmt_d;
  reg [31:0] taddr_q;  // COPY_TEX_IMAGE: the next word's address
  reg [31:0] taddr_d;
  reg [31:0] fbpos_q;  // the source region's {y, x} (datapath)
  reg fbpos_en;
  wire pack_busy;
  // The pipeline's end, split between pix and the packer.
  wire tail_valid;
  wire tail_ready;
  wire [PixW-1:0] tail_data;
{%- endif %}
{%- if bitmap %}
  reg [31:0] raster_q;  // GL's current raster colour {A, B, G, R}
  reg [31:0] raster_d;
  reg bm_valid_q;  // a bitmap fragment waits on pix
  reg bm_valid_d;
  reg [15:0] rx_q;  // GL's current raster position (integer)
  reg [15:0] rx_d;
  reg [15:0] ry_q;
  reg [15:0] ry_d;
  reg [23:0] bmove_q;  // BITMAP's {ymove[11:0], xmove[11:0]} (datapath)
  reg bmove_en;
  reg [PixW-1:0] bm_data_q;
  // The pipeline's output, merged with the bitmap's fragments on pix.
  wire pipe_valid;
  wire pipe_ready;
  wire [PixW-1:0] pipe_data;
{%- endif %}
{%- if map.is_some() %}
  reg map_color_q;
  reg map_color_d;
  reg [4*MapAddrW-1:0] msize_q;  // per channel: entries - 1
  reg [4*MapAddrW-1:0] msize_d;
  reg [3:0] loaded_q;
  reg [3:0] loaded_d;
  reg [12:0] e_q;  // PIXELMAP: the entry being written
  reg [12:0] e_d;
  reg [12:0] mlast_q;  // PIXELMAP: entries - 1
  reg map_we;
  reg mlast_en;
  wire [12:0] map_n = cmd_data_i[CmdMapCountLsb +: 13];
  // 1..=MapSize entries, a power of two for the I_TO_* maps (map code 4..7; GL's rule).
  wire        map_ok   = (map_n != 13'd0) & (map_n <= MapSize) &
                         (~cmd_data_i[CmdMapIndexedLsb] | ((map_n & (map_n - 13'd1)) == 13'd0));
  wire map_busy;
{%- endif %}
{%- if ci %}
  reg ci_q;  // the pipeline's pixels are a ci8 draw's
  reg ci_d;
  reg [4:0] ishift_q;  // GL's INDEX_SHIFT, saturated to -16..15
  reg [4:0] ishift_d;
  reg [MapAddrW-1:0] ioff_q;  // GL's INDEX_OFFSET, modulo MapSize
  reg [MapAddrW-1:0] ioff_d;
  reg [4*MapAddrW-1:0] imask_q;  // per I_TO_* map: entries - 1
  reg [4*MapAddrW-1:0] imask_d;
  reg [3:0] iloaded_q;
  reg [3:0] iloaded_d;
  // INDEX_SHIFT: shifts past -16 or 15 clear every index bit, as those do.
  wire ishift_fits = (&value_q[31:4]) | ~(|value_q[31:4]);
  wire [4:0] ishift_new = ishift_fits ? value_q[4:0] : {value_q[31], {4{~value_q[31]}}};
  // Scale and bias are the identity for a colour-index draw's pixels. Both are
  // registered (they and ci_q change only while the unit is empty, clocks before a draw's
  // pixels reach the multipliers and the bias stage's term): the multipliers' operands
  // and the term's sum come from flops.
  reg [{{ 4 * sw - 1 }}:0] scale_use_q;
  reg [{{ 4 * bw - 1 }}:0] bias_use_q;
  always @(posedge clk_i) begin
    scale_use_q <= ci_q ? { {{- scale_one }}, {{ scale_one }}, {{ scale_one }}, {{ scale_one -}} } : scale_q;
    bias_use_q  <= ci_q ? {{ 4 * bw }}'d0 : bias_q;
  end
{%- endif %}
{%- if let Some(c) = conv %}
  reg conv_on_q;  // GL's CONVOLUTION_2D
  reg conv_on_d;
  reg [2:0] kw_q;  // the filter's size
  reg [2:0] kw_d;
  reg [2:0] kh_q;
  reg [2:0] kh_d;
  reg fclr_q;  // FILTER: the weights are still to be cleared
  reg fclr_d;
  reg [9:0] fsel_q;  // CONVOLUTION_FILTER's {kh, kw, mask} (datapath)
  reg fsel_en;
  reg conv_clr;
  reg conv_we;
  wire conv_busy;
  wire [2:0] f_kw = cmd_data_i[CmdKernelWLsb +: 3];
  wire [2:0] f_kh = cmd_data_i[CmdKernelHLsb +: 3];
  wire filter_ok = (f_kw != 3'd0) & (f_kw <= KernelMax) & (f_kh != 3'd0) & (f_kh <= KernelMax);
  // A weight: the command's Q15.16 word saturated to WeightW bits.
  wire weight_fits = (&cmd_data_i[31:WeightW-1]) | ~(|cmd_data_i[31:WeightW-1]);
  wire [WeightW-1:0] weight_new = weight_fits ? cmd_data_i[WeightW-1:0] :
                           {cmd_data_i[31], {(WeightW-1){~cmd_data_i[31]}}};
{%- endif %}

  wire [7:0] opcode = cmd_data_i[CmdOpLsb +: 8];
  wire        is_ipu = (opcode == OP_TRANSFER) | (opcode == OP_PUSH) |
                       (opcode == OP_POP) | (opcode == OP_DRAW){% if zoom.is_some() %} | (opcode == OP_ZOOM){% endif %}{% if map.is_some() %} |
                       (opcode == OP_PIXELMAP) | (opcode == OP_MAPCOLOR){% endif %}{% if bitmap %} |
                       (opcode == OP_RASTER) | (opcode == OP_BITMAP) | (opcode == OP_RPOS){% endif %}{% if conv.is_some() %} |
                       (opcode == OP_FILTER) | (opcode == OP_CONV){% endif %}{% if fb.is_some() %} |
                       (opcode == OP_READ) | (opcode == OP_COPY) | (opcode == OP_COPYTEX){% endif %}{% if ci %} |
                       (opcode == OP_INDEX){% endif %};
  wire stack_full = (sp_q == StackFull);
  wire stack_empty = (sp_q == {SpW{1'b0}});
{%- if zoom.is_some() %}
  wire zoom_busy;
{%- endif %}
{%- for b in reg_busy %}
  wire {{ b }};
{%- endfor %}
  wire        drained_now = (inflight_q == {{ cnt_w }}'d0){% for b in reg_busy %} & ~{{ b }}{% endfor %}{% if zoom.is_some() %} & ~zoom_busy{% endif %}{% if map.is_some() %} & ~map_busy{% endif %}{% if bitmap %} & ~bm_valid_q{% endif %}{% if conv.is_some() %} & ~conv_busy{% endif %}{% if fb.is_some() %} & ~pack_busy{% endif %};
{%- if drained_reg %}
  // What the FSM waits on, from a flop: the pipeline was empty a clock ago and no pixel{% if bitmap %}
  // or bitmap fragment{% endif %} entered it then (the clock's schedule: busy flags to the FSM's
  // enables do not fit a clock).
  reg drained_q;
  wire drained = drained_q;
{%- else %}
  wire drained = drained_now;
{%- endif %}

  // PIXEL_TRANSFER value: S15.16 to the stored formats, floor then saturate. Worked out
  // from the command word as it loads (with value_en), so that the decoder's update of
  // the scale or bias reads flops, not the saturation's compares.
  wire [31:0] scale_shifted = {{ scale_shift }};
  wire [31:0] bias_shifted = {{ bias_shift }};
  wire scale_fits = (&scale_shifted[31:{{ sw - 1 }}]) | ~(|scale_shifted[31:{{ sw - 1 }}]);
  wire bias_fits = (&bias_shifted[31:{{ bw - 1 }}]) | ~(|bias_shifted[31:{{ bw - 1 }}]);
  reg [{{ sw - 1 }}:0] scale_sat_q;
  reg [{{ bw - 1 }}:0] bias_sat_q;

  // Parameter stack: flops written on push, read on pop.
  reg [{{ stack_w - 1 }}:0] stack_q [0:StackDepth-1];
  wire [SpW-1:0] sp_below = sp_q - 1'b1;
  wire [AddrW-1:0] push_addr = sp_q[AddrW-1:0];
  wire [AddrW-1:0] pop_addr = sp_below[AddrW-1:0];

  // The format of the pending draw: enabled, and its bytes per pixel (log2).
  reg fmt_ok;
  reg [1:0] bpp_log;
  always @(*) begin
    fmt_ok  = 1'b0;
    bpp_log = 2'd0;
    case (sel_q)
{%- for f in formats %}
      {{ f.name }}: begin
        fmt_ok  = 1'b1;
        bpp_log = 2'd{{ f.bpp_log }};
      end
{%- endfor %}
      default: begin
        fmt_ok  = 1'b0;
        bpp_log = 2'd0;
      end
    endcase
  end

{%- if bitmap %}
  // DMA words of a bitmap: rows of ceil(width / 8) bytes.
  wire [15:0] bm_row_bytes = {3'b0, width_q[15:3]} + {15'd0, |width_q[2:0]};
  wire [31:0] bm_bytes = {16'd0, bm_row_bytes} * {16'd0, height_q};
  wire [31:0] bm_words = {{ "{{" }}{{ byte_w }}{1'b0}}, bm_bytes[31:{{ byte_w }}]} + {31'd0, |bm_bytes[{{ byte_w - 1 }}:0]};
{%- endif %}
  // DMA words of the draw: ceil(width * height * bytes_per_pixel / {{ wb }}).
  wire [31:0] area = {16'd0, width_q} * {16'd0, height_q};
  wire [35:0] draw_bytes = {4'b0, area} << bpp_log;
{%- if byte_w + 32 <= 35 %}
  // A request counts 32 bits of words: the bytes' top bits are dropped.
  wire unused_draw_bytes;
  assign unused_draw_bytes = ^draw_bytes[35:{{ byte_w + 32 }}];
{%- endif %}
  always @(*) begin
    dma_req_data_o = draw_bytes[{{ byte_w + 31 }}:{{ byte_w }}] + {31'd0, |draw_bytes[{{ byte_w - 1 }}:0]};
{%- if bitmap %}
    if (act_q == ACT_BITMAP) begin
      dma_req_data_o = bm_words;
    end
{%- endif %}
  end
{%- if fb.is_some() %}
  wire fb_act = (act_q == ACT_FB);
  assign dma_req_valid_o = (state_q == SEND_PARA) & ~fb_act;
  assign fb_req_valid_o  = (state_q == SEND_PARA) & fb_act;
  assign fb_req_data_o   = {height_q, width_q, fbpos_q};
{%- else %}
  assign dma_req_valid_o = (state_q == SEND_PARA);
{%- endif %}

  // Status: the event of the command in SEND_ONE_IDLE, if it has one.
  wire [3:0]  event_code = (act_q == ACT_FORMAT) ? EV_FORMAT :
{%- if line_check %}
                           (act_q == ACT_WIDTH) ? EV_WIDTH :
{%- endif %}
{%- if conv.is_some() %}
                           (act_q == ACT_FILTERSIZE) ? EV_FILTER :
{%- endif %}
{%- if map.is_some() %}
                           (act_q == ACT_MAPSIZE) ? EV_MAPSIZE :
{%- endif %}
                           (act_q == ACT_PUSH) ? EV_OVERFLOW : EV_UNDERFLOW;
  wire        event_now  = (act_q == ACT_FORMAT) | ((act_q == ACT_PUSH) & stack_full) |
{%- if line_check %}
                           (act_q == ACT_WIDTH) |
{%- endif %}
{%- if conv.is_some() %}
                           (act_q == ACT_FILTERSIZE) |
{%- endif %}
{%- if map.is_some() %}
                           (act_q == ACT_MAPSIZE) |
{%- endif %}
                           ((act_q == ACT_POP) & stack_empty);
  assign status_valid_o = (state_q == SEND_ONE_IDLE) & event_now;
  assign status_data_o  = {{ "{{" }}(8-SpW){1'b0}}, sp_q, 4'd0, event_code};

  // ---------------------------------------------------------------------------------
  // Stage 1, unpack: a group of up to {{ lanes }} pixel(s) of one row from the DMA word.
  wire in_pipe = (state_q == PIPELINE) | (state_q == WAIT_FIFO);
{%- if fb.is_some() %}
  // From the framebuffer, byte_q counts pixels of the 128-bit word: one "byte" a pixel.
  wire [1:0] step_log = fb_act ? 2'd0 : bpp_log;
  wire src_valid = fb_act ? fb_valid_i : dma_valid_i;
{%- else %}
  wire [1:0] step_log = bpp_log;
  wire src_valid = dma_valid_i;
{%- endif %}
  // Pixels left in the word: its bytes after byte_q, by bytes per pixel.
{%- if fb_word_differs %}
  wire [{{ byte_w }}:0] room = fb_act ? ({{ byte_w + 1 }}'d4 - {1'b0, byte_q}) : ({{ byte_w + 1 }}'d{{ wb }} - {1'b0, byte_q});
{%- else %}
  wire [{{ byte_w }}:0] room = {{ byte_w + 1 }}'d{{ wb }} - {1'b0, byte_q};
{%- endif %}
  wire [{{ byte_w }}:0] slots = room >> step_log;
  wire [2:0] cap = (slots < {{ byte_w + 1 }}'d{{ lanes }}) ? slots[2:0] : 3'd{{ lanes }};
  // The row's pixels left (width_q - col_q), counted down in two parts so that no
  // subtract or 16-bit compare sits in front of the group: left_hi_q = left / 8, with
  // flags for 0 and 1 kept beside it, and left_lo_q = left % 8. A group is at most
  // {{ lanes }} pixels, below 8, so "left < cap" and "left == group" need only the low part
  // and the zero flag. Loaded from the width outside the pipeline states (the size loads
  // two clocks before them) and at each row's end.
  reg [12:0] left_hi_q;
  reg left_hi0_q;
  reg left_hi1_q;
  reg [2:0] left_lo_q;
  wire [2:0] group = (left_hi0_q & (left_lo_q < cap)) ? left_lo_q : cap;
  wire [{{ byte_w + 1 }}:0] advance = {{ "{{" }}{{ byte_w - 1 }}{1'b0}}, group} << step_log;
  wire [{{ byte_w + 1 }}:0] byte_end = {2'b0, byte_q} + advance;
  wire last_col = left_hi0_q & (left_lo_q == group);
  // The draw's last row{% if bitmap %} and column{% endif %}, registered: the size loads in RECEIVE_1, two
  // clocks before PIPELINE or BITMAP read them.
  reg [15:0] hlast_q;
  always @(posedge clk_i) begin
    hlast_q <= height_q - 16'd1;
  end
{%- if bitmap %}
  reg [15:0] wlast_q;
  always @(posedge clk_i) begin
    wlast_q <= width_q - 16'd1;
  end
{%- endif %}
  wire last_row = (row_q == hlast_q);
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
      left_hi_q  <= width_q[15:3];
      left_hi0_q <= (width_q[15:3] == 13'd0);
      left_hi1_q <= (width_q[15:3] == 13'd1);
      left_lo_q  <= width_q[2:0];
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
  // Bitmap: bit 7 - col[2:0] of byte byte_q is the pixel at col; a set bit waits for pix.
  wire in_bitmap = (state_q == BITMAP);
  wire [{{ byte_w + 2 }}:0] bm_index = {byte_q, 3'b111} - {{ "{{" }}{{ byte_w }}{1'b0}}, col_q[2:0]};
  wire bm_bit = dma_data_i[bm_index];
  wire bm_last_col = (col_q == wlast_q);
  wire bm_byte_end = (col_q[2:0] == 3'd7) | bm_last_col;
  wire bm_word_end = bm_byte_end & ((&byte_q) | (bm_last_col & last_row));
  wire bm_ok = ~bm_bit | ~bm_valid_q | pix_ready_i;
  wire bm_step = in_bitmap & dma_valid_i & bm_ok;
  wire bm_load = bm_step & bm_bit;
  assign dma_ready_o = (in_pipe & {% if fb.is_some() %}~fb_act & {% endif %}unpack_in_ready & word_done) | (in_bitmap & bm_ok & bm_word_end);
{%- else %}
  assign dma_ready_o = in_pipe & {% if fb.is_some() %}~fb_act & {% endif %}unpack_in_ready & word_done;
{%- endif %}
{%- if fb.is_some() %}
  assign fb_ready_o  = in_pipe & fb_act & unpack_in_ready & word_done;
{%- endif %}

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
  wire [{{ byte_w - 1 }}:0] lane{{ l.i }}_byte = byte_q + lane{{ l.i }}_step;
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
    .fmt_i  (sel_q),
    .raw_i  (lane{{ l.i }}_raw),
    .rgba_o ({% if fb.is_some() %}lane{{ l.i }}_rgba{% else %}unpack_in_data{{ l.px }}{% endif %})
  );
{%- endif %}
{%- endfor %}
{%- if let Some(r) = fetch %}
  // The fetch register (the clock's schedule): the group's raw pixels, mask and position,
  // with their format{% if fb.is_some() %} and framebuffer flag{% endif %} (the next command may change sel_q{% if fb.is_some() %}
  // and act_q{% endif %} while they wait in it), before the converter.
  assign fetch_in_data[{{ fetch_w - 1 }}:UnpackW] = {% if fb.is_some() %}{fb_act, sel_q}{% else %}sel_q{% endif %};
  assign fetch_in_data[UnpackW-1:UnpackXLsb] = {mask, y0_q + row_q, x0_q + col_q};
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
  assign unpack_in_data[UnpackW-1:UnpackXLsb] = {mask, y0_q + row_q, x0_q + col_q};
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
    scale_op_q <= {% if ci %}scale_use_q{% else %}scale_q{% endif %};
  end
{%- endif %}
{%- for l in lanes_v_list %}
  {{ scale_mod }} u_scale{{ l.i }} (
    .rgba_i  (unpack_data{{ l.px }}),
    .scale_i ({% if mul_operands %}scale_op_q{% else if ci %}scale_use_q{% else %}scale_q{% endif %}),
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
    .bias_i ({% if ci %}bias_use_q{% else %}bias_q{% endif %}),
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
    .map_color_i (map_color_q),
    .size_i      (msize_q),
    .loaded_i    (loaded_q),
{%- if ci %}
    .index_i     (ci_q),
    .ishift_i    (ishift_q),
    .ioff_i      (ioff_q),
    .imask_i     (imask_q),
    .iloaded_i   (iloaded_q),
{%- endif %}
    .we_i        (map_we),
    .wsel_i      (sel_q),
    .waddr_i     (e_q[MapAddrW-1:0]),
    .wdata_i     (cmd_data_i[{e_q[1:0], 3'b000} +: 8]),
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
    .conv_on_i   (conv_on_q),
    .kw_i        (kw_q),
    .kh_i        (kh_q),
    .width_i     (width_q),
    .height_i    (height_q),
    .x0_i        (x0_q),
    .y0_i        (y0_q),
    .clr_i       (conv_clr),
    .mask_i      (fsel_q[FselMaskLsb +: 4]),
    .lkw_i       (fsel_q[FselKwLsb +: 3]),
    .lkh_i       (fsel_q[FselKhLsb +: 3]),
    .we_i        (conv_we),
    .m_i         (col_q[2:0]),
    .n_i         (row_q[2:0]),
    .wdata_i     (weight_new),
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
    .zx_i        ({% if fb.is_some() %}to_pack_q ? ZoomOne : {% endif %}zx_q),
    .zy_i        ({% if fb.is_some() %}to_pack_q ? ZoomOne : {% endif %}zy_q),
    .width_i     ({{ zoom_size.0 }}),
    .height_i    ({{ zoom_size.1 }}),
    .x0_i        (x0_q),
    .y0_i        (y0_q),
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
  assign pass_valid_o = pass_valid_q;
  assign pass_data_o  = pass_data_q;
{%- if let Some(pk) = fb %}

  // The pipeline's end: pix for draws and copies, the packer for ReadPixels and
  // CopyTexImage (to_pack_q changes only while the unit is empty).
  wire pk_in_valid = tail_valid & to_pack_q;
  wire pk_in_ready;
  assign {{ pk.pix.0 }} = tail_valid & ~to_pack_q;
  assign {{ pk.pix.2 }} = tail_data;
  assign tail_ready = to_pack_q ? pk_in_ready : {{ pk.pix.1 }};
  wire pk_valid;
  wire [{{ dma_w - 1 }}:0] pk_data;
  wire pk_ready = to_tex_q ? tex_ready_i : dma_out_ready_i;
  {{ pk.module }} #(
    .Lanes     ({{ lanes }}),
    .BeatWidth (PixW),
    .WordBytes ({{ pk.wbytes }})
  ) u_pack (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .fmt_i       (pkfmt_q),
    .lum_sum_i   (~to_tex_q),
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
  assign dma_out_valid_o = pk_valid & ~to_tex_q;
  assign dma_out_data_o  = pk_data;
  assign tex_valid_o     = pk_valid & to_tex_q;
  assign tex_data_o      = {taddr_q, pk_data};
{%- endif %}

  // ---------------------------------------------------------------------------------
  // Decoder and control FSM.
  always @(*) begin
    state_d    = state_q;
    act_d      = act_q;
    sel_d      = sel_q;
    sp_d       = sp_q;
    col_d      = col_q;
    row_d      = row_q;
    byte_d     = byte_q;
    scale_d    = scale_q;
    bias_d     = bias_q;
{%- if zoom.is_some() %}
    zx_d       = zx_q;
    zy_d       = zy_q;
    zx_new_en  = 1'b0;
{%- endif %}
{%- if map.is_some() %}
    map_color_d = map_color_q;
    msize_d    = msize_q;
    loaded_d   = loaded_q;
    e_d        = e_q;
    map_we     = 1'b0;
    mlast_en   = 1'b0;
{%- endif %}
{%- if ci %}
    ci_d       = ci_q;
    ishift_d   = ishift_q;
    ioff_d     = ioff_q;
    imask_d    = imask_q;
    iloaded_d  = iloaded_q;
{%- endif %}
{%- if bitmap %}
    raster_d   = raster_q;
    rx_d       = rx_q;
    ry_d       = ry_q;
    bmove_en   = 1'b0;
{%- endif %}
{%- if conv.is_some() %}
    conv_on_d  = conv_on_q;
    kw_d       = kw_q;
    kh_d       = kh_q;
    fclr_d     = fclr_q;
    fsel_en    = 1'b0;
    conv_clr   = 1'b0;
    conv_we    = 1'b0;
{%- endif %}
{%- if fb.is_some() %}
    fbop_d     = fbop_q;
    got_d      = got_q;
    to_pack_d  = to_pack_q;
    to_tex_d   = to_tex_q;
    pkfmt_d    = pkfmt_q;
    taddr_d    = taddr_q;
    fbpos_en   = 1'b0;
    if (tex_valid_o & tex_ready_i) begin
      taddr_d = taddr_q + 32'd1;
    end
{%- endif %}
    cmd_ready_o = 1'b0;
    value_en   = 1'b0;
    size_en    = 1'b0;
    pos_en     = 1'b0;
    pass_load  = 1'b0;
    push_en    = 1'b0;
    case (state_q)
      IDLE: begin
        // The IPU's own commands are taken at once; others wait for the pass register.
        cmd_ready_o = is_ipu | pass_ready_i | ~pass_valid_q;
        if (cmd_valid_i & cmd_ready_o) begin
          sel_d = cmd_data_i[CmdSelLsb +: 3];
          case (opcode)
            OP_TRANSFER: begin
              act_d   = ACT_TRANSFER;
              state_d = RECEIVE_1;
            end
            OP_PUSH: begin
              act_d   = ACT_PUSH;
              state_d = SEND_ONE_IDLE;
            end
            OP_POP: begin
              act_d   = ACT_POP;
              state_d = SEND_ONE_IDLE;
            end
            OP_DRAW: begin
              act_d   = ACT_DRAW;
              state_d = RECEIVE_1;
            end
{%- if ci %}
            OP_INDEX: begin
              act_d   = ACT_INDEX;
              state_d = RECEIVE_1;
            end
{%- endif %}
{%- if zoom.is_some() %}
            OP_ZOOM: begin
              act_d     = ACT_ZOOM;
              zx_new_en = 1'b1;
              state_d   = RECEIVE_1;
            end
{%- endif %}
{%- if map.is_some() %}
            OP_PIXELMAP: begin
              e_d      = 13'd0;
              mlast_en = 1'b1;
              if (map_ok) begin
                state_d = PIXELMAP;
              end else begin
                act_d   = ACT_MAPSIZE;
                state_d = SEND_ONE_IDLE;
              end
            end
            OP_MAPCOLOR: begin
              act_d   = ACT_MAPCOLOR;
              state_d = SEND_ONE_IDLE;
            end
{%- endif %}
{%- if bitmap %}
            OP_RASTER: begin
              act_d   = ACT_RASTER;
              state_d = RECEIVE_1;
            end
            OP_BITMAP: begin
              act_d    = ACT_BITMAP;
              bmove_en = 1'b1;
              state_d  = RECEIVE_1;
            end
            OP_RPOS: begin
              act_d   = ACT_RPOS;
              state_d = RECEIVE_1;
            end
{%- endif %}
{%- if fb.is_some() %}
            OP_READ, OP_COPY, OP_COPYTEX: begin
              act_d   = ACT_FB;
              fbop_d  = opcode[1:0];
              state_d = RECEIVE_1;
            end
{%- endif %}
{%- if conv.is_some() %}
            OP_FILTER: begin
              fsel_en = 1'b1;
              if (filter_ok) begin
                fclr_d  = 1'b1;
                state_d = FILTER;
              end else begin
                act_d   = ACT_FILTERSIZE;
                state_d = SEND_ONE_IDLE;
              end
            end
            OP_CONV: begin
              act_d   = ACT_CONV;
              state_d = SEND_ONE_IDLE;
            end
{%- endif %}
            default: begin
              sel_d     = sel_q;
              pass_load = 1'b1;
            end
          endcase
        end
      end
      RECEIVE_1: begin
{%- if let Some(waits) = draw_waits %}
        // A {{ waits }}'s size waits until the pipeline has drained: the zoom stage reads the
        // draw's size, position and factors; bitmap fragments share pix with pixels.
        cmd_ready_o = {{ waits_cond }} | drained;
{%- else %}
        cmd_ready_o = 1'b1;
{%- endif %}
        if (cmd_valid_i & cmd_ready_o) begin
          if ({{ value_acts }}) begin
            value_en = 1'b1;
            state_d  = SEND_ONE_IDLE;
          end else begin
            size_en = 1'b1;
            state_d = RECEIVE_2;
{%- if fb.is_some() %}
            // The unit is empty here: where pixels go may change.
            got_d     = 1'b0;
            to_pack_d = (act_q == ACT_FB) & (fbop_q != FB_COPY);
            to_tex_d  = (act_q == ACT_FB) & (fbop_q == FB_COPYTEX);
            pkfmt_d   = sel_q;
{%- endif %}
          end
        end
      end
      RECEIVE_2: begin
        cmd_ready_o = 1'b1;
{%- if fb.is_some() %}
        if (cmd_valid_i & fb_act & ~got_q & (fbop_q != FB_READ)) begin
          // COPY_PIXELS' and COPY_TEX_IMAGE's source; their fourth word follows.
          fbpos_en = 1'b1;
          pos_en   = (fbop_q == FB_COPYTEX);
          got_d    = 1'b1;
        end else if (cmd_valid_i) begin
          // READ_PIXELS' source is its position too; COPY_PIXELS' last word is its
          // destination, COPY_TEX_IMAGE's the base address.
          fbpos_en = fb_act & (fbop_q == FB_READ);
          pos_en   = ~(fb_act & (fbop_q == FB_COPYTEX));
          got_d    = 1'b0;
          if (fb_act & (fbop_q == FB_COPYTEX)) begin
            taddr_d = cmd_data_i;
          end
{%- else %}
        if (cmd_valid_i) begin
          pos_en = 1'b1;
{%- endif %}
          col_d  = 16'd0;
          row_d  = 16'd0;
          byte_d = {{ byte_w }}'d0;
{%- if ci %}
          // The unit is empty (the draw waited): the path of its pixels may change.
          ci_d   = (act_q == ACT_DRAW) & (sel_q == FMT_CI8);
{%- endif %}
{%- if bitmap %}
          if (act_q == ACT_BITMAP) begin
            // glBitmap: drawn from the raster position less the origin (x0_q, y0_q),
            // then the raster position moves, an empty bitmap's too.
            rx_d    = rx_q + {{ "{{" }}4{bmove_q[BmoveXLsb + 11]}}, bmove_q[BmoveXLsb +: 12]};
            ry_d    = ry_q + {{ "{{" }}4{bmove_q[BmoveYLsb + 11]}}, bmove_q[BmoveYLsb +: 12]};
            state_d = size_zero_q ? IDLE : SEND_PARA;
          end else
{%- endif %}
{%- if fb.is_some() && ci %}
          // Colour indices are drawn only: READ_PIXELS and COPY_TEX_IMAGE reject ci8.
          if ((~fmt_ok | (fb_act & (sel_q == FMT_CI8))) & ~(fb_act & (fbop_q == FB_COPY))) begin
{%- else %}
          if (!fmt_ok{% if fb.is_some() %} & ~(fb_act & (fbop_q == FB_COPY)){% endif %}) begin
{%- endif %}
            act_d   = ACT_FORMAT;
            state_d = SEND_ONE_IDLE;
{%- if zoom.is_some() %}
          end else if ({% if fb.is_some() %}~to_pack_q & {% endif %}over_zoom_q) begin
            act_d   = ACT_WIDTH;
            state_d = SEND_ONE_IDLE;
{%- endif %}
{%- if let Some(c) = conv %}
{%- if c.checks_width %}
          end else if (conv_on_q & over_conv_q) begin
            act_d   = ACT_WIDTH;
            state_d = SEND_ONE_IDLE;
{%- endif %}
{%- endif %}
          end else if (size_zero_q) begin
            state_d = IDLE;
          end else begin
            state_d = SEND_PARA;
          end
        end
      end
      SEND_ONE_IDLE: begin
        if (event_now) begin
          if (status_ready_i) begin
            state_d = IDLE;
          end
        end else if (act_q == ACT_PUSH) begin
          push_en = 1'b1;
          sp_d    = sp_q + 1'b1;
          state_d = IDLE;
        end else if (drained) begin
          // Parameters change only once the pixels that use the old ones have left.
          if (act_q == ACT_POP) begin
            {{ stack_entry_d }} = stack_q[pop_addr];
            sp_d = sp_below;
{%- if zoom.is_some() %}
          end else if (act_q == ACT_ZOOM) begin
            zx_d = zx_new_q;
            zy_d = value_q[23:0];
{%- endif %}
{%- if map.is_some() %}
          end else if (act_q == ACT_MAPCOLOR) begin
            map_color_d = sel_q[0];
{%- endif %}
{%- if bitmap %}
          end else if (act_q == ACT_RASTER) begin
            raster_d = value_q;
          end else if (act_q == ACT_RPOS) begin
            rx_d = value_q[15:0];
            ry_d = value_q[31:16];
{%- endif %}
{%- if conv.is_some() %}
          end else if (act_q == ACT_CONV) begin
            conv_on_d = sel_q[0];
{%- endif %}
{%- if ci %}
          end else if (act_q == ACT_INDEX) begin
            if (sel_q[0]) begin
              ioff_d = value_q[MapAddrW-1:0];
            end else begin
              ishift_d = ishift_new;
            end
{%- endif %}
          end else if (sel_q[2]) begin
            bias_d[{{ bw }}*sel_q[1:0] +: {{ bw }}] = bias_sat_q;
          end else begin
            scale_d[{{ sw }}*sel_q[1:0] +: {{ sw }}] = scale_sat_q;
          end
          state_d = IDLE;
        end
      end
{%- if bitmap %}
      BITMAP: begin
        if (bm_step) begin
          if (bm_byte_end) begin
            byte_d = byte_q + {{ byte_w }}'d1;
          end
          if (bm_last_col) begin
            col_d = 16'd0;
            row_d = row_q + 16'd1;
            if (last_row) begin
              state_d = IDLE;
            end
          end else begin
            col_d = col_q + 16'd1;
          end
        end
      end
{%- endif %}
{%- if map.is_some() %}
      PIXELMAP: begin
        // An entry a clock, four from a command word; the table changes only once the
        // pixels before have left.
        cmd_ready_o = drained & ((e_q[1:0] == 2'd3) | (e_q == mlast_q));
        if (cmd_valid_i & drained) begin
          map_we = 1'b1;
          e_d    = e_q + 13'd1;
          if (e_q == mlast_q) begin
            if (~sel_q[2]) begin
              msize_d[MapAddrW*sel_q[1:0] +: MapAddrW] = mlast_q[MapAddrW-1:0];
              loaded_d[sel_q[1:0]] = 1'b1;
{%- if ci %}
            end else begin
              imask_d[MapAddrW*sel_q[1:0] +: MapAddrW] = mlast_q[MapAddrW-1:0];
              iloaded_d[sel_q[1:0]] = 1'b1;
{%- endif %}
            end
            state_d = IDLE;
          end
        end
      end
{%- endif %}
{%- if conv.is_some() %}
      FILTER: begin
        if (fclr_q) begin
          // The weights change only once the pixels before have left: first cleared
          // (1.0 at the centre for the channels not loaded), then a weight a word, row
          // n = row_q, column m = col_q of the new filter.
          if (drained) begin
            conv_clr = 1'b1;
            fclr_d   = 1'b0;
            kw_d     = fsel_q[FselKwLsb +: 3];
            kh_d     = fsel_q[FselKhLsb +: 3];
            col_d    = 16'd0;
            row_d    = 16'd0;
          end
        end else begin
          cmd_ready_o = 1'b1;
          if (cmd_valid_i) begin
            conv_we = 1'b1;
            if (col_q[2:0] == kw_q - 3'd1) begin
              col_d = 16'd0;
              row_d = row_q + 16'd1;
              if (row_q[2:0] == kh_q - 3'd1) begin
                state_d = IDLE;
              end
            end else begin
              col_d = col_q + 16'd1;
            end
          end
        end
      end
{%- endif %}
      SEND_PARA: begin
        // Request the DMA transfer{% if fb.is_some() %} or the framebuffer region{% endif %} and wait for its acknowledge.
        if ({% if fb.is_some() %}fb_act ? fb_req_ready_i : {% endif %}dma_req_ready_i) begin
          state_d = {% if bitmap %}(act_q == ACT_BITMAP) ? BITMAP : {% endif %}PIPELINE;
        end
      end
      PIPELINE, WAIT_FIFO: begin
        if (issue) begin
          byte_d = word_done ? {{ byte_w }}'d0 : byte_end[{{ byte_w - 1 }}:0];
          if (last_col) begin
            col_d = 16'd0;
            row_d = row_q + 16'd1;
          end else begin
            col_d = col_q + {13'd0, group};
          end
        end
        if (issue & last_px) begin
          state_d = IDLE;
        end else if (state_q == PIPELINE) begin
          // Stalled on an empty DMA{% if fb.is_some() %} or framebuffer{% endif %} input.
          if (!src_valid) begin
            state_d = WAIT_FIFO;
          end
        end else if (src_valid) begin
          state_d = PIPELINE;
        end
      end
      default: begin
        state_d = IDLE;
      end
    endcase
  end

  always @(*) begin
    pass_valid_d = pass_valid_q;
    if (pass_ready_i) begin
      pass_valid_d = 1'b0;
    end
    if (pass_load) begin
      pass_valid_d = 1'b1;
    end
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
      drained_q <= drained_now & ~issue{% if bitmap %} & ~bm_load{% endif %};
    end
  end
{%- endif %}
  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      state_q      <= IDLE;
      act_q        <= ACT_TRANSFER;
      sel_q        <= 3'd0;
      sp_q         <= {SpW{1'b0}};
      col_q        <= 16'd0;
      row_q        <= 16'd0;
      byte_q       <= {{ byte_w }}'d0;
      inflight_q   <= {{ cnt_w }}'d0;
      pass_valid_q <= 1'b0;
      // GL's initial state: scale 1.0, bias 0.0.
      scale_q      <= { {{- scale_one }}, {{ scale_one }}, {{ scale_one }}, {{ scale_one -}} };
      bias_q       <= {{ 4 * bw }}'d0;
{%- if zoom.is_some() %}
      zx_q         <= ZoomOne;
      zy_q         <= ZoomOne;
{%- endif %}
{%- if map.is_some() %}
      // GL's initial maps: MAP_COLOR off, one entry of 0.0 each.
      map_color_q  <= 1'b0;
      msize_q      <= {(4*MapAddrW){1'b0}};
      loaded_q     <= 4'd0;
      e_q          <= 13'd0;
{%- endif %}
{%- if ci %}
      // GL's initial INDEX_SHIFT and INDEX_OFFSET: 0; I_TO_* maps: one entry of 0.0.
      ci_q         <= 1'b0;
      ishift_q     <= 5'd0;
      ioff_q       <= {MapAddrW{1'b0}};
      imask_q      <= {(4*MapAddrW){1'b0}};
      iloaded_q    <= 4'd0;
{%- endif %}
{%- if bitmap %}
      // GL's initial raster colour: (1, 1, 1, 1).
      raster_q     <= RasterInit;
      bm_valid_q   <= 1'b0;
      rx_q         <= 16'd0;
      ry_q         <= 16'd0;
{%- endif %}
{%- if conv.is_some() %}
      // GL's initial state: CONVOLUTION_2D off; the filter is the 1x1 identity.
      conv_on_q    <= 1'b0;
      kw_q         <= FilterInit;
      kh_q         <= FilterInit;
      fclr_q       <= 1'b0;
{%- endif %}
{%- if fb.is_some() %}
      fbop_q       <= FB_READ;
      got_q        <= 1'b0;
      to_pack_q    <= 1'b0;
      to_tex_q     <= 1'b0;
      pkfmt_q      <= 3'd0;
      taddr_q      <= 32'd0;
{%- endif %}
    end else begin
      state_q      <= state_d;
      act_q        <= act_d;
      sel_q        <= sel_d;
      sp_q         <= sp_d;
      col_q        <= col_d;
      row_q        <= row_d;
      byte_q       <= byte_d;
      inflight_q   <= inflight_d;
      pass_valid_q <= pass_valid_d;
      scale_q      <= scale_d;
      bias_q       <= bias_d;
{%- if zoom.is_some() %}
      zx_q         <= zx_d;
      zy_q         <= zy_d;
{%- endif %}
{%- if map.is_some() %}
      map_color_q  <= map_color_d;
      msize_q      <= msize_d;
      loaded_q     <= loaded_d;
      e_q          <= e_d;
{%- endif %}
{%- if ci %}
      ci_q         <= ci_d;
      ishift_q     <= ishift_d;
      ioff_q       <= ioff_d;
      imask_q      <= imask_d;
      iloaded_q    <= iloaded_d;
{%- endif %}
{%- if bitmap %}
      raster_q     <= raster_d;
      bm_valid_q   <= bm_valid_d;
      rx_q         <= rx_d;
      ry_q         <= ry_d;
{%- endif %}
{%- if conv.is_some() %}
      conv_on_q    <= conv_on_d;
      kw_q         <= kw_d;
      kh_q         <= kh_d;
      fclr_q       <= fclr_d;
{%- endif %}
{%- if fb.is_some() %}
      fbop_q       <= fbop_d;
      got_q        <= got_d;
      to_pack_q    <= to_pack_d;
      to_tex_q     <= to_tex_d;
      pkfmt_q      <= pkfmt_d;
      taddr_q      <= taddr_d;
{%- endif %}
    end
  end

  // Datapath: command fields and the pass register load only when taken.
  always @(posedge clk_i) begin
    if (value_en) begin
{%- if value_w.is_some() %}
      value_q   <= cmd_data_i{% if value_w == Some(24) %}[23:0]{% endif %};
{%- endif %}
      scale_sat_q <= scale_fits ? scale_shifted[{{ sw - 1 }}:0] :
                                {scale_shifted[31], {{ "{" }}{{ sw - 1 }}{~scale_shifted[31]}}};
      bias_sat_q  <= bias_fits ? bias_shifted[{{ bw - 1 }}:0] :
                               {bias_shifted[31], {{ "{" }}{{ bw - 1 }}{~bias_shifted[31]}}};
    end
    if (size_en) begin
      width_q     <= cmd_data_i[CmdLoLsb +: 16];
      height_q    <= cmd_data_i[CmdHiLsb +: 16];
      size_zero_q <= (cmd_data_i[CmdLoLsb +: 16] == 16'd0) | (cmd_data_i[CmdHiLsb +: 16] == 16'd0);
{%- if zoom.is_some() %}
      over_zoom_q <= cmd_data_i[CmdLoLsb +: 16] > MaxLine;
{%- endif %}
{%- if let Some(c) = conv %}
{%- if c.checks_width %}
      over_conv_q <= cmd_data_i[CmdLoLsb +: 16] > ConvLine;
{%- endif %}
{%- endif %}
    end
    if (pos_en) begin
{%- if bitmap %}
      // BITMAP's word 2 is its origin {yorig, xorig}, DRAW_PIXELS' its position.
      x0_q <= (act_q == ACT_BITMAP) ? rx_q - cmd_data_i[CmdLoLsb +: 16] : cmd_data_i[CmdLoLsb +: 16];
      y0_q <= (act_q == ACT_BITMAP) ? ry_q - cmd_data_i[CmdHiLsb +: 16] : cmd_data_i[CmdHiLsb +: 16];
{%- else %}
      x0_q <= cmd_data_i[CmdLoLsb +: 16];
      y0_q <= cmd_data_i[CmdHiLsb +: 16];
{%- endif %}
    end
    if (pass_load) begin
      pass_data_q <= cmd_data_i;
    end
{%- if fb.is_some() %}
    if (fbpos_en) begin
      fbpos_q <= cmd_data_i;
    end
{%- endif %}
{%- if zoom.is_some() %}
    if (zx_new_en) begin
      zx_new_q <= cmd_data_i[CmdFactorLsb +: 24];
    end
{%- endif %}
{%- if map.is_some() %}
    if (mlast_en) begin
      mlast_q <= map_n - 13'd1;
    end
{%- endif %}
{%- if conv.is_some() %}
    if (fsel_en) begin
      fsel_q[FselMaskLsb +: 4] <= cmd_data_i[CmdKernelMaskLsb +: 4];
      fsel_q[FselKwLsb +: 3]   <= cmd_data_i[CmdKernelWLsb +: 3];
      fsel_q[FselKhLsb +: 3]   <= cmd_data_i[CmdKernelHLsb +: 3];
    end
{%- endif %}
{%- if bitmap %}
    if (bmove_en) begin
      bmove_q <= cmd_data_i[CmdMoveLsb +: 24];
    end
    if (bm_load) begin
      bm_data_q <= {{ bm_beat }};
    end
{%- endif %}
  end

  always @(posedge clk_i) begin
    if (push_en) begin
      stack_q[push_addr] <= {{ stack_entry_q }};
    end
  end

endmodule
