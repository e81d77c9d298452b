{{ stamp }}
// {{ name }}: convolution filter of the IPU (seed 000's convolution module, after the main
// pipeline's per-pixel stages; glConvolutionFilter2D with CONVOLUTION_2D on, border mode
// GL_REDUCE). While conv_on_i is off the stage is a plain register (a beat a clock, all
// lanes). On, a draw of width_i x height_i pixels (row 0 first, up to MaxLine wide)
// becomes the (width - kw + 1) x (height - kh + 1) image
//   C[i, j] = sum over n < kh, m < kw of F[m, n] * c[i + m, j + n]   (per channel)
// rounded (halves up) and clamped to 8 bits, pixel (i, j) sent at (x0_i + i, y0_i + j),
// one pixel a beat: {% if multi %}{mask = 1, y, x, lane 0 = pixel, other lanes 0}{% else %}{y, x, pixel}{% endif %}. Empty when the filter is
// larger than the image.
// Weights: signed, WeightWidth bits, 16 fraction bits, per tap and channel, in a
// Kernel x Kernel window aligned to its newest row and column: F[m, n] sits at window
// row Kernel - kh + n, column Kernel - kw + m, every other weight is 0 (so the window's
// stale rows and columns at a row's start weigh nothing). clr_i (the FSM's FILTER state,
// with the pipeline drained) zeroes the weights, except 1.0 at the new filter's centre tap
// (lkw_i / 2, lkh_i / 2) for the channels outside mask_i; we_i writes wdata_i at tap
// (m_i, n_i) of the channels in mask_i.
// Datapath: {% if k > 1 %}{{ k - 1 }} line buffer(s) of MaxLine RGBA8 pixels (rows r-1 .. r-{{ k - 1 }}, written as a row
// streams in, read synchronously a column ahead), {% endif %}the window registers, then
// {{ 4 * k * k }} multipliers (8 x WeightWidth bits) and per channel and window row a {{ k }}-input sum
// into the row-sum register, then per channel the {{ k }} row sums, rounded and clamped, into
// the output register (the register between splits multiply-and-add in two for timing).
// Throughput: a pixel a clock in (a beat of several pixels takes a clock each); latency
// three registers (window, row sums, output). busy_o: a draw is inside the stage.
// Combinational paths: out_ready_i -> in_ready_o.
module {{ name }} #(
  // The largest filter: Kernel x Kernel taps.
  parameter integer Kernel = {{ k }},
{%- if k > 1 %}
  // Pixels of each line buffer: the widest row that can be filtered.
  parameter integer MaxLine = {{ line }},
{%- endif %}
  parameter integer WeightWidth = {{ ww }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire conv_on_i,
  input wire [2:0] kw_i,
  input wire [2:0] kh_i,
  input wire [15:0] width_i,
  input wire [15:0] height_i,
  input wire [15:0] x0_i,
  input wire [15:0] y0_i,
  input wire clr_i,
  input wire [3:0] mask_i,
  input wire [2:0] lkw_i,
  input wire [2:0] lkh_i,
  input wire we_i,
  input wire [2:0] m_i,
  input wire [2:0] n_i,
  input wire [WeightWidth-1:0] wdata_i,
  input wire in_valid_i,
  output reg in_ready_o,
  input wire [{{ beat_w - 1 }}:0] in_data_i,
  output wire out_valid_o,
  input wire out_ready_i,
  output wire [{{ beat_w - 1 }}:0] out_data_o,
  output wire busy_o
);

  localparam integer Taps = Kernel * Kernel;
{%- if k > 1 %}
  localparam integer AddrW = (MaxLine > 1) ? $clog2(MaxLine) : 1;
{%- endif %}
  // A product and the sum of Taps of them.
  localparam integer ProdW = WeightWidth + 9;
  localparam integer AccW = {{ acc_w }};
  localparam [2:0] K3 = {{ k }};
  localparam [WeightWidth-1:0] WOne = {{ ww }}'d65536;
  localparam [AccW-1:0] Half = {{ acc_w }}'d32768;

  reg [15:0] c_q;  // column of the next input pixel
  reg [15:0] c_d;
  reg [15:0] r_q;  // its row
  reg [15:0] r_d;
{%- if multi %}
  reg [{{ sub_w - 1 }}:0] sub_q;  // lane of the current pixel in the input beat
  reg [{{ sub_w - 1 }}:0] sub_d;
{%- endif %}
  reg win_valid_q;  // the window holds an output pixel
  reg win_valid_d;
  reg [15:0] wx_q;  // ... at (wx, wy)
  reg [15:0] wy_q;
  reg rs_valid_q;  // the row sums hold an output pixel
  reg rs_valid_d;
  reg [15:0] rx_q;  // ... at (rx, ry)
  reg [15:0] ry_q;
  reg rs_load;
  reg out_valid_q;
  reg out_valid_d;
  reg [{{ beat_w - 1 }}:0] out_data_q;
  reg [{{ beat_w - 1 }}:0] out_data_d;
  reg out_load;
  reg [Taps*32-1:0] win_q;  // row a, column b at tap a * Kernel + b; newest last
  wire [Taps*32-1:0] win_d;
  wire [4*Taps*ProdW-1:0] prods;  // per channel and tap: weight x component
  reg [4*Kernel*AccW-1:0] rsum_d;  // per channel and window row: the row's products summed
  reg [4*Kernel*AccW-1:0] rsum_q;
  reg [31:0] result;  // the row sums summed, rounded and clamped

