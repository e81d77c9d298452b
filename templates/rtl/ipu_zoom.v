{{ stamp }}
// {{ name }}: zoom stage of the IPU (seed 000, main pipeline stage 4; glPixelZoom).
// Factors zx_i, zy_i are signed Q7.16 (value / 65536). With both factors 1.0 the stage is
// the seed's bypass: beats pass unchanged through its output register, a beat a clock.
// Otherwise image pixel (i, j) of the draw (width_i x height_i, raster position x0_i, y0_i)
// becomes the output pixels whose centres its zoomed rectangle covers (GL's rule): the
// column offsets ceil(i*|zx| - 0.5) .. ceil((i+1)*|zx| - 0.5) - 1, computed exactly as
// (i*|zx| + 2^15 - 1) >> 16 by an accumulator, likewise for rows; x = x0 + offset, or
// x0 - 1 - offset for a negative factor (mirror). Rows that several output rows cover are
// sent once from the stream and replayed from the line buffer (MaxLine pixels, written
// while streaming{% if multi %}, synchronous read{% else %}, read two clocks deep ahead of the replay{% endif %}); rows and columns that cover no
// centre are dropped.
{%- if multi %}
// Zoomed, the stage works on groups of up to {{ lanes }} image pixels of a row: an input beat
// while streaming, {{ lanes }} pixels of the line buffer ({{ lanes }} banks, pixel i in bank i % {{ lanes }})
// while replaying. A group's output columns leave {{ lanes }} to a beat, {mask, y, x, lanes}:
// lane k is the pixel at (x + k, y) while k is below the beat's count, else 0; lanes may
// carry copies of different image pixels of the group (mirrored, x is the leftmost, so
// the lanes still ascend in x). Beats do not span groups.
// Throughput: bypass, a beat a clock; zoomed, a beat a clock: a group a clock when it
// covers at most {{ lanes }} columns (shrinking: {{ lanes }} image pixels a clock), else
// ceil(columns / {{ lanes }}) clocks ({{ lanes }} output pixels a clock at integer enlargements); a
// replayed row costs one clock more.
{%- else %}
// Zoomed output: one pixel a beat, {y, x, pixel}. No decision compares offsets: the
// output columns the current column still covers and the output rows the current row
// still covers are counted down, with the next column's and row's counts worked out a
// column (a row) ahead from the accumulators.
// Throughput: bypass, a beat a clock; zoomed, an output pixel a clock, and a clock for
// each image pixel that covers no output column; a replayed row costs one clock more.
{%- endif %}
// The factors' magnitudes, their accumulator steps and the draw's last column and row
// are registered from zx_i, zy_i, width_i and height_i (three clocks behind them): those
// change only while the unit is empty, many clocks before a draw's first pixel.
// Latency: one register (the output). busy_o: a draw is inside the stage.
// Combinational paths: out_ready_i -> in_ready_o{% if multi %}; in_data_i (the beat's mask, its group's
// size) -> in_ready_o{% endif %}.
module {{ name }} #(
  // Pixels of the line buffer: the widest row that can be zoomed.
  parameter integer MaxLine = {{ line }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire [23:0] zx_i,
  input wire [23:0] zy_i,
  input wire [15:0] width_i,
  input wire [15:0] height_i,
  input wire [15:0] x0_i,
  input wire [15:0] y0_i,
  input wire in_valid_i,
  output reg in_ready_o,
  input wire [{{ beat_w - 1 }}:0] in_data_i,
  output wire out_valid_o,
  input wire out_ready_i,
  output wire [{{ beat_w - 1 }}:0] out_data_o,
  output wire busy_o
);

