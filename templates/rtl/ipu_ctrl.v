{{ stamp }}
{%- for l in summary %}
// {{ l }}
{%- endfor %}
// Latency: a command word is decoded in the clock it is taken; what it sets is a flop the
// clock after. Throughput: a command word a clock (PIXELMAP: an entry a clock).
// Combinational paths: pass_ready_i, drained_i -> cmd_ready_o{% if map.is_some() || conv.is_some() %}; cmd_data_i -> {% if map.is_some() %}map_wdata_o{% endif %}{% if map.is_some() && conv.is_some() %}, {% endif %}{% if conv.is_some() %}weight_o{% endif %}
// (written in the clock the word is taken){% endif %}. Every other output comes from flops
// (dma_req_data_o through a rounding add after the size's registered product).
module {{ name }} #(
  // Entries of the parameter stack (1..=32).
  parameter integer StackDepth = {{ depth }}{% if let Some(line) = zoom %},
  // The zoom stage's line buffer: wider draws are dropped.
  parameter integer ZoomMaxLine = {{ line }}{% endif %}{% if let Some(m) = map %},
  // Entries of a pixel map's table.
  parameter integer TableSize = {{ m.size }}{% endif %}{% if let Some(c) = conv %},
  // The convolution filter's largest kernel{% if c.checks_width %}, its line buffers{% endif %} and a stored weight's bits.
  parameter integer Kernel = {{ c.k }},{% if c.checks_width %}
  parameter integer ConvMaxLine = {{ c.line }},{% endif %}
  parameter integer WeightWidth = {{ c.ww }}{% endif %}{% if map.is_some() %},
  // Derived, not for overriding: a table address. A parameter only because ports need it
  // and Verilog-2005 declares localparams after the port list.
  parameter integer MapAddrW = (TableSize > 1) ? $clog2(TableSize) : 1{% endif %}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire cmd_valid_i,
  output reg cmd_ready_o,
  input wire [31:0] cmd_data_i,
  output wire pass_valid_o,
  input wire pass_ready_i,
  output wire [31:0] pass_data_o,
  output wire dma_req_valid_o,
  input wire dma_req_ready_i,
  output reg [31:0] dma_req_data_o,
{%- if fb %}
  output wire fb_req_valid_o,
  input wire fb_req_ready_i,
  output wire [63:0] fb_req_data_o,
{%- endif %}
  output wire status_valid_o,
  input wire status_ready_i,
  output wire [{{ status_w - 1 }}:0] status_data_o,
  // The pipeline holds no pixel{% if bitmap %} and no bitmap fragment{% endif %}.
  input wire drained_i,
  // The unpack stage: a group issued (issue_i) of group_i pixels, the row's last
  // (last_col_i), the draw's last (last_px_i); its word is done (word_done_i), else the
  // next group starts at its byte byte_end_i; the source (dma or fb) has a word (src_valid_i).
  input wire issue_i,
  input wire [2:0] group_i,
  input wire last_col_i,
  input wire last_px_i,
  input wire word_done_i,
  input wire [{{ byte_w - 1 }}:0] byte_end_i,
  input wire src_valid_i,
{%- if bitmap %}
  // The bitmap: a bit taken (bm_step_i), its byte's last (bm_byte_end_i).
  input wire bm_step_i,
  input wire bm_byte_end_i,
{%- endif %}
{%- if fb %}
  // A word taken on tex: the next has the next address.
  input wire tex_take_i,
{%- endif %}
  // State: PIPELINE or WAIT_FIFO{% if bitmap %}; BITMAP{% endif %}.
  output wire in_pipe_o,
{%- if bitmap %}
  output wire in_bitmap_o,
{%- endif %}
  // The command's select field: a draw's format{% if map.is_some() %}, PIXELMAP's map{% endif %}; the format's bytes per pixel (log2).
  output wire [2:0] sel_o,
  output wire [1:0] bpp_log_o,
  // The unpack stage's position: column, row, and the byte of its pixel in the word.
  output wire [15:0] col_o,
  output wire [15:0] row_o,
  // The draw's last row (row_o is height_o - 1){% if bitmap %}; a bitmap's last column (col_o
  // is width_o - 1, in BITMAP){% endif %}: flops.
  output wire last_row_o,
{%- if bitmap %}
  output wire bm_last_col_o,
{%- endif %}
  output wire [{{ byte_w - 1 }}:0] byte_o,
  // The draw's size and position (a bitmap's: the raster position less its origin).
  output wire [15:0] width_o,
  output wire [15:0] height_o,
  output wire [15:0] x0_o,
  output wire [15:0] y0_o,
  // The scale and bias the pixels use ({A, B, G, R}{% if ci %}; the identity for a colour-index draw's, a
  // clock behind{% endif %}).
  output wire [{{ 4 * sw - 1 }}:0] scale_o,
  output wire [{{ 4 * bw - 1 }}:0] bias_o{% if zoom.is_some() %},
  // The zoom factors, signed Q7.16.
  output wire [23:0] zx_o,
  output wire [23:0] zy_o{% endif %}{% if map.is_some() %},
  // The maps: MAP_COLOR, each channel's entries - 1 and whether it was loaded; a table
  // entry written (map_we_o, at map_waddr_o of map sel_o).
  output wire map_color_o,
  output wire [4*MapAddrW-1:0] msize_o,
  output wire [3:0] loaded_o,
  output wire map_we_o,
  output wire [MapAddrW-1:0] map_waddr_o,
  output wire [7:0] map_wdata_o{% endif %}{% if ci %},
  // Colour indices: the pipeline's pixels are a ci8 draw's; INDEX_SHIFT, INDEX_OFFSET,
  // and each I_TO_* map's entries - 1 and whether it was loaded.
  output wire ci_o,
  output wire [4:0] ishift_o,
  output wire [MapAddrW-1:0] ioff_o,
  output wire [4*MapAddrW-1:0] imask_o,
  output wire [3:0] iloaded_o{% endif %}{% if bitmap %},
  // GL's current raster colour {A, B, G, R}.
  output wire [31:0] raster_o{% endif %}{% if conv.is_some() %},
  // The filter: CONVOLUTION_2D, its size; a load clears it (conv_clr_o, then the
  // loaded channels' mask and size) and writes weight_o at column col_o, row row_o.
  output wire conv_on_o,
  output wire [2:0] kw_o,
  output wire [2:0] kh_o,
  output wire conv_clr_o,
  output wire [3:0] fmask_o,
  output wire [2:0] lkw_o,
  output wire [2:0] lkh_o,
  output wire conv_we_o,
  output wire [WeightWidth-1:0] weight_o{% endif %}{% if fb %},
  // The framebuffer paths: the command is one (fb_act_o); the pipeline's pixels go to the
  // packer (to_pack_o) and its words to tex (to_tex_o), packed as pkfmt_o; the next tex
  // word's address.
  output wire fb_act_o,
  output wire to_pack_o,
  output wire to_tex_o,
  output wire [2:0] pkfmt_o,
  output wire [31:0] taddr_o{% endif %}
);