{%- include "rtl/ipu_beat_pixel.v" %}
  wire out_free = ~out_valid_q | out_ready_i;
  // The row sums may take the window's pixel: they hold none, or theirs moves on now.
  wire rs_free = ~rs_valid_q | out_free;
  // The window may take a pixel: it holds no output, or its output moves on now.
  wire win_free = ~win_valid_q | rs_free;
  wire take = conv_on_i & in_valid_i & win_free;
  wire last_col = (c_q == width_i - 16'd1);
  wire last_row = (r_q == height_i - 16'd1);
  wire [15:0] kw_m1 = {13'd0, kw_i - 3'd1};
  wire [15:0] kh_m1 = {13'd0, kh_i - 3'd1};
  // The pixel taken completes a window: its column and row reach the filter's size.
  wire complete = (c_q >= kw_m1) & (r_q >= kh_m1);

  always @(*) begin
    c_d        = c_q;
    r_d        = r_q;
{%- if multi %}
    sub_d      = sub_q;
{%- endif %}
    out_load   = 1'b0;
    rs_load    = 1'b0;
    out_data_d = out_data_q;
    win_valid_d = win_valid_q & ~rs_free;
    rs_valid_d  = rs_valid_q & ~out_free;
    if (!conv_on_i) begin
      // Off: a bubble register.
      in_ready_o = out_free;
      out_load   = in_valid_i & out_free;
      out_data_d = in_data_i;
    end else begin
      in_ready_o = win_free & last_in_beat;
      if (rs_valid_q & out_free) begin
        out_load   = 1'b1;
        out_data_d = {{ conv_beat }};
      end
      if (win_valid_q & rs_free) begin
        rs_load    = 1'b1;
        rs_valid_d = 1'b1;
      end
      if (take) begin
{%- if multi %}
        sub_d = last_in_beat ? {{ sub_w }}'d0 : sub_q + 1'b1;
{%- endif %}
        win_valid_d = complete;
        c_d = c_q + 16'd1;
        if (last_col) begin
          c_d = 16'd0;
          r_d = last_row ? 16'd0 : r_q + 16'd1;
        end
      end
    end
    out_valid_d = out_load | (out_valid_q & ~out_ready_i);
  end

  assign out_valid_o = out_valid_q;
  assign out_data_o  = out_data_q;
  assign busy_o = out_valid_q | rs_valid_q | win_valid_q | (|c_q) | (|r_q){% if multi %} | (|sub_q){% endif %};

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      c_q         <= 16'd0;
      r_q         <= 16'd0;
{%- if multi %}
      sub_q       <= {{ sub_w }}'d0;
{%- endif %}
      win_valid_q <= 1'b0;
      rs_valid_q  <= 1'b0;
      out_valid_q <= 1'b0;
    end else begin
      c_q         <= c_d;
      r_q         <= r_d;
{%- if multi %}
      sub_q       <= sub_d;
{%- endif %}
      win_valid_q <= win_valid_d;
      rs_valid_q  <= rs_valid_d;
      out_valid_q <= out_valid_d;
    end
  end

  // Datapath: the window shifts a column on every pixel taken; the row sums; the output
  // beat.
  always @(posedge clk_i) begin
    if (take) begin
      win_q <= win_d;
      wx_q  <= x0_i + c_q - kw_m1;
      wy_q  <= y0_i + r_q - kh_m1;
    end
    if (rs_load) begin
      rsum_q <= rsum_d;
      rx_q   <= wx_q;
      ry_q   <= wy_q;
    end
    if (out_load) begin
      out_data_q <= out_data_d;
    end
  end

  // The new column, oldest row first: the line buffers' rows, then the pixel.
  wire [Kernel*32-1:0] column;
  assign column[Kernel*32-1 -: 32] = in_pix;
{%- if k > 1 %}
  // Line buffer k holds row r - 1 - k; each passes its pixel at c_q on to the next.
  wire [(Kernel-1)*32-1:0] lb_rd;  // their pixels at column c_q
  wire [(Kernel-1)*32-1:0] lb_wr;  // what they store there
  // A one-pixel-wide draw reads back the column it has just written.
  reg fwd_q;
  always @(posedge clk_i) begin
    fwd_q <= take & (c_d == c_q);
  end
  genvar k;
  generate
    for (k = 0; k < Kernel - 1; k = k + 1) begin : g_line
      reg [31:0] line_q [0:MaxLine-1];
      reg [31:0] rd_q;
      reg [31:0] wr_q;
      if (k == 0) begin : g_first
        assign lb_wr[31:0] = in_pix;
      end else begin : g_next
        assign lb_wr[32*k +: 32] = lb_rd[32*(k-1) +: 32];
      end
      assign lb_rd[32*k +: 32] = fwd_q ? wr_q : rd_q;
      assign column[32*(Kernel-2-k) +: 32] = lb_rd[32*k +: 32];
      always @(posedge clk_i) begin
        if (take) begin
          line_q[c_q[AddrW-1:0]] <= lb_wr[32*k +: 32];
          wr_q <= lb_wr[32*k +: 32];
        end
        rd_q <= line_q[c_d[AddrW-1:0]];
      end
    end
  endgenerate
{%- endif %}

  // Window shift, weights, and per channel the sum of products.
  wire [2:0] lrow0 = K3 - lkh_i;  // window row of the loaded filter's row 0
  wire [2:0] lcol0 = K3 - lkw_i;
  wire [2:0] crow = lrow0 + {1'b0, lkh_i[2:1]};
  wire [2:0] ccol = lcol0 + {1'b0, lkw_i[2:1]};
  wire [2:0] wrow = lrow0 + n_i;
  wire [2:0] wcol = lcol0 + m_i;
  genvar a;
  genvar b;
  genvar ch;
  generate
    for (a = 0; a < Kernel; a = a + 1) begin : g_row
      for (b = 0; b < Kernel; b = b + 1) begin : g_col
        if (b == Kernel - 1) begin : g_new
          assign win_d[32*(a*Kernel+b) +: 32] = column[32*a +: 32];
        end else begin : g_shift
          assign win_d[32*(a*Kernel+b) +: 32] = win_q[32*(a*Kernel+b+1) +: 32];
        end
      end
    end
    for (ch = 0; ch < 4; ch = ch + 1) begin : g_channel
      for (a = 0; a < Kernel; a = a + 1) begin : g_row
        for (b = 0; b < Kernel; b = b + 1) begin : g_col
          localparam [2:0] A = a;
          localparam [2:0] B = b;
          // Reset: GL's identity, a 1x1 filter of 1.0 (the newest tap).
          localparam [WeightWidth-1:0] Init = ((a == Kernel - 1) && (b == Kernel - 1)) ? WOne : {WeightWidth{1'b0}};
          reg [WeightWidth-1:0] w_q;
          wire w_clr = clr_i;
          wire w_wr = we_i & mask_i[ch] & (wrow == A) & (wcol == B);
          wire [WeightWidth-1:0] w_d = w_clr ? ((~mask_i[ch] & (crow == A) & (ccol == B)) ? WOne : {WeightWidth{1'b0}}) :
                                       wdata_i;
          always @(posedge clk_i{{ rst.edge }}) begin
            if ({{ rst.active }}) begin
              w_q <= Init;
            end else if (w_clr | w_wr) begin
              w_q <= w_d;
            end
          end
          // Zero-extended component and sign-extended weight at the product's width.
          wire signed [ProdW-1:0] comp = {{ "{{" }}(ProdW-8){1'b0}}, win_q[32*(a*Kernel+b) + 8*ch +: 8]};
          wire signed [ProdW-1:0] wt = {{ "{{" }}(ProdW-WeightWidth){w_q[WeightWidth-1]}}, w_q};
          assign prods[ProdW*(Taps*ch+a*Kernel+b) +: ProdW] = comp * wt;
        end
      end
    end
  endgenerate

  // Per channel and window row the sum of the row's products, sign-extended (exact: AccW
  // holds the sum of all Taps products).
  reg [AccW-1:0] racc;
  integer t;
  integer row;
  integer chn;
  always @(*) begin
    racc   = {AccW{1'b0}};
    rsum_d = {(4*Kernel*AccW){1'b0}};
    for (chn = 0; chn < 4; chn = chn + 1) begin
      for (row = 0; row < Kernel; row = row + 1) begin
        racc = {AccW{1'b0}};
        for (t = 0; t < Kernel; t = t + 1) begin
          racc = racc + {{ "{{" }}(AccW-ProdW){prods[ProdW*(Taps*chn+Kernel*row+t) + ProdW-1]}}, prods[ProdW*(Taps*chn+Kernel*row+t) +: ProdW]};
        end
        rsum_d[AccW*(Kernel*chn+row) +: AccW] = racc;
      end
    end
  end

  // Per channel the sum of its row sums; rounded at 16 fraction bits (the bits below are
  // dropped by design) and clamped.
  reg [AccW-1:0] sum;
  wire unused_sum;
  assign unused_sum = ^sum[15:0];
  always @(*) begin
    result = 32'd0;
    sum    = Half;
    for (chn = 0; chn < 4; chn = chn + 1) begin
      sum = Half;
      for (row = 0; row < Kernel; row = row + 1) begin
        sum = sum + rsum_q[AccW*(Kernel*chn+row) +: AccW];
      end
      result[8*chn +: 8] = sum[AccW-1] ? 8'd0 : (|sum[AccW-2:24]) ? 8'hff : sum[23:16];
    end
  end

endmodule