{%- if multi %}
  // The line buffer's banks: a pixel of each of the Lanes consecutive columns of a group
  // (Lanes, the beat's pixels, is a power of two: a column's bank is its low bits).
  localparam integer Lanes = {{ lanes }};
  localparam integer LaneW = $clog2(Lanes);
  localparam integer Depth = (MaxLine + Lanes - 1) / Lanes;
  localparam integer AddrW = (Depth > 1) ? $clog2(Depth) : 1;
{%- else %}
  localparam integer AddrW = (MaxLine > 1) ? $clog2(MaxLine) : 1;
{%- endif %}
{%- if multi %}
  // Accumulators i*|z| + 2^15 - 1: 16-bit index times a 24-bit magnitude.
{%- else %}
  // Accumulators i*|z| + 2^15 - 1, modulo 2^AccW: only the low OffW bits of an offset
  // are compared, with one at most 128 columns (or rows) behind it or one ahead, which
  // the modulus tells apart. Positions (ox_q, oy_q) keep the 16 bits of x and y.
{%- endif %}
  localparam integer AccW = {{ acc_w }};
  localparam integer OffW = AccW - 16;
  localparam integer PosW = (OffW > 16) ? OffW : 16;
  localparam [23:0] One = 24'h010000;

  localparam [1:0] Z_STREAM = 2'd0;  // the row arrives from the pipeline
  localparam [1:0] Z_REWIND = 2'd1;  // one clock: the line buffer's first pixel is read
  localparam [1:0] Z_REPLAY = 2'd2;  // the row again, from the line buffer

  // Per draw: off the pixel path.
  reg zoom_on_q;
  reg xneg_q;
  reg yneg_q;
  reg [23:0] xmag_q;
  reg [23:0] ymag_q;
{%- if !multi %}
  // The draw's width: 1; 3; above 2 (the line buffer's read-ahead runs); less 2 (the
  // column before the last). Draws are no wider than MaxLine (the decoder's check), so
  // a column fits AddrW bits.
  reg w1_q;
  reg w3_q;
  reg wide_q;
  reg [AddrW-1:0] wpen_q;
{%- endif %}
{%- if multi %}
  reg [15:0] hlast_q;  // the draw's last row
{%- else %}
  // The draw's height: 1; less 2 (the row before the last).
  reg h1_q;
  reg [15:0] hpen_q;
{%- endif %}
  always @(posedge clk_i) begin
    zoom_on_q <= (zx_i != One) | (zy_i != One);
    xneg_q    <= zx_i[23];
    yneg_q    <= zy_i[23];
    xmag_q    <= zx_i[23] ? (24'd0 - zx_i) : zx_i;
    ymag_q    <= zy_i[23] ? (24'd0 - zy_i) : zy_i;
{%- if !multi %}
    w1_q      <= (width_i == 16'd1);
    w3_q      <= (width_i == 16'd3);
    wide_q    <= (width_i > 16'd2);
    wpen_q    <= width_i[AddrW-1:0] - {{ "{{" }}(AddrW-2){1'b0}}, 2'd2};
{%- endif %}
{%- if multi %}
    hlast_q   <= height_i - 16'd1;
{%- else %}
    h1_q      <= (height_i == 16'd1);
    hpen_q    <= height_i - 16'd2;
{%- endif %}
  end
  wire zoom_on = zoom_on_q;
  wire xneg = xneg_q;
  wire yneg = yneg_q;

  reg [1:0] st_q;
  reg [1:0] st_d;
  reg [15:0] i_q;  // image column
  reg [15:0] i_d;
  reg i_nz_q;  // i_q != 0, kept beside it: busy_o from one flop, not a 16-bit OR
  reg i_nz_d;
  reg [15:0] j_q;  // image row
  reg [15:0] j_d;
  reg j_nz_q;  // j_q != 0
  reg j_nz_d;
{%- if !multi %}
  reg i_one_q;  // i_q == 1
  reg i_one_d;
  reg i_last_q;  // i_q is the row's last column (at column 0: follows the width)
  reg i_last_d;
  reg j_last_q;  // j_q is the draw's last row (at row 0: follows the height)
  reg j_last_d;
{%- endif %}
{%- if multi %}
  reg [AccW-1:0] ax_q;  // i * |zx| + 2^15 - 1
  reg [AccW-1:0] ax_d;
  reg [AccW-1:0] aye_q;  // (j + 1) * |zy| + 2^15 - 1: where row j ends
  reg [AccW-1:0] aye_d;
{%- endif %}
  reg [PosW-1:0] ox_q;  // next output column offset
  reg [PosW-1:0] ox_d;
{%- if !multi %}
  reg [PosW-1:0] oxn_q;  // ox_q + 1, kept (no carry before the compare)
  reg [PosW-1:0] oxn_d;
{%- endif %}
  reg [PosW-1:0] oy_q;  // current output row offset
  reg [PosW-1:0] oy_d;
  reg [PosW-1:0] oyn_q;  // oy_q + 1, kept likewise
  reg [PosW-1:0] oyn_d;
  reg out_valid_q;
  reg out_valid_d;
  reg [{{ beat_w - 1 }}:0] out_data_q;
  reg [{{ beat_w - 1 }}:0] out_data_d;
  reg out_load;
  reg line_we;

  localparam [AccW-1:0] AccInit = {{ "{{" }}(AccW-15){1'b0}}, 15'h7fff};
{%- if acc_w > 24 %}
  wire [AccW-1:0] xstep = {{ "{{" }}(AccW-24){1'b0}}, xmag_q};
  wire [AccW-1:0] ystep = {{ "{{" }}(AccW-24){1'b0}}, ymag_q};
{%- else %}
  wire [AccW-1:0] xstep = xmag_q[AccW-1:0];
  wire [AccW-1:0] ystep = ymag_q[AccW-1:0];
{%- endif %}
  // Where the first {% if !multi %}column and {% endif %}row end{% if !multi %}s{% endif %}: the accumulator{% if !multi %}s{% endif %} at {% if !multi %}i = 0, {% endif %}j = 0.
{%- if !multi %}
  reg [AccW-1:0] xinit_q;
  always @(posedge clk_i) begin
    xinit_q <= AccInit + xstep;
  end
{%- endif %}
  reg [AccW-1:0] yinit_q;
  always @(posedge clk_i) begin
    yinit_q <= AccInit + ystep;
  end
{%- if multi %}
  wire [OffW-1:0] y_end = aye_q[AccW-1:16];
  wire row_live = (oy_q[OffW-1:0] != y_end);
  wire last_row = (j_q == hlast_q);
{%- else %}
  // Where the second column and row end, and the output columns and rows the first and
  // second cover (the ends' differences, modulo 2^OffW: at most 128).
  wire [AccW-1:0] xinit_sum = xinit_q + xstep;
  wire [AccW-1:0] yinit_sum = yinit_q + ystep;
  reg [AccW-1:0] xinit1_q;
  reg [AccW-1:0] yinit1_q;
  reg [OffW-1:0] cx1_q;
  reg [OffW-1:0] cy1_q;
  always @(posedge clk_i) begin
    xinit1_q <= xinit_sum;
    yinit1_q <= yinit_sum;
    cx1_q    <= xinit_sum[AccW-1:16] - xinit_q[AccW-1:16];
    cy1_q    <= yinit_sum[AccW-1:16] - yinit_q[AccW-1:16];
  end
  wire [OffW-1:0] cx0 = xinit_q[AccW-1:16];
  wire [OffW-1:0] cy0 = yinit_q[AccW-1:16];

  // The counts (below): n_q, the output columns column i_q still covers in this row pass
  // (meaningful while the row covers an output row); m_q, the output rows row j_q still
  // covers, the current one with them. Each with flags for 0 and 1.
  reg [OffW-1:0] n_q;
  reg n_nz_q;
  reg n_one_q;
  reg [OffW-1:0] m_q;
  reg m_nz_q;
  reg m_one_q;
  wire row_live = m_nz_q;
  wire replay = m_nz_q & ~m_one_q;  // the row covers more output rows: replay it
  wire last_row = j_last_q;
{%- endif %}
  wire out_free = ~out_valid_q | out_ready_i;
  wire streaming = (st_q == Z_STREAM);
  wire src_valid = streaming ? in_valid_i : (st_q == Z_REPLAY);
{%- if multi %}

  // The group: n pixels from column i_q, the input beat's (its mask is contiguous from
  // lane 0) or the line buffer's Lanes (fewer at the row's end).
  localparam [{{ cnt_w - 1 }}:0] LanesN = {{ cnt_w }}'d{{ lanes }};
  wire [{{ lanes - 1 }}:0] in_mask = in_data_i[{{ beat_w - 1 }}:{{ meta + 32 }}];
  wire [{{ cnt_w - 1 }}:0] in_n = {{ in_count_expr }};
  wire [15:0] rest = width_i - i_q;
  wire [{{ cnt_w - 1 }}:0] rep_n = (rest >= {{ "{" }}{{ 16 - cnt_w }}'d0, LanesN}) ? LanesN : rest[{{ cnt_w - 1 }}:0];
  wire [{{ cnt_w - 1 }}:0] n = streaming ? in_n : rep_n;
  wire [{{ 32 * lanes - 1 }}:0] rd_pix;
  wire [{{ 32 * lanes - 1 }}:0] grp_pix = streaming ? in_data_i[{{ 32 * lanes - 1 }}:0] : rd_pix;
  // acc_k = (i_q + k) * |zx| + 2^15 - 1; e_k = ceil((i_q + k) * |zx| - 0.5), where the
  // group's pixel k - 1 ends.
{%- for k in ends %}
  reg [AccW-1:0] xstep{{ k }}_q;  // {{ k }} x |zx|, per draw
  always @(posedge clk_i) begin
    xstep{{ k }}_q <= xstep * {{ acc_w }}'d{{ k }};
  end
  wire [AccW-1:0] acc_{{ k }} = ax_q + xstep{{ k }}_q;
{%- if *k < lanes %}
  wire [OffW-1:0] e_{{ k }} = acc_{{ k }}[AccW-1:16];
{%- endif %}
{%- endfor %}
  reg [AccW-1:0] ax_grp;  // acc_n: the next group's accumulator
  always @(*) begin
    case (n)
{%- for k in ends %}
      {{ cnt_w }}'d{{ k }}: ax_grp = acc_{{ k }};
{%- endfor %}
      default: ax_grp = ax_q;
    endcase
  end
  // Offset where the group's coverage ends; the beat: what is left of it, at most Lanes.
  wire [OffW-1:0] x_end = ax_grp[AccW-1:16];
  wire want = row_live & (ox_q != x_end);
  wire [OffW-1:0] left = x_end - ox_q;
  wire last_out = (left <= {{ "{" }}{{ acc_w - 16 - cnt_w }}'d0, LanesN});
  wire [{{ cnt_w - 1 }}:0] cnt = last_out ? left[{{ cnt_w - 1 }}:0] : LanesN;
  wire [LaneW-1:0] cnt_m1 = cnt[LaneW-1:0] - {{ lane_w }}'d1;  // cnt is 1..Lanes
  // The last column's offset, the leftmost when mirrored (x is 16 bits: the low 16).
  wire [15:0] ox_last = ox_q[15:0] + {{ "{" }}{{ 16 - cnt_w }}'d0, cnt} - 16'd1;
  wire [{{ lanes - 1 }}:0] copies = {{ copies_mask }};
  // Column ox_q + p of the beat shows the group's pixel sel_p: the count of pixel ends
  // at or before it.
{%- for p in positions %}
  wire [OffW-1:0] off_{{ p.p }} = {{ p.off }};
  wire [LaneW-1:0] sel_{{ p.p }} = {{ p.sel }};
{%- endfor %}
  // Lane m of the beat: column ox_q + m, or ox_q + cnt - 1 - m mirrored.
{%- for p in positions %}
  wire [LaneW-1:0] pos_{{ p.p }} = xneg ? {{ p.mirror }} : {{ lane_w }}'d{{ p.p }};
  reg [LaneW-1:0] gsel_{{ p.p }};
  always @(*) begin
    case (pos_{{ p.p }})
{%- for q in positions %}
      {{ lane_w }}'d{{ q.p }}: gsel_{{ p.p }} = sel_{{ q.p }};
{%- endfor %}
      default: gsel_{{ p.p }} = {{ lane_w }}'d0;
    endcase
  end
  wire [31:0] lane_{{ p.p }} = grp_pix[32*gsel_{{ p.p }} +: 32];
{%- endfor %}
  wire last_col = (i_q + {{ "{" }}{{ 16 - cnt_w }}'d0, n} == width_i);
  // This group may advance: nothing (more) to send, or its last beat goes out now.
  wire adv_ok = ~want | (out_free & last_out);
  wire advance = src_valid & adv_ok;
  wire emit = src_valid & want & out_free;
  wire [15:0] x_out = x0_i + (xneg ? ~ox_last : ox_q[15:0]);
{%- else %}
  wire want = row_live & n_nz_q;
  wire last_out = n_one_q;
  wire last_col = i_last_q;
  // This column may advance: nothing (more) to send, or its last pixel goes out now.
  wire adv_ok = ~want | (out_free & last_out);

  // The current pixel: from the input beat while streaming; replayed, columns 0 and 1
  // from registers loaded while streaming, the others from the line buffer's read-ahead
  // queue (below).
{%- include "rtl/ipu_beat_pixel.v" %}
  reg [31:0] p0_q;
  reg [31:0] p1_q;
  wire [31:0] q_head;
  wire [31:0] rep_pix = ~i_nz_q ? p0_q : (i_one_q ? p1_q : q_head);
  wire [31:0] src_pix = streaming ? in_pix : rep_pix;
  wire advance = src_valid & adv_ok;
  wire emit = src_valid & want & out_free;
  wire [15:0] x_out = x0_i + (xneg ? ~ox_q[15:0] : ox_q[15:0]);
{%- endif %}
  wire [15:0] y_out = y0_i + (yneg ? ~oy_q[15:0] : oy_q[15:0]);

  always @(*) begin
    st_d     = st_q;
    i_d      = i_q;
    j_d      = j_q;
    i_nz_d   = i_nz_q;
    j_nz_d   = j_nz_q;
{%- if !multi %}
    i_one_d  = i_one_q;
    i_last_d = i_nz_q ? i_last_q : w1_q;
    j_last_d = j_nz_q ? j_last_q : h1_q;
{%- endif %}
{%- if multi %}
    ax_d     = ax_q;
    aye_d    = (j_q == 16'd0) ? yinit_q : aye_q;
{%- endif %}
    ox_d     = ox_q;
{%- if !multi %}
    oxn_d    = oxn_q;
{%- endif %}
    oy_d     = oy_q;
    oyn_d    = oyn_q;
    out_load = 1'b0;
    line_we  = 1'b0;
    out_data_d = out_data_q;
    in_ready_o = 1'b0;
    if (!zoom_on) begin
      // Bypass: a bubble register.
      in_ready_o = out_free;
      out_load   = in_valid_i & out_free;
      out_data_d = in_data_i;
    end else begin
{%- if multi %}
      in_ready_o = streaming & adv_ok;
{%- else %}
      in_ready_o = streaming & last_in_beat & adv_ok;
      // The line buffer takes the current pixel in every streaming clock: a column's
      // last write is the one of the clock it advances (the row never comes back to
      // it), so the write enable needs no advance.
      line_we    = streaming;
{%- endif %}
      if (emit) begin
        out_load   = 1'b1;
        out_data_d = {{ zoom_beat }};
{%- if multi %}
        ox_d       = ox_q + {{ "{" }}{{ acc_w - 16 - cnt_w }}'d0, cnt};
{%- else %}
        ox_d       = oxn_q;
        oxn_d      = oxn_q + 1'b1;
{%- endif %}
      end
      if (st_q == Z_REWIND) begin
        st_d = Z_REPLAY;
      end
      if (advance) begin
{%- if multi %}
        line_we = streaming;
        ax_d = ax_grp;
        i_d  = i_q + {{ "{" }}{{ 16 - cnt_w }}'d0, n};
        i_nz_d = 1'b1;  // below the width: never wraps to 0
{%- else %}
        i_d   = i_q + 16'd1;
        i_nz_d = 1'b1;  // below the width: never wraps to 0
        i_one_d = ~i_nz_q;
        i_last_d = (i_q[AddrW-1:0] == wpen_q);
{%- endif %}
        if (last_col) begin
          i_d  = 16'd0;
          i_nz_d = 1'b0;
{%- if !multi %}
          i_one_d = 1'b0;
          i_last_d = w1_q;
{%- endif %}
{%- if multi %}
          ax_d = AccInit;
{%- endif %}
          ox_d = {PosW{1'b0}};
{%- if !multi %}
          oxn_d = {{ "{{" }}(PosW-1){1'b0}}, 1'b1};
{%- endif %}
{%- if multi %}
          if (row_live & (oyn_q[OffW-1:0] != y_end)) begin
{%- else %}
          if (replay) begin
{%- endif %}
            // The row covers more output rows: replay it.
            oy_d  = oyn_q;
            oyn_d = oyn_q + 1'b1;
            st_d = streaming ? Z_REWIND : Z_REPLAY;
          end else begin
            // The next row starts where this one ends: y_end, one row on when live.
            if (row_live) begin
              oy_d  = oyn_q;
              oyn_d = oyn_q + 1'b1;
            end
            st_d = Z_STREAM;
            j_d  = j_q + 16'd1;
            j_nz_d = 1'b1;
{%- if multi %}
            aye_d = aye_q + ystep;
{%- else %}
            j_last_d = (j_q == hpen_q);
{%- endif %}
            if (last_row) begin
              j_d  = 16'd0;
              j_nz_d = 1'b0;
{%- if multi %}
              aye_d = yinit_q;
{%- else %}
              j_last_d = h1_q;
{%- endif %}
              oy_d  = {PosW{1'b0}};
              oyn_d = {{ "{{" }}(PosW-1){1'b0}}, 1'b1};
            end
          end
        end
      end
    end
    out_valid_d = out_load | (out_valid_q & ~out_ready_i);
  end

  assign out_valid_o = out_valid_q;
  assign out_data_o  = out_data_q;
  assign busy_o = out_valid_q | (st_q != Z_STREAM) | i_nz_q | j_nz_q;

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      st_q        <= Z_STREAM;
      i_q         <= 16'd0;
      j_q         <= 16'd0;
      i_nz_q      <= 1'b0;
      j_nz_q      <= 1'b0;
{%- if !multi %}
      i_one_q     <= 1'b0;
      i_last_q    <= 1'b0;
      j_last_q    <= 1'b0;
{%- endif %}
{%- if multi %}
      ax_q        <= AccInit;
      aye_q       <= AccInit;
{%- endif %}
      ox_q        <= {PosW{1'b0}};
{%- if !multi %}
      oxn_q       <= {{ "{{" }}(PosW-1){1'b0}}, 1'b1};
{%- endif %}
      oy_q        <= {PosW{1'b0}};
      oyn_q       <= {{ "{{" }}(PosW-1){1'b0}}, 1'b1};
      out_valid_q <= 1'b0;
    end else begin
      st_q        <= st_d;
      i_q         <= i_d;
      j_q         <= j_d;
      i_nz_q      <= i_nz_d;
      j_nz_q      <= j_nz_d;
{%- if !multi %}
      i_one_q     <= i_one_d;
      i_last_q    <= i_last_d;
      j_last_q    <= j_last_d;
{%- endif %}
{%- if multi %}
      ax_q        <= ax_d;
      aye_q       <= aye_d;
{%- endif %}
      ox_q        <= ox_d;
{%- if !multi %}
      oxn_q       <= oxn_d;
{%- endif %}
      oy_q        <= oy_d;
      oyn_q       <= oyn_d;
      out_valid_q <= out_valid_d;
    end
  end

{%- if !multi %}

  // The counts. A column's count is its end's offset less ox_q: one less per pixel sent;
  // when the column advances, ox_q has reached its end (it sent its last pixel, or
  // covered none), so the next column's count is the difference of their ends, cnx1_q,
  // worked out a column ahead from axn_q (where the next column ends). Rows likewise:
  // one less per replay, the next row's count cny1_q from ayn_q. At column 0 (row 0)
  // these follow the per-draw values, and the count too until the column (row) has sent
  // a pixel (been replayed): the factors may have changed since the last draw.
  reg [AccW-1:0] axn_q;
  reg [AccW-1:0] axn_d;
  reg [OffW-1:0] cnx1_q;
  reg [OffW-1:0] cnx1_d;
  reg x_fresh_q;  // column 0 of a row pass, nothing sent yet
  reg x_fresh_d;
  reg [OffW-1:0] n_d;
  reg n_nz_d;
  reg n_one_d;
  reg [AccW-1:0] ayn_q;
  reg [AccW-1:0] ayn_d;
  reg [OffW-1:0] cny1_q;
  reg [OffW-1:0] cny1_d;
  reg y_fresh_q;  // row 0, not replayed yet
  reg y_fresh_d;
  reg [OffW-1:0] m_d;
  reg m_nz_d;
  reg m_one_d;
  wire [AccW-1:0] axn_sum = axn_q + xstep;
  wire [AccW-1:0] ayn_sum = ayn_q + ystep;
  wire col_sent = zoom_on & emit;
  wire col_next = zoom_on & advance & ~last_col;
  wire col_wrap = zoom_on & advance & last_col;
  wire row_rep = col_wrap & replay;
  wire row_next = col_wrap & ~replay & ~last_row;
  wire row_wrap = col_wrap & ~replay & last_row;

  always @(*) begin
    axn_d     = axn_q;
    cnx1_d    = cnx1_q;
    x_fresh_d = x_fresh_q;
    n_d       = n_q;
    n_nz_d    = n_nz_q;
    n_one_d   = n_one_q;
    if (~i_nz_q) begin
      axn_d  = xinit1_q;
      cnx1_d = cx1_q;
      if (x_fresh_q) begin
        n_d     = cx0;
        n_nz_d  = (cx0 != {OffW{1'b0}});
        n_one_d = (cx0 == {{ "{{" }}(OffW-1){1'b0}}, 1'b1});
      end
    end
    if (col_sent) begin
      n_d       = n_q - 1'b1;
      n_nz_d    = ~n_one_q;
      n_one_d   = (n_q == {{ "{{" }}(OffW-2){1'b0}}, 2'd2});
      x_fresh_d = 1'b0;
    end
    if (col_next) begin
      n_d       = cnx1_q;
      n_nz_d    = (cnx1_q != {OffW{1'b0}});
      n_one_d   = (cnx1_q == {{ "{{" }}(OffW-1){1'b0}}, 1'b1});
      axn_d     = axn_sum;
      cnx1_d    = axn_sum[AccW-1:16] - axn_q[AccW-1:16];
      x_fresh_d = 1'b0;
    end
    if (col_wrap) begin
      n_d       = cx0;
      n_nz_d    = (cx0 != {OffW{1'b0}});
      n_one_d   = (cx0 == {{ "{{" }}(OffW-1){1'b0}}, 1'b1});
      axn_d     = xinit1_q;
      cnx1_d    = cx1_q;
      x_fresh_d = 1'b1;
    end
  end

  always @(*) begin
    ayn_d     = ayn_q;
    cny1_d    = cny1_q;
    y_fresh_d = y_fresh_q;
    m_d       = m_q;
    m_nz_d    = m_nz_q;
    m_one_d   = m_one_q;
    if (~j_nz_q) begin
      ayn_d  = yinit1_q;
      cny1_d = cy1_q;
      if (y_fresh_q) begin
        m_d     = cy0;
        m_nz_d  = (cy0 != {OffW{1'b0}});
        m_one_d = (cy0 == {{ "{{" }}(OffW-1){1'b0}}, 1'b1});
      end
    end
    if (row_rep) begin
      m_d       = m_q - 1'b1;
      m_nz_d    = 1'b1;  // replayed: the row covered two or more
      m_one_d   = (m_q == {{ "{{" }}(OffW-2){1'b0}}, 2'd2});
      y_fresh_d = 1'b0;
    end
    if (row_next) begin
      m_d       = cny1_q;
      m_nz_d    = (cny1_q != {OffW{1'b0}});
      m_one_d   = (cny1_q == {{ "{{" }}(OffW-1){1'b0}}, 1'b1});
      ayn_d     = ayn_sum;
      cny1_d    = ayn_sum[AccW-1:16] - ayn_q[AccW-1:16];
      y_fresh_d = 1'b0;
    end
    if (row_wrap) begin
      // The draw's end: from the next clock, row 0 loads the count and the ends (the
      // next draw's first pixel is many clocks away: the unit drains first).
      y_fresh_d = 1'b1;
    end
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      x_fresh_q <= 1'b1;
      n_nz_q    <= 1'b0;
      n_one_q   <= 1'b0;
      y_fresh_q <= 1'b1;
      m_nz_q    <= 1'b0;
      m_one_q   <= 1'b0;
    end else begin
      x_fresh_q <= x_fresh_d;
      n_nz_q    <= n_nz_d;
      n_one_q   <= n_one_d;
      y_fresh_q <= y_fresh_d;
      m_nz_q    <= m_nz_d;
      m_one_q   <= m_one_d;
    end
  end
  // The counts and ends: no reset (the flags above say what they mean).
  always @(posedge clk_i) begin
    n_q    <= n_d;
    axn_q  <= axn_d;
    cnx1_q <= cnx1_d;
    m_q    <= m_d;
    ayn_q  <= ayn_d;
    cny1_q <= cny1_d;
  end
{%- endif %}

{%- if multi %}
  // Datapath: the output beat and the line buffer (written while streaming, read
  // synchronously at the next group, so rd_pix holds pixels i_q.. while replaying).
{%- else %}
  // Datapath: the output beat.
{%- endif %}
  always @(posedge clk_i) begin
    if (out_load) begin
      out_data_q <= out_data_d;
    end
  end
{%- if multi %}

  // Bank b takes the group's lane (b - i_q) % Lanes, column i_q + that lane, at that
  // column's address in the bank: i_q / Lanes, plus one when b is below i_q % Lanes. A
  // replayed group starts on a multiple of Lanes, so every bank reads the same address.
  wire [AddrW-1:0] rd_addr = i_d[AddrW+LaneW-1:LaneW];
{%- for b in positions %}

  wire [LaneW-1:0] bank{{ b.p }}_lane = {{ lane_w }}'d{{ b.p }} - i_q[LaneW-1:0];
  wire [AddrW-1:0] bank{{ b.p }}_addr = i_q[AddrW+LaneW-1:LaneW]{% if b.carry %} + {{ "{" }}{AddrW-1{1'b0}}, (i_q[LaneW-1:0] > {{ lane_w }}'d{{ b.p }})}{% endif %};
  wire bank{{ b.p }}_we = line_we & ({{ "{" }}{{ cnt_w - lane_w }}'d0, bank{{ b.p }}_lane} < n);
  reg [31:0] bank{{ b.p }}_q [0:Depth-1];
  reg [31:0] bank{{ b.p }}_rd_q;
  always @(posedge clk_i) begin
    if (bank{{ b.p }}_we) begin
      bank{{ b.p }}_q[bank{{ b.p }}_addr] <= in_data_i[32*bank{{ b.p }}_lane +: 32];
    end
    bank{{ b.p }}_rd_q <= bank{{ b.p }}_q[rd_addr];
  end
  assign rd_pix[{{ 32 * b.p + 31 }}:{{ 32 * b.p }}] = bank{{ b.p }}_rd_q;
{%- endfor %}
{%- else %}

  // The line buffer, written at column i_q in every streaming clock (a column's last
  // write is the one of the clock it advances), read two clocks deep (the RAM's output
  // register) every clock, at ra_q: columns 2 .. last of the row in order, over and over
  // while the row replays, as long as the queue has room (credit_q counts its entries
  // not yet claimed by a read). A read's word enters the queue two clocks after it and
  // leaves when its column advances, so a column a clock needs four entries. Columns 0
  // and 1 come from p0_q and p1_q: REPLAY starts a clock after REWIND (or, replaying
  // again, right after the last column), too soon for a read started then. Streaming
  // empties the queue and points the reads back at column 2.
  localparam integer QDepth = 4;
  // Written only while streaming, and only reads started while not streaming are used:
  // no used read meets a write, so synthesis needs no read-during-write bypass.
  (* no_rw_check *)
  reg [31:0] line_q [0:MaxLine-1];
  reg [31:0] ram_q;   // the RAM's read
  reg [31:0] ram2_q;  // its output register
  reg [AddrW-1:0] ra_q;
  reg ra_last_q;  // ra_q is the row's last column
  reg [2:0] credit_q;
  reg rd1_q;  // the read of one clock ago
  reg rd2_q;  // the read of two clocks ago: ram2_q enters the queue
  reg [31:0] queue_q [0:QDepth-1];
  reg [1:0] qw_q;
  reg [1:0] qr_q;
  wire rd_go = ~streaming & wide_q & (credit_q != 3'd0);
  wire q_pop = advance & ~streaming & i_nz_q & ~i_one_q;
  assign q_head = queue_q[qr_q];

  always @(posedge clk_i) begin
    if (line_we) begin
      line_q[i_q[AddrW-1:0]] <= in_pix;
    end
    ram_q  <= line_q[ra_q];
    ram2_q <= ram_q;
    if (streaming & ~i_nz_q) begin
      p0_q <= in_pix;
    end
    if (streaming & i_one_q) begin
      p1_q <= in_pix;
    end
    if (rd2_q) begin
      queue_q[qw_q] <= ram2_q;
    end
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      ra_q      <= {{ "{{" }}(AddrW-2){1'b0}}, 2'd2};
      ra_last_q <= 1'b0;
      credit_q  <= QDepth[2:0];
      rd1_q     <= 1'b0;
      rd2_q     <= 1'b0;
      qw_q      <= 2'd0;
      qr_q      <= 2'd0;
    end else if (streaming) begin
      ra_q      <= {{ "{{" }}(AddrW-2){1'b0}}, 2'd2};
      ra_last_q <= w3_q;
      credit_q  <= QDepth[2:0];
      rd1_q     <= 1'b0;
      rd2_q     <= 1'b0;
      qw_q      <= 2'd0;
      qr_q      <= 2'd0;
    end else begin
      if (rd_go) begin
        ra_q      <= ra_last_q ? {{ "{{" }}(AddrW-2){1'b0}}, 2'd2} : ra_q + 1'b1;
        ra_last_q <= ra_last_q ? w3_q : (ra_q == wpen_q);
      end
      credit_q <= credit_q - {2'd0, rd_go} + {2'd0, q_pop};
      rd1_q    <= rd_go;
      rd2_q    <= rd1_q;
      if (rd2_q) begin
        qw_q <= qw_q + 2'd1;
      end
      if (q_pop) begin
        qr_q <= qr_q + 2'd1;
      end
    end
  end
{%- endif %}

endmodule
