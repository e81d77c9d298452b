{{ stamp }}
// {{ name }}: the IPU's packer (seed 000's format conversion, framebuffer -> memory side):
// the beats of ReadPixels and CopyTexImage, up to {{ lanes }} RGBA8 pixel(s) each, become
// pixels in the format fmt_i, packed row after row with no padding (GL's pack alignment
// 1), little endian, into words of WordBytes bytes ({{ wbytes }}: the DMA word, also the
// texture memory's); the image's last word is zero-padded. An n-bit
// channel is GL's round(c * (2^n - 1) / 255), exact: floor((c * (2^n - 1) + 127) / 255),
// the divide by 255 as (p + 1 + (p >> 8)) >> 8 (exact below 65535). Luminance is
// min(R + G + B, 255) with lum_sum_i (GL's ReadPixels), else R (GL's texture images).
// Formats generated: {% for f in formats %}{{ f.name }}{% if !loop.last %}, {% endif %}{% endfor %}.
// The image's last beat is the one whose y is last_y_i and whose pixels end at end_x_i
// (both registered here: they change only while the unit is empty).
// Throughput: a word a clock out, a beat a clock in while a beat fits a word.
{%- if narrow %}
// Latency: 3 registers (the rounded beat, the beat, then the word): the rounding's two
// carry chains have a clock of their own. busy_o: a beat, bytes or a word held.
{%- else %}
// Latency: 2 registers (the beat, then the word). busy_o: a beat, bytes or a word held.
{%- endif %}
// Combinational paths: out_ready_i -> in_ready_o.
module {{ name }} #(
  parameter integer Lanes = {{ lanes }},
  parameter integer BeatWidth = {{ beat_w }},
  // Bytes of an output word (dma_out's and tex's: the DMA word).
  parameter integer WordBytes = {{ wbytes }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire [2:0] fmt_i,
  input wire lum_sum_i,
  input wire [15:0] end_x_i,
  input wire [15:0] last_y_i,
  input wire in_valid_i,
  output wire in_ready_o,
  input wire [BeatWidth-1:0] in_data_i,
  output wire out_valid_o,
  input wire out_ready_i,
  output wire [8*WordBytes-1:0] out_data_o,
  output wire busy_o
);

  localparam integer Bytes = 4 * Lanes;
{% for f in formats %}
  localparam [2:0] {{ f.name }} = 3'd{{ f.code }};
{%- endfor %}

  // GL's round(c * (2^n - 1) / 255) for n = 4, 5, 6: p = c * (2^n - 1) + 127 and
  // q = p + 1 + (p >> 8) stay below 2^(n + 8); q >> 8 is the quotient, the low 8 bits
  // of q the fraction it drops (to a sink).
  function [3:0] narrow4;
    input [7:0] c;
    reg [11:0] p;
    reg [11:0] q;
    reg unused_q;
    begin
      p = ({4'd0, c} << 4) - {4'd0, c} + 12'd127;  // c * 15: a shift and a subtract, no multiplier
      q = p + 12'd1 + {8'd0, p[11:8]};
      unused_q = ^q[7:0];  // the fraction the division drops
      narrow4 = q[11:8];
    end
  endfunction
  function [4:0] narrow5;
    input [7:0] c;
    reg [12:0] p;
    reg [12:0] q;
    reg unused_q;
    begin
      p = ({5'd0, c} << 5) - {5'd0, c} + 13'd127;  // c * 31: a shift and a subtract, no multiplier
      q = p + 13'd1 + {8'd0, p[12:8]};
      unused_q = ^q[7:0];  // the fraction the division drops
      narrow5 = q[12:8];
    end
  endfunction
  function [5:0] narrow6;
    input [7:0] c;
    reg [13:0] p;
    reg [13:0] q;
    reg unused_q;
    begin
      p = ({6'd0, c} << 6) - {6'd0, c} + 14'd127;  // c * 63: a shift and a subtract, no multiplier
      q = p + 14'd1 + {8'd0, p[13:8]};
      unused_q = ^q[7:0];  // the fraction the division drops
      narrow6 = q[13:8];
    end
  endfunction

  // Bytes per pixel (log2) of the format.
  reg [1:0] bpp_log;
  always @(*) begin
    case (fmt_i)
{%- for f in formats %}
      {{ f.name }}: bpp_log = 2'd{{ f.bpp_log }};
{%- endfor %}
      default: bpp_log = 2'd0;
    endcase
  end
{% for i in lane_list %}
  // Lane {{ i }}: its pixel in the format, in the low bits.
  wire [7:0] r{{ i }} = in_data_i[{{ 32 * i + 7 }}:{{ 32 * i }}];
  wire [7:0] g{{ i }} = in_data_i[{{ 32 * i + 15 }}:{{ 32 * i + 8 }}];
  wire [7:0] b{{ i }} = in_data_i[{{ 32 * i + 23 }}:{{ 32 * i + 16 }}];
{%- if alpha %}
  wire [7:0] a{{ i }} = in_data_i[{{ 32 * i + 31 }}:{{ 32 * i + 24 }}];
{%- else %}
  // No enabled format stores alpha.
  wire [7:0] a{{ i }} = in_data_i[{{ 32 * i + 31 }}:{{ 32 * i + 24 }}];
  wire unused_a{{ i }};
  assign unused_a{{ i }} = ^a{{ i }};
{%- endif %}
  wire [9:0] sum{{ i }} = {2'd0, r{{ i }}} + {2'd0, g{{ i }}} + {2'd0, b{{ i }}};
  wire [7:0] lum{{ i }} = ~lum_sum_i ? r{{ i }} : (|sum{{ i }}[9:8]) ? 8'hff : sum{{ i }}[7:0];
{%- if !lum %}
  // No luminance format is enabled.
  wire unused_lum{{ i }};
  assign unused_lum{{ i }} = ^lum{{ i }};
{%- endif %}
{%- for c in rounds %}
  wire [{{ c.bits - 1 }}:0] {{ c.name }}{{ i }} = narrow{{ c.bits }}({{ c.ch }}{{ i }});
{%- endfor %}
{%- if alpha1 %}
  wire a1_{{ i }} = a{{ i }}[7];  // rgba5551's alpha
{%- endif %}
{%- if alpha && !alpha_low %}
  // Only rgba5551 stores alpha: its top bit.
  wire unused_a{{ i }}_low;
  assign unused_a{{ i }}_low = ^a{{ i }}[6:0];
{%- endif %}
{%- if narrow %}
  // The channels the formats read, raw and rounded, registered (the rounding's clock).
{%- for r in staged %}
  reg [{{ r.bits - 1 }}:0] {{ r.name }}{{ i }}_q;
{%- endfor %}
  always @(posedge clk_i) begin
    if (in_ready_o) begin
{%- for r in staged %}
      {{ r.name }}{{ i }}_q <= {{ r.name }}{{ i }};
{%- endfor %}
    end
  end
{%- endif %}
  reg [31:0] px{{ i }};
  always @(*) begin
    px{{ i }} = 32'd0;
    case (fmt_i)
{%- for f in formats %}
{%- match f.code %}
{%- when 0 %}
      {{ f.name }}: px{{ i }} = {a{{ i }}{{ sfx }}, b{{ i }}{{ sfx }}, g{{ i }}{{ sfx }}, r{{ i }}{{ sfx }}};
{%- when 1 %}
      {{ f.name }}: px{{ i }} = {a{{ i }}{{ sfx }}, r{{ i }}{{ sfx }}, g{{ i }}{{ sfx }}, b{{ i }}{{ sfx }}};
{%- when 2 %}
      {{ f.name }}: px{{ i }} = {16'd0, r5_{{ i }}{{ sfx }}, g6_{{ i }}{{ sfx }}, b5_{{ i }}{{ sfx }}};
{%- when 3 %}
      {{ f.name }}: px{{ i }} = {16'd0, r4_{{ i }}{{ sfx }}, g4_{{ i }}{{ sfx }}, b4_{{ i }}{{ sfx }}, a4_{{ i }}{{ sfx }}};
{%- when 4 %}
      {{ f.name }}: px{{ i }} = {16'd0, r5_{{ i }}{{ sfx }}, g5_{{ i }}{{ sfx }}, b5_{{ i }}{{ sfx }}, a1_{{ i }}{{ sfx }}};
{%- when 5 %}
      {{ f.name }}: px{{ i }} = {24'd0, lum{{ i }}{{ sfx }}};
{%- else %}
      {{ f.name }}: px{{ i }} = {16'd0, a{{ i }}{{ sfx }}, lum{{ i }}{{ sfx }}};
{%- endmatch %}
{%- endfor %}
      default: px{{ i }} = 32'd0;
    endcase
  end
{%- endfor %}

  // The beat's bytes, pixel 0 first, and how many there are.
  reg [8*Bytes-1:0] bytes_in;
  always @(*) begin
    case (bpp_log)
      2'd0:    bytes_in = {{ bytes1 }};
      2'd1:    bytes_in = {{ bytes2 }};
      default: bytes_in = {{ bytes4 }};
    endcase
  end

  // What the beat register takes: the input's beat{% if narrow %}, a clock later from the
  // rounding's register (a bubble register: it takes a beat whenever it is empty or the
  // beat register takes its own; its channels are registered above){% endif %}.
  wire core_valid;
  wire core_ready;
  wire core_last;
{%- if multi %}
  wire [5:0] core_len;
{%- else %}
  wire [1:0] core_blog;
{%- endif %}
{%- if narrow %}
  reg nar_valid_q;
  reg nar_last_q;
{%- if multi %}
  reg [5:0] nar_len_q;
{%- else %}
  reg [1:0] nar_blog_q;
{%- endif %}
{%- endif %}
{%- if !multi %}
  wire [15:0] in_x = in_data_i[{{ meta + 15 }}:{{ meta }}];
  wire [15:0] in_y = in_data_i[{{ meta + 31 }}:{{ meta + 16 }}];
  reg [15:0] last_x_q;  // x of the image's last pixel
  reg [15:0] last_y_q;
  always @(posedge clk_i) begin
    last_x_q <= end_x_i - 16'd1;
    last_y_q <= last_y_i;
  end
  wire in_last = (in_y == last_y_q) & (in_x == last_x_q);

  // One lane: a beat is one pixel of 1, 2 or 4 bytes, and the word (WordBytes, a power
  // of two of at least 4) holds a whole number of them: n_q, the bytes held, is a
  // multiple of the pixel's size (an image's pixels share a format, and its last word
  // is sent). So a beat always fits the word's free bytes and goes whole, to bytes
  // n_q .. n_q + size - 1, with no carry and no compare: held_q marks the bytes below
  // n_q (a thermometer), upto the bytes below n_q + size.
  reg full_q;
  reg full_d;
  reg last_q;
  reg [1:0] blog_q;  // the held beat's bytes, log2
  reg [{{ nw - 1 }}:0] n_q;
  reg [{{ nw - 1 }}:0] n_d;
  reg [WordBytes-2:0] held_q;  // the top byte is never held: it sends the word
  reg [WordBytes-2:0] held_d;
  reg [8*Bytes-1:0] beat_q;
  reg [8*WordBytes-9:0] acc_q;
  reg out_valid_q;
  reg out_valid_d;
  reg [8*WordBytes-1:0] out_q;

  wire [WordBytes+2:0] held_ext = {held_q, 4'hf};
  wire [WordBytes-1:0] upto = (blog_q == 2'd0) ? held_ext[WordBytes+2:3] :
                              (blog_q == 2'd1) ? held_ext[WordBytes+1:2] : held_ext[WordBytes-1:0];
  wire [8*WordBytes-1:0] win_sh = {{ "{{" }}(8*WordBytes-8*Bytes){1'b0}}, beat_q} << {n_q, 3'b000};
  // The word: the held bytes, then the beat's, zero above.
  wire [8*WordBytes-1:0] merged = {
{%- for b in word_bytes %}
{%- if b.first %}
    held_q[0] ? acc_q[7:0] : win_sh[7:0]
{%- else if b.held %}
    held_q[{{ b.k }}] ? acc_q[{{ 8 * b.k + 7 }}:{{ 8 * b.k }}] : upto[{{ b.k }}] ? win_sh[{{ 8 * b.k + 7 }}:{{ 8 * b.k }}] : 8'd0,
{%- else %}
    upto[{{ b.k }}] ? win_sh[{{ 8 * b.k + 7 }}:{{ 8 * b.k }}] : 8'd0,
{%- endif %}
{%- endfor %}
  };
  // The word fills (the beat reaches its top byte) or the image ends.
  wire word_now = upto[WordBytes-1] | last_q;
  wire step = full_q & (~word_now | ~out_valid_q | out_ready_i);
  assign core_ready = ~full_q | step;
  wire take_in = core_valid & core_ready;
  assign out_valid_o = out_valid_q;
  assign out_data_o  = out_q;
  assign busy_o      = full_q | held_q[0] | out_valid_q{% if narrow %} | nar_valid_q{% endif %};

  always @(*) begin
    full_d      = full_q;
    n_d         = n_q;
    held_d      = held_q;
    out_valid_d = out_valid_q & ~out_ready_i;
    if (step) begin
      full_d = 1'b0;
      if (word_now) begin
        out_valid_d = 1'b1;
        n_d         = {{ nw }}'d0;
        held_d      = {(WordBytes-1){1'b0}};
      end else begin
        n_d    = n_q + ({{ "{{" }}({{ nw }}-1){1'b0}}, 1'b1} << blog_q);
        held_d = upto[WordBytes-2:0];
      end
    end
    if (take_in) begin
      full_d = 1'b1;
    end
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      full_q      <= 1'b0;
      last_q      <= 1'b0;
      blog_q      <= 2'd0;
      n_q         <= {{ nw }}'d0;
      held_q      <= {(WordBytes-1){1'b0}};
      out_valid_q <= 1'b0;
    end else begin
      full_q      <= full_d;
      n_q         <= n_d;
      held_q      <= held_d;
      out_valid_q <= out_valid_d;
      if (take_in) begin
        last_q <= core_last;
        blog_q <= core_blog;
      end
    end
  end
{%- else %}
  wire [{{ lanes - 1 }}:0] in_mask = in_data_i[BeatWidth-1:BeatWidth-{{ lanes }}];
  wire [2:0] in_count = {{ count_expr }};
  wire [5:0] in_len = {3'd0, in_count} << bpp_log;
  wire [15:0] in_x = in_data_i[{{ meta + 15 }}:{{ meta }}];
  wire [15:0] in_y = in_data_i[{{ meta + 31 }}:{{ meta + 16 }}];
  reg [15:0] end_x_q;
  reg [15:0] last_y_q;
  always @(posedge clk_i) begin
    end_x_q  <= end_x_i;
    last_y_q <= last_y_i;
  end
  wire in_last = (in_y == last_y_q) & (in_x + {13'd0, in_count} == end_x_q);

  // The held beat (bytes off_q .. off_q + rem_q - 1 still to go) and the word being
  // filled (n_q bytes in acc_q). rem_q is kept, not computed: ready starts from flops.
  reg full_q;
  reg full_d;
  reg [5:0] off_q;
  reg [5:0] off_d;
  reg [5:0] rem_q;
  reg [5:0] rem_d;
  reg last_q;
  reg [{{ nw - 1 }}:0] n_q;
  reg [{{ nw - 1 }}:0] n_d;
  reg [8*Bytes-1:0] beat_q;
  reg [8*WordBytes-9:0] acc_q;
  reg out_valid_q;
  reg out_valid_d;
  reg [8*WordBytes-1:0] out_q;

  localparam [5:0] WBytes = WordBytes[5:0];
  wire [5:0] space = WBytes - {{ "{{" }}{{ 6 - nw }}{1'b0}}, n_q};
  wire fits = (rem_q <= space);
  wire [5:0] take = fits ? rem_q : space;
  wire [5:0] total = {{ "{{" }}{{ 6 - nw }}{1'b0}}, n_q} + take;
  wire [8*Bytes+8*WordBytes-1:0] beat_wide = {{ "{{" }}(8*WordBytes){1'b0}}, beat_q};
  wire [8*WordBytes-1:0] window = beat_wide[{off_q[{{ off_hi }}:0], 3'b000} +: 8*WordBytes];
  wire [8*WordBytes-1:0] win_sh = window << {n_q, 3'b000};
  // The word: n_q held bytes, then take bytes of the beat, zero above.
  wire [8*WordBytes-1:0] merged = {
{%- for b in word_bytes %}
{%- if b.first %}
    (n_q > {{ nw }}'d0) ? acc_q[7:0] : win_sh[7:0]
{%- else if b.held %}
    (n_q > {{ nw }}'d{{ b.k }}) ? acc_q[{{ 8 * b.k + 7 }}:{{ 8 * b.k }}] : (total > 6'd{{ b.k }}) ? win_sh[{{ 8 * b.k + 7 }}:{{ 8 * b.k }}] : 8'd0,
{%- else %}
    (total > 6'd{{ b.k }}) ? win_sh[{{ 8 * b.k + 7 }}:{{ 8 * b.k }}] : 8'd0,
{%- endif %}
{%- endfor %}
  };
  // The word fills (total == WBytes: the beat's rest does not fit or exactly fills it) or
  // the image ends.
  wire word_now = (rem_q >= space) | last_q;
  wire step = full_q & (~word_now | ~out_valid_q | out_ready_i);
  assign core_ready = ~full_q | (step & fits);
  wire take_in = core_valid & core_ready;
  assign out_valid_o = out_valid_q;
  assign out_data_o  = out_q;
  assign busy_o      = full_q | (n_q != {{ nw }}'d0) | out_valid_q{% if narrow %} | nar_valid_q{% endif %};

  always @(*) begin
    full_d      = full_q;
    off_d       = off_q;
    rem_d       = rem_q;
    n_d         = n_q;
    out_valid_d = out_valid_q & ~out_ready_i;
    if (step) begin
      off_d = off_q + take;
      rem_d = rem_q - take;
      if (fits) begin
        full_d = 1'b0;
      end
      if (word_now) begin
        out_valid_d = 1'b1;
        n_d         = {{ nw }}'d0;
      end else begin
        n_d = total[{{ nw - 1 }}:0];
      end
    end
    if (take_in) begin
      full_d = 1'b1;
      off_d  = 6'd0;
      rem_d  = core_len;
    end
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      full_q      <= 1'b0;
      off_q       <= 6'd0;
      rem_q       <= 6'd0;
      last_q      <= 1'b0;
      n_q         <= {{ nw }}'d0;
      out_valid_q <= 1'b0;
    end else begin
      full_q      <= full_d;
      off_q       <= off_d;
      rem_q       <= rem_d;
      n_q         <= n_d;
      out_valid_q <= out_valid_d;
      if (take_in) begin
        last_q <= core_last;
      end
    end
  end

{%- endif %}
{%- if narrow %}

  assign in_ready_o = ~nar_valid_q | core_ready;
  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      nar_valid_q <= 1'b0;
    end else if (in_ready_o) begin
      nar_valid_q <= in_valid_i;
    end
  end
  // Loaded whenever the register may take a beat, whether or not one comes (an empty
  // register's data is never read): no valid reaches the enables.
  always @(posedge clk_i) begin
    if (in_ready_o) begin
      nar_last_q  <= in_last;
{%- if multi %}
      nar_len_q   <= in_len;
{%- else %}
      nar_blog_q  <= bpp_log;
{%- endif %}
    end
  end
  assign core_valid = nar_valid_q;
  assign core_last  = nar_last_q;
{%- if multi %}
  assign core_len   = nar_len_q;
{%- else %}
  assign core_blog  = nar_blog_q;
{%- endif %}
{%- else %}

  assign in_ready_o = core_ready;
  assign core_valid = in_valid_i;
  assign core_last  = in_last;
{%- if multi %}
  assign core_len   = in_len;
{%- else %}
  assign core_blog  = bpp_log;
{%- endif %}
{%- endif %}

  // Datapath: the beat's bytes, the partial word and the word out.
  always @(posedge clk_i) begin
    if (take_in) begin
      beat_q <= bytes_in;
    end
    if (step & ~word_now) begin
      acc_q <= merged[8*WordBytes-9:0];
    end
    if (step & word_now) begin
      out_q <= merged;
    end
  end

endmodule