{%- for t in tables %}
  // {{ t.doc }}
{%- for l in t.lines %}
  {{ l }}
{%- endfor %}
{% endfor %}
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
  // The stages' sizes at the widths they are compared with.
{%- endif %}
{%- if let Some(c) = conv %}
  localparam [2:0] KernelMax = Kernel[2:0];
{%- if c.checks_width %}
  localparam [15:0] ConvLine = ConvMaxLine[15:0];
{%- endif %}
{%- endif %}
{%- if map.is_some() %}
  localparam [12:0] MapSize = TableSize[12:0];
{%- endif %}
{%- if zoom.is_some() %}
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
  reg over_zoom_q;  // wider than the zoom's line buffer{% if fb %}, and its pixels go through the zoom{% endif %}
{%- endif %}
{%- if let Some(c) = conv %}
{%- if c.checks_width %}
  reg over_conv_q;  // wider than the convolution's line buffers
{%- endif %}
{%- endif %}
  reg [15:0] x0_q;
  reg [15:0] y0_q;
  // The draw's last row{% if bitmap %} and column{% endif %}, flag{% if bitmap %}s{% endif %} kept as row_q{% if bitmap %} and col_q{% endif %} move, so that the
  // unpack's{% if bitmap %} and the bitmap's{% endif %} decisions read flops, not 16-bit compares: row_last_q is
  // row_q == height_q - 1 from RECEIVE_2's clear on{% if bitmap %}; col_last_q is col_q == width_q - 1
  // where the columns step by one (BITMAP; a draw's steps by groups leave it stale){% endif %}.
  // Each step compares the count with the size less 2, registered a clock after the
  // size (which loads in RECEIVE_1, clocks before the first step).
{%- macro last_flag(p, pen, size) %}
  reg {{ p }}_last_q;
  reg [15:0] {{ pen }};
  reg {{ p }}_clr;
  reg {{ p }}_step;
  always @(posedge clk_i) begin
    {{ pen }} <= {{ size }} - 16'd2;
    if ({{ p }}_clr) begin
      {{ p }}_last_q <= ({{ size }} == 16'd1);
    end else if ({{ p }}_step) begin
      {{ p }}_last_q <= ({{ p }}_q == {{ pen }});
    end
  end
{%- endmacro %}
{%- call last_flag("row", "hpen_q", "height_q") %}{% endcall %}
{%- if bitmap %}
{%- call last_flag("col", "wpen_q", "width_q") %}{% endcall %}
{%- endif %}
  reg value_en;
  reg size_en;
  reg pos_en;
  reg pass_load;
  reg push_en;
  // SEND_ONE_IDLE's command has a status event: worked out as the state enters it (from
  // the opcode and the stack's level, which hold there), so that the state's exits and the
  // parameters' enables read a flop.
  reg ev_q;
  reg ev_d;
{%- if fb %}
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
  // COPY_TEX_IMAGE's base address goes into taddr_q a clock after RECEIVE_2 takes it
  // (the draw's first word reaches tex many clocks later), so that the address's enables
  // follow a flop, not the decoder: its load, and the last command word, registered.
  reg taddr_ld;
  reg taddr_ld_q;
  reg [31:0] taddr_new_q;
  reg [31:0] fbpos_q;  // the source region's {y, x} (datapath)
  reg fbpos_en;
{%- endif %}
{%- if bitmap %}
  reg [31:0] raster_q;  // GL's current raster colour {A, B, G, R}
  reg [31:0] raster_d;
  reg [15:0] rx_q;  // GL's current raster position (integer)
  reg [15:0] rx_d;
  reg [15:0] ry_q;
  reg [15:0] ry_d;
  reg [23:0] bmove_q;  // BITMAP's {ymove[11:0], xmove[11:0]} (datapath)
  reg bmove_en;
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
  reg [MapAddrW-1:0] mlast_q;  // PIXELMAP: entries - 1 (1..=TableSize entries)
  // PIXELMAP: e_q is the last entry (e_q == mlast_q), worked out as e_q loads or steps
  // (against entries - 2), so that the last entry's decisions read a flop, not a compare.
  reg [12:0] mpen_q;
  reg e_last_q;
  reg map_we;
  reg mlast_en;
  wire [12:0] map_n = cmd_data_i[CmdMapCountLsb +: 13];
  // 1..=MapSize entries, a power of two for the I_TO_* maps (map code 4..7; GL's rule).
  wire        map_ok   = (map_n != 13'd0) & (map_n <= MapSize) &
                         (~cmd_data_i[CmdMapIndexedLsb] | ((map_n & (map_n - 13'd1)) == 13'd0));
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
  wire [2:0] f_kw = cmd_data_i[CmdKernelWLsb +: 3];
  wire [2:0] f_kh = cmd_data_i[CmdKernelHLsb +: 3];
  wire filter_ok = (f_kw != 3'd0) & (f_kw <= KernelMax) & (f_kh != 3'd0) & (f_kh <= KernelMax);
  // A weight: the command's Q15.16 word saturated to WeightWidth bits.
  wire weight_fits = (&cmd_data_i[31:WeightWidth-1]) | ~(|cmd_data_i[31:WeightWidth-1]);
  wire [WeightWidth-1:0] weight_new = weight_fits ? cmd_data_i[WeightWidth-1:0] :
                           {cmd_data_i[31], {(WeightWidth-1){~cmd_data_i[31]}}};
{%- endif %}

  wire [7:0] opcode = cmd_data_i[CmdOpLsb +: 8];
  wire        is_ipu = (opcode == OP_TRANSFER) | (opcode == OP_PUSH) |
                       (opcode == OP_POP) | (opcode == OP_DRAW){% if zoom.is_some() %} | (opcode == OP_ZOOM){% endif %}{% if map.is_some() %} |
                       (opcode == OP_PIXELMAP) | (opcode == OP_MAPCOLOR){% endif %}{% if bitmap %} |
                       (opcode == OP_RASTER) | (opcode == OP_BITMAP) | (opcode == OP_RPOS){% endif %}{% if conv.is_some() %} |
                       (opcode == OP_FILTER) | (opcode == OP_CONV){% endif %}{% if fb %} |
                       (opcode == OP_READ) | (opcode == OP_COPY) | (opcode == OP_COPYTEX){% endif %}{% if ci %} |
                       (opcode == OP_INDEX){% endif %};
  wire stack_full = (sp_q == StackFull);
  wire stack_empty = (sp_q == {SpW{1'b0}});

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

  // The request's products are registered (on an FPGA, the multiplier's own output
  // register): the size is taken in RECEIVE_1, so a product of it is ready by
  // SEND_PARA's first clock, two clocks on, where the request leaves. The operands are
  // the size word's fields, registered every clock with no enable, and the product loads
  // under the size's enable a clock late, from a flop: on an FPGA the multiplier's input
  // registers then take no enable from the decoder's logic (a long net into the block,
  // the end of a critical path), and its output register's enable is one flop's.
  reg [15:0] mul_w_q;  // the width field of the word at the command input, a clock ago
  reg [15:0] mul_h_q;  // its height field
  reg        size_en_q;  // that word was the size
  reg [31:0] area_q;  // width * height
{%- if bitmap %}
  // DMA words of a bitmap: rows of ceil(width / 8) bytes.
  reg [15:0] mul_r_q;  // ceil(width field / 8), a clock ago
  reg [31:0] bm_bytes_q;  // a bitmap's bytes
  wire [31:0] bm_words = {{ "{{" }}{{ byte_w }}{1'b0}}, bm_bytes_q[31:{{ byte_w }}]} + {31'd0, |bm_bytes_q[{{ byte_w - 1 }}:0]};
{%- endif %}

  always @(posedge clk_i) begin
    mul_w_q   <= cmd_data_i[CmdLoLsb +: 16];
    mul_h_q   <= cmd_data_i[CmdHiLsb +: 16];
{%- if bitmap %}
    mul_r_q   <= {3'b0, cmd_data_i[CmdLoLsb + 3 +: 13]} + {15'd0, |cmd_data_i[CmdLoLsb +: 3]};
{%- endif %}
    size_en_q <= size_en;
    if (size_en_q) begin
      area_q <= {16'd0, mul_w_q} * {16'd0, mul_h_q};
{%- if bitmap %}
      bm_bytes_q <= {16'd0, mul_r_q} * {16'd0, mul_h_q};
{%- endif %}
    end
  end

  // DMA words of the draw: ceil(width * height * bytes_per_pixel / {{ wb }}).
  wire [31:0] area = area_q;
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
{%- if fb %}
  wire fb_act = (act_q == ACT_FB);
  assign dma_req_valid_o = (state_q == SEND_PARA) & ~fb_act;
  assign fb_req_valid_o  = (state_q == SEND_PARA) & fb_act;
  assign fb_req_data_o   = {height_q, width_q, fbpos_q};
{%- else %}
  assign dma_req_valid_o = (state_q == SEND_PARA);
{%- endif %}

  // The command's format is refused (RECEIVE_2's decision), from flops: its format,
  // command and framebuffer operation are set in IDLE, two clocks before RECEIVE_2 at the
  // earliest, and hold until the decision.
  reg fmt_bad_q;
  always @(posedge clk_i) begin
{%- if fb && ci %}
    // Colour indices are drawn only: READ_PIXELS and COPY_TEX_IMAGE reject ci8.
    fmt_bad_q <= (~fmt_ok | (fb_act & (sel_q == FMT_CI8))) & ~(fb_act & (fbop_q == FB_COPY));
{%- else %}
    fmt_bad_q <= ~fmt_ok{% if fb %} & ~(fb_act & (fbop_q == FB_COPY)){% endif %};
{%- endif %}
  end

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
  wire        event_now  = ev_q;
  assign status_valid_o = (state_q == SEND_ONE_IDLE) & event_now;
  assign status_data_o  = {{ "{{" }}(8-SpW){1'b0}}, sp_q, 4'd0, event_code};

  // What the stages read.
  assign in_pipe_o   = (state_q == PIPELINE) | (state_q == WAIT_FIFO);
{%- if bitmap %}
  assign in_bitmap_o = (state_q == BITMAP);
{%- endif %}
  assign sel_o       = sel_q;
  assign bpp_log_o   = bpp_log;
  assign col_o       = col_q;
  assign row_o       = row_q;
  assign last_row_o  = row_last_q;
{%- if bitmap %}
  assign bm_last_col_o = col_last_q;
{%- endif %}
  assign byte_o      = byte_q;
  assign width_o     = width_q;
  assign height_o    = height_q;
  assign x0_o        = x0_q;
  assign y0_o        = y0_q;
{%- if ci %}
  assign scale_o     = scale_use_q;
  assign bias_o      = bias_use_q;
{%- else %}
  assign scale_o     = scale_q;
  assign bias_o      = bias_q;
{%- endif %}
{%- if zoom.is_some() %}
  assign zx_o        = zx_q;
  assign zy_o        = zy_q;
{%- endif %}
{%- if map.is_some() %}
  assign map_color_o = map_color_q;
  assign msize_o     = msize_q;
  assign loaded_o    = loaded_q;
  assign map_we_o    = map_we;
  assign map_waddr_o = e_q[MapAddrW-1:0];
  // Four entries a command word: entry e in byte e % 4.
  assign map_wdata_o = cmd_data_i[{e_q[1:0], 3'b000} +: 8];
{%- endif %}
{%- if ci %}
  assign ci_o        = ci_q;
  assign ishift_o    = ishift_q;
  assign ioff_o      = ioff_q;
  assign imask_o     = imask_q;
  assign iloaded_o   = iloaded_q;
{%- endif %}
{%- if bitmap %}
  assign raster_o    = raster_q;
{%- endif %}
{%- if conv.is_some() %}
  assign conv_on_o   = conv_on_q;
  assign kw_o        = kw_q;
  assign kh_o        = kh_q;
  assign conv_clr_o  = conv_clr;
  assign fmask_o     = fsel_q[FselMaskLsb +: 4];
  assign lkw_o       = fsel_q[FselKwLsb +: 3];
  assign lkh_o       = fsel_q[FselKhLsb +: 3];
  assign conv_we_o   = conv_we;
  assign weight_o    = weight_new;
{%- endif %}
{%- if fb %}
  assign fb_act_o    = fb_act;
  assign to_pack_o   = to_pack_q;
  assign to_tex_o    = to_tex_q;
  assign pkfmt_o     = pkfmt_q;
  assign taddr_o     = taddr_q;
{%- endif %}
  assign pass_valid_o = pass_valid_q;
  assign pass_data_o  = pass_data_q;

  // ---------------------------------------------------------------------------------
  // Decoder and control FSM.
  always @(*) begin
    state_d    = state_q;
    act_d      = act_q;
    sel_d      = sel_q;
    sp_d       = sp_q;
    col_d      = col_q;
    row_d      = row_q;
    row_clr    = 1'b0;
    row_step   = 1'b0;
{%- if bitmap %}
    col_clr    = 1'b0;
    col_step   = 1'b0;
{%- endif %}
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
{%- if fb %}
    fbop_d     = fbop_q;
    got_d      = got_q;
    to_pack_d  = to_pack_q;
    to_tex_d   = to_tex_q;
    pkfmt_d    = pkfmt_q;
    taddr_ld   = 1'b0;
    fbpos_en   = 1'b0;
{%- endif %}
    cmd_ready_o = 1'b0;
    value_en   = 1'b0;
    size_en    = 1'b0;
    pos_en     = 1'b0;
    pass_load  = 1'b0;
    push_en    = 1'b0;
    ev_d       = ev_q;
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
              ev_d    = stack_full;
              state_d = SEND_ONE_IDLE;
            end
            OP_POP: begin
              act_d   = ACT_POP;
              ev_d    = stack_empty;
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
                ev_d    = 1'b1;
                state_d = SEND_ONE_IDLE;
              end
            end
            OP_MAPCOLOR: begin
              act_d   = ACT_MAPCOLOR;
              ev_d    = 1'b0;
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
{%- if fb %}
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
                ev_d    = 1'b1;
                state_d = SEND_ONE_IDLE;
              end
            end
            OP_CONV: begin
              act_d   = ACT_CONV;
              ev_d    = 1'b0;
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
        cmd_ready_o = {{ waits_cond }} | drained_i;
{%- else %}
        cmd_ready_o = 1'b1;
{%- endif %}
        if (cmd_valid_i & cmd_ready_o) begin
          if ({{ value_acts }}) begin
            value_en = 1'b1;
            ev_d     = 1'b0;
            state_d  = SEND_ONE_IDLE;
          end else begin
            size_en = 1'b1;
            state_d = RECEIVE_2;
{%- if fb %}
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
{%- if fb %}
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
          taddr_ld = fb_act & (fbop_q == FB_COPYTEX);
{%- else %}
        if (cmd_valid_i) begin
          pos_en = 1'b1;
{%- endif %}
          col_d  = 16'd0;
          row_d  = 16'd0;
          row_clr = 1'b1;
{%- if bitmap %}
          col_clr = 1'b1;
{%- endif %}
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
          if (fmt_bad_q) begin
            act_d   = ACT_FORMAT;
            ev_d    = 1'b1;
            state_d = SEND_ONE_IDLE;
{%- if zoom.is_some() %}
          end else if (over_zoom_q) begin
            act_d   = ACT_WIDTH;
            ev_d    = 1'b1;
            state_d = SEND_ONE_IDLE;
{%- endif %}
{%- if let Some(c) = conv %}
{%- if c.checks_width %}
          end else if (conv_on_q & over_conv_q) begin
            act_d   = ACT_WIDTH;
            ev_d    = 1'b1;
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
        end else if (drained_i) begin
          // Parameters change only once the pixels that use the old ones have left. One
          // test per command (they exclude each other), not a chain of elses: each
          // register's enable is the state, the event, drained and its command's bit.
          if (act_q == ACT_POP) begin
            {{ stack_entry_d }} = stack_q[pop_addr];
            sp_d = sp_below;
          end
{%- if zoom.is_some() %}
          if (act_q == ACT_ZOOM) begin
            zx_d = zx_new_q;
            zy_d = value_q[23:0];
          end
{%- endif %}
{%- if map.is_some() %}
          if (act_q == ACT_MAPCOLOR) begin
            map_color_d = sel_q[0];
          end
{%- endif %}
{%- if bitmap %}
          if (act_q == ACT_RASTER) begin
            raster_d = value_q;
          end
          if (act_q == ACT_RPOS) begin
            rx_d = value_q[15:0];
            ry_d = value_q[31:16];
          end
{%- endif %}
{%- if conv.is_some() %}
          if (act_q == ACT_CONV) begin
            conv_on_d = sel_q[0];
          end
{%- endif %}
{%- if ci %}
          if (act_q == ACT_INDEX) begin
            if (sel_q[0]) begin
              ioff_d = value_q[MapAddrW-1:0];
            end else begin
              ishift_d = ishift_new;
            end
          end
{%- endif %}
          if (act_q == ACT_TRANSFER) begin
            // A case per channel, not a part select at sel * width: synthesis builds
            // that offset with an adder.
            case (sel_q)
{%- for k in 0..4 %}
              {1'b0, 2'd{{ k }}}: scale_d[{{ k }}*{{ sw }} +: {{ sw }}] = scale_sat_q;
{%- endfor %}
{%- for k in 0..4 %}
              {1'b1, 2'd{{ k }}}: bias_d[{{ k }}*{{ bw }} +: {{ bw }}] = bias_sat_q;
{%- endfor %}
              default: begin
              end
            endcase
          end
          state_d = IDLE;
        end
      end
{%- if bitmap %}
      BITMAP: begin
        if (bm_step_i) begin
          if (bm_byte_end_i) begin
            byte_d = byte_q + {{ byte_w }}'d1;
          end
          if (col_last_q) begin
            col_d    = 16'd0;
            row_d    = row_q + 16'd1;
            col_clr  = 1'b1;
            row_step = 1'b1;
            if (row_last_q) begin
              state_d = IDLE;
            end
          end else begin
            col_d    = col_q + 16'd1;
            col_step = 1'b1;
          end
        end
      end
{%- endif %}
{%- if map.is_some() %}
      PIXELMAP: begin
        // An entry a clock, four from a command word; the table changes only once the
        // pixels before have left.
        cmd_ready_o = drained_i & ((e_q[1:0] == 2'd3) | e_last_q);
        if (cmd_valid_i & drained_i) begin
          map_we = 1'b1;
          e_d    = e_q + 13'd1;
          if (e_last_q) begin
            // A case per map, not a part select at sel * width (an adder).
            case (sel_q)
{%- for k in 0..4 %}
              {1'b0, 2'd{{ k }}}: msize_d[{{ k }}*MapAddrW +: MapAddrW] = mlast_q;
{%- endfor %}
{%- if ci %}
{%- for k in 0..4 %}
              {1'b1, 2'd{{ k }}}: imask_d[{{ k }}*MapAddrW +: MapAddrW] = mlast_q;
{%- endfor %}
{%- endif %}
              default: begin
              end
            endcase
            if (~sel_q[2]) begin
              loaded_d[sel_q[1:0]] = 1'b1;
{%- if ci %}
            end else begin
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
          if (drained_i) begin
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
        // Request the DMA transfer{% if fb %} or the framebuffer region{% endif %} and wait for its acknowledge.
        if ({% if fb %}fb_act ? fb_req_ready_i : {% endif %}dma_req_ready_i) begin
          state_d = {% if bitmap %}(act_q == ACT_BITMAP) ? BITMAP : {% endif %}PIPELINE;
        end
      end
      PIPELINE, WAIT_FIFO: begin
        if (issue_i) begin
          byte_d = word_done_i ? {{ byte_w }}'d0 : byte_end_i;
          if (last_col_i) begin
            col_d    = 16'd0;
            row_d    = row_q + 16'd1;
            row_step = 1'b1;
          end else begin
            col_d = col_q + {13'd0, group_i};
          end
        end
        if (issue_i & last_px_i) begin
          state_d = IDLE;
        end else if (state_q == PIPELINE) begin
          // Stalled on an empty DMA{% if fb %} or framebuffer{% endif %} input.
          if (!src_valid_i) begin
            state_d = WAIT_FIFO;
          end
        end else if (src_valid_i) begin
          state_d = PIPELINE;
        end
      end
      default: begin
        state_d = IDLE;
      end
    endcase
  end

  // The pass register: loaded with a word that is not the IPU's, emptied as it is taken.
  always @(*) begin
    pass_valid_d = pass_valid_q;
    if (pass_ready_i) begin
      pass_valid_d = 1'b0;
    end
    if (pass_load) begin
      pass_valid_d = 1'b1;
    end
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      state_q      <= IDLE;
      act_q        <= ACT_TRANSFER;
      sel_q        <= 3'd0;
      sp_q         <= {SpW{1'b0}};
      col_q        <= 16'd0;
      row_q        <= 16'd0;
      byte_q       <= {{ byte_w }}'d0;
      pass_valid_q <= 1'b0;
      ev_q         <= 1'b0;
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
{%- if fb %}
      fbop_q       <= FB_READ;
      got_q        <= 1'b0;
      to_pack_q    <= 1'b0;
      to_tex_q     <= 1'b0;
      pkfmt_q      <= 3'd0;
      taddr_ld_q   <= 1'b0;
{%- endif %}
    end else begin
      state_q      <= state_d;
      act_q        <= act_d;
      sel_q        <= sel_d;
      sp_q         <= sp_d;
      col_q        <= col_d;
      row_q        <= row_d;
      byte_q       <= byte_d;
      pass_valid_q <= pass_valid_d;
      ev_q         <= ev_d;
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
      rx_q         <= rx_d;
      ry_q         <= ry_d;
{%- endif %}
{%- if conv.is_some() %}
      conv_on_q    <= conv_on_d;
      kw_q         <= kw_d;
      kh_q         <= kh_d;
      fclr_q       <= fclr_d;
{%- endif %}
{%- if fb %}
      fbop_q       <= fbop_d;
      got_q        <= got_d;
      to_pack_q    <= to_pack_d;
      to_tex_q     <= to_tex_d;
      pkfmt_q      <= pkfmt_d;
      taddr_ld_q   <= taddr_ld;
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
      over_zoom_q <= {% if fb %}~((act_q == ACT_FB) & (fbop_q != FB_COPY)) & {% endif %}(cmd_data_i[CmdLoLsb +: 16] > MaxLine);
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
{%- if fb %}
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
      mlast_q  <= map_n[MapAddrW-1:0] - 1'b1;
      mpen_q   <= map_n - 13'd2;
      e_last_q <= (map_n == 13'd1);
    end else if (map_we) begin
      e_last_q <= (e_q == mpen_q);
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
{%- endif %}
  end

  always @(posedge clk_i) begin
    if (push_en) begin
      stack_q[push_addr] <= {{ stack_entry_q }};
    end
  end
{%- if fb %}

  always @(posedge clk_i) begin
    taddr_new_q <= cmd_data_i;
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      taddr_q <= 32'd0;
    end else if (taddr_ld_q) begin
      taddr_q <= taddr_new_q;
    end else if (tex_take_i) begin
      taddr_q <= taddr_q + 32'd1;
    end
  end
{%- endif %}

endmodule
