{{ stamp }}
// {{ name }}: the texture mapping unit's back end (seed 001): format conversion after the
// texture cache, one converter per texel{% if dxt1 %} (DXT1 decoded here: the cache holds blocks){% endif %},
// and {{ lanes }} filter lane(s), one per fragment, four channels each.
//
// Formats: {{ format_list }} (codes: {{ format_codes }}; any other code reads as 0).
// Each lane gets its 2x2 texels (i0,j0), (i1,j0), (i0,j1), (i1,j1) with weights a, b of
// {{ wbits }} bits (a nearest sample is texel 0 with a = b = 0). Bilinear is exact in integers,
// t00 (W-a)(W-b) + t10 a (W-b) + t01 (W-a) b + t11 a b with W = 2^{{ wbits }}, computed as two
// horizontal and one vertical blend, and rounded once. Trilinear is two requests: the
// first (pass 1) is held in the accumulator, the second (pass 2) is blended with it by
// weight f (8 bits, one per quad of 4 lanes: two quads at 8 lanes have their own LODs)
// and rounded once; pass 0 (and 3) is a single-level sample.
// See src/model/tmu/filter.rs and format.rs, which this matches bit for bit.
//
// req_data_i: {pass[1:0], f[Quads] x 8, format[2:0], lane[{{ lanes }}]}, lane 0 and quad 0 lowest;
//             Quads = (Lanes + 3) / 4, lanes 4q to 4q + 3 blend by f of quad q; a lane is
//             {texel[4], b, a, active}, active lowest; a texel is {% if dxt1 %}{aux[31:0], {% else %}{{ "{" }}{% endif %}word[31:0], sub[{{ sub_w - 1 }}:0]}:
//             word is the cache word holding the texel, sub its index in the word{% if dxt1 %}
//             (for DXT1: word = colours, aux = indices, sub = 4y + x in the block){% endif %}.
// rsp_data_o: lane[{{ lanes }}] of {% if fp32 %}{a, b, g, r} fp32 (exactly c / 255){% else %}{a, b, g, r} 8 bits{% endif %}, lane 0 lowest; inactive
//             lanes read as zero. Pass 1 gives no response.
// Latency 5 clocks (input, convert, blend, blend, output registers); throughput one
// request per clock. Combinational paths: none between ports.
module {{ name }} #(
  // Lanes and weight bits are free to override; the formats are fixed by the generator.
  parameter integer Lanes = {{ lanes }},
  parameter integer WBits = {{ wbits }}  // bilinear weight bits
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire req_valid_i,
  output wire req_ready_o,
  input wire [Lanes * (2 * WBits + {{ lane_fixed }}) + 8 * ((Lanes + 3) / 4) + 4:0] req_data_i,
  output wire rsp_valid_o,
  input wire rsp_ready_i,
  output wire [Lanes * {{ out_lane_w }} - 1:0] rsp_data_o
);

  localparam integer SubW = {{ sub_w }};
  localparam integer TexW = {{ tex_w }};  // one texel of a request
  localparam integer LaneW = 2 * WBits + {{ lane_fixed }};  // one lane of a request
  localparam integer Quads = (Lanes + 3) / 4;  // lanes 4q to 4q + 3 share f
  localparam integer CtlW = 2 + 8 * Quads;  // pass and the quads' f
  localparam integer ReqW = Lanes * LaneW + 3 + CtlW;
  localparam integer HW = 8 + WBits;  // a horizontal blend, exact
  localparam integer VW = 8 + 2 * WBits;  // a bilinear sum, exact
  localparam integer TW = VW + 8;  // a trilinear sum, exact
  localparam integer S1LaneW = 1 + 2 * WBits + 128;
  localparam integer S1W = CtlW + Lanes * S1LaneW;
  localparam integer S2LaneW = 1 + WBits + 8 * HW;
  localparam integer S2W = CtlW + Lanes * S2LaneW;
  localparam integer S3LaneW = 1 + 4 * VW;
  localparam integer S3W = CtlW + Lanes * S3LaneW;
  localparam integer OutLaneW = {{ out_lane_w }};
  localparam integer RspW = Lanes * OutLaneW;
  localparam [1:0] PassFirst = 2'd{{ pass_first }};  // pass codes (iface::tex_filter)
  localparam [1:0] PassSecond = 2'd{{ pass_second }};

  // ---------------------------------------------------------------------------------
  // Format conversion. Widening is GL's round(c * 255 / (2^n - 1)), exactly.
  // These functions keep only the top bits of their rounding sums, and a format set may
  // leave some of decode's inputs unused: the rest go to function-local sinks.
{%- if need_w5 %}

  function [7:0] w5(input [4:0] v);  // round(v * 255 / 31)
    reg [15:0] p;
    reg unused_p;
    begin
      p  = {11'd0, v} * 16'd527 + 16'd23;
      unused_p = ^{p[15:14], p[5:0]};
      w5 = p[13:6];
    end
  endfunction
{%- endif %}
{%- if need_w6 %}

  function [7:0] w6(input [5:0] v);  // round(v * 255 / 63)
    reg [15:0] p;
    reg unused_p;
    begin
      p  = {10'd0, v} * 16'd259 + 16'd33;
      unused_p = ^{p[15:14], p[5:0]};
      w6 = p[13:6];
    end
  endfunction
{%- endif %}
{%- if need_565 %}

  // An rgb565 colour as {b, g, r}.
  function [23:0] rgb565(input [15:0] c);
    rgb565 = {w5(c[4:0]), w6(c[10:5]), w5(c[15:11])};
  endfunction
{%- endif %}
{%- if dxt1 %}

  // A DXT1 endpoint widened by bit replication (as the S3TC reference decoder), {b, g, r}.
  function [23:0] endpoint(input [15:0] c);
    endpoint = {c[4:0], c[4:2], c[10:5], c[10:9], c[15:11], c[15:13]};
  endfunction

  // (2a + b) / 3 truncated, one channel: x * 683 >> 11 is x / 3 for x < 768.
  function [7:0] third(input [7:0] a, input [7:0] b);
    reg [9:0] x;
    reg [19:0] p;
    reg unused_p;
    begin
      x     = {1'b0, a, 1'b0} + {2'b00, b};
      p     = {10'd0, x} * 20'd683;
      unused_p = ^{p[19], p[10:0]};
      third = p[18:11];
    end
  endfunction

  // (a + b) / 2 truncated, one channel.
  function [7:0] half(input [7:0] a, input [7:0] b);
    reg [8:0] x;
    reg unused_x;
    begin
      x    = {1'b0, a} + {1'b0, b};
      unused_x = x[0];
      half = x[8:1];
    end
  endfunction

  // Texel sub (4y + x) of a DXT1 block: colours 0 and 1 in cw, indices in iw.
  // Index 2 weighs colour 0 double and index 3 colour 1, so one divider serves both.
  function [31:0] dxt1(input [31:0] cw, input [31:0] iw, input [3:0] sub);
    reg [23:0] p0;
    reg [23:0] p1;
    reg [23:0] pa;  // the colour weighted double
    reg [23:0] pb;
    reg [1:0] idx;
    reg four;  // colour 0 > colour 1: four opaque colours
    begin
      p0   = endpoint(cw[15:0]);
      p1   = endpoint(cw[31:16]);
      idx  = iw[{sub, 1'b0} +: 2];
      four = cw[15:0] > cw[31:16];
      pa   = idx[0] ? p1 : p0;
      pb   = idx[0] ? p0 : p1;
      case (idx)
        2'd0:    dxt1 = {8'hff, p0};
        2'd1:    dxt1 = {8'hff, p1};
        2'd2:    dxt1 = four ? {8'hff, third(pa[23:16], pb[23:16]), third(pa[15:8], pb[15:8]), third(pa[7:0], pb[7:0])}
                             : {8'hff, half(p0[23:16], p1[23:16]), half(p0[15:8], p1[15:8]), half(p0[7:0], p1[7:0])};
        default: dxt1 = four ? {8'hff, third(pa[23:16], pb[23:16]), third(pa[15:8], pb[15:8]), third(pa[7:0], pb[7:0])}
                             : 32'd0;
      endcase
    end
  endfunction
{%- endif %}

  // One texel as {a, b, g, r}.
  function [31:0] decode(input [2:0] fmt, input [TexW-1:0] tex);
    reg [SubW-1:0] sub;
    reg [31:0] word;
{%- if need_h %}
    reg [15:0] h;  // the 16-bit texel
{%- endif %}
{%- if need_l %}
    reg [7:0] l;  // the 8-bit texel
{%- endif %}
    reg unused_in;  // what the enabled formats leave unread
    begin
      sub  = tex[SubW-1:0];
      word = tex[SubW +: 32];
{%- if need_h %}
      h    = sub[0] ? word[31:16] : word[15:0];
{%- endif %}
{%- if need_l %}
      l    = word[{sub[1:0], 3'b000} +: 8];
{%- endif %}
      unused_in = ^{tex, sub, word{% if need_h %}, h{% endif %}{% if need_l %}, l{% endif %}};
      case (fmt)
{%- for f in formats %}
        {{ f.code }}: decode = {{ f.expr }};  // {{ f.name }}
{%- endfor %}
        default: decode = 32'd0;
      endcase
    end
  endfunction

  // ---------------------------------------------------------------------------------
  // Stage 0: input register.
  wire s0_valid;
  wire s0_ready;
  wire [ReqW-1:0] s0_data;

  {{ skid }} #(
    .Width (ReqW)
  ) u_in (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (req_valid_i),
    .in_ready_o  (req_ready_o),
    .in_data_i   (req_data_i),
    .out_valid_o (s0_valid),
    .out_ready_i (s0_ready),
    .out_data_o  (s0_data)
  );

  wire [1:0] s0_pass = s0_data[ReqW-1 -: 2];
  wire [8*Quads-1:0] s0_f = s0_data[ReqW-3 -: 8*Quads];
  wire [2:0] s0_fmt = s0_data[ReqW-CtlW-1 -: 3];

  // Stage 1: every texel converted to RGBA8.
  wire [S1W-1:0] s1_in;
  wire s1_valid;
  wire s1_ready;
  wire [S1W-1:0] s1_data;

  assign s1_in[S1W-1 -: CtlW] = {s0_pass, s0_f};

  genvar gl;
  genvar gc;
  genvar gt;
  generate
    for (gl = 0; gl < Lanes; gl = gl + 1) begin : g_convert
      wire [LaneW-1:0] lane = s0_data[gl*LaneW +: LaneW];
      // Lane: {texels converted, b, a, active}.
      assign s1_in[gl*S1LaneW +: 1 + 2 * WBits] = lane[2 * WBits:0];
      for (gt = 0; gt < 4; gt = gt + 1) begin : g_texel
        assign s1_in[gl*S1LaneW + 1 + 2*WBits + gt*32 +: 32] =
            decode(s0_fmt, lane[1 + 2*WBits + gt*TexW +: TexW]);
      end
    end
  endgenerate

  {{ skid }} #(
    .Width (S1W)
  ) u_convert (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (s0_valid),
    .in_ready_o  (s0_ready),
    .in_data_i   (s1_in),
    .out_valid_o (s1_valid),
    .out_ready_i (s1_ready),
    .out_data_o  (s1_data)
  );

  // ---------------------------------------------------------------------------------
  // Stage 2: horizontal blends, h0 = t00 (W-a) + t10 a and h1 = t01 (W-a) + t11 a, each
  // computed as t00 W + (t10 - t00) a: one signed multiply, exact modulo 2^HW, where the
  // result lies. (Blends below use the same form.)
  wire [S2W-1:0] s2_in;
  wire s2_valid;
  wire s2_ready;
  wire [S2W-1:0] s2_data;

  assign s2_in[S2W-1 -: CtlW] = s1_data[S1W-1 -: CtlW];

  generate
    for (gl = 0; gl < Lanes; gl = gl + 1) begin : g_hblend
      wire [S1LaneW-1:0] lane = s1_data[gl*S1LaneW +: S1LaneW];
      wire [WBits-1:0] a = lane[1 +: WBits];
      wire signed [HW-1:0] sa = $signed({{ "{" }}{(HW - WBits){1'b0}}, a});
      // Lane: {h1[4], h0[4], b, active}.
      assign s2_in[gl*S2LaneW +: 1 + WBits] = {lane[1 + WBits +: WBits], lane[0]};
      for (gc = 0; gc < 4; gc = gc + 1) begin : g_chan
        wire [7:0] t00 = lane[1 + 2*WBits + 0*32 + gc*8 +: 8];
        wire [7:0] t10 = lane[1 + 2*WBits + 1*32 + gc*8 +: 8];
        wire [7:0] t01 = lane[1 + 2*WBits + 2*32 + gc*8 +: 8];
        wire [7:0] t11 = lane[1 + 2*WBits + 3*32 + gc*8 +: 8];
        wire signed [HW-1:0] d0 = $signed({{ "{" }}{WBits{1'b0}}, t10}) - $signed({{ "{" }}{WBits{1'b0}}, t00});
        wire signed [HW-1:0] d1 = $signed({{ "{" }}{WBits{1'b0}}, t11}) - $signed({{ "{" }}{WBits{1'b0}}, t01});
        wire signed [HW-1:0] p0 = d0 * sa;
        wire signed [HW-1:0] p1 = d1 * sa;
        assign s2_in[gl*S2LaneW + 1 + WBits + gc*HW +: HW]       = {t00, {WBits{1'b0}}} + p0;
        assign s2_in[gl*S2LaneW + 1 + WBits + (4 + gc)*HW +: HW] = {t01, {WBits{1'b0}}} + p1;
      end
    end
  endgenerate

  {{ skid }} #(
    .Width (S2W)
  ) u_hblend (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (s1_valid),
    .in_ready_o  (s1_ready),
    .in_data_i   (s2_in),
    .out_valid_o (s2_valid),
    .out_ready_i (s2_ready),
    .out_data_o  (s2_data)
  );

  // ---------------------------------------------------------------------------------
  // Stage 3: vertical blend, v = h0 (W-b) + h1 b: the exact bilinear sum.
  wire [S3W-1:0] s3_in;
  wire s3_valid;
  wire s3_ready;
  wire [S3W-1:0] s3_data;

  assign s3_in[S3W-1 -: CtlW] = s2_data[S2W-1 -: CtlW];

  generate
    for (gl = 0; gl < Lanes; gl = gl + 1) begin : g_vblend
      wire [S2LaneW-1:0] lane = s2_data[gl*S2LaneW +: S2LaneW];
      wire [WBits-1:0] b = lane[1 +: WBits];
      wire signed [VW-1:0] sb = $signed({{ "{" }}{(VW - WBits){1'b0}}, b});
      assign s3_in[gl*S3LaneW] = lane[0];
      for (gc = 0; gc < 4; gc = gc + 1) begin : g_chan
        wire [HW-1:0] h0 = lane[1 + WBits + gc*HW +: HW];
        wire [HW-1:0] h1 = lane[1 + WBits + (4 + gc)*HW +: HW];
        wire signed [VW-1:0] d = $signed({{ "{" }}{WBits{1'b0}}, h1}) - $signed({{ "{" }}{WBits{1'b0}}, h0});
        wire signed [VW-1:0] p = d * sb;
        assign s3_in[gl*S3LaneW + 1 + gc*VW +: VW] = {h0, {WBits{1'b0}}} + p;
      end
    end
  endgenerate

  {{ skid }} #(
    .Width (S3W)
  ) u_vblend (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (s2_valid),
    .in_ready_o  (s2_ready),
    .in_data_i   (s3_in),
    .out_valid_o (s3_valid),
    .out_ready_i (s3_ready),
    .out_data_o  (s3_data)
  );

  // ---------------------------------------------------------------------------------
  // Stage 4: a first pass fills the accumulator; a second blends with it; each rounds
  // once.{% if fp32 %} Channels become fp32 through a table of c / 255.{% endif %}
  wire [1:0] s3_pass = s3_data[S3W-1 -: 2];
  wire [8*Quads-1:0] s3_f = s3_data[S3W-3 -: 8*Quads];
  wire s3_first = s3_pass == PassFirst;
  wire s3_second = s3_pass == PassSecond;
  wire out_ready;
  wire [RspW-1:0] out_in;
{%- if fp32 %}

  function [31:0] unorm8_f32(input [7:0] c);
    case (c)
{%- for e in fp32_table %}
      8'd{{ e.0 }}: unorm8_f32 = 32'h{{ e.1 }};
{%- endfor %}
      default: unorm8_f32 = 32'h3f800000;
    endcase
  endfunction
{%- endif %}

  assign s3_ready = s3_first | out_ready;

  generate
    for (gl = 0; gl < Lanes; gl = gl + 1) begin : g_out
      wire [S3LaneW-1:0] lane = s3_data[gl*S3LaneW +: S3LaneW];
      wire signed [TW-1:0] sf = $signed({{ "{" }}{(TW - 8){1'b0}}, s3_f[(gl / 4)*8 +: 8]});
      reg [4*VW-1:0] acc_q;  // pass 1's bilinear sums (reset: a lone pass 2 blends with 0)
      for (gc = 0; gc < 4; gc = gc + 1) begin : g_chan
        wire [VW-1:0] v = lane[1 + gc*VW +: VW];
        wire [VW-1:0] acc = acc_q[gc*VW +: VW];
        wire signed [TW-1:0] d = $signed({8'd0, v}) - $signed({8'd0, acc});
        wire signed [TW-1:0] p = d * sf;
        // Only the top bits of each rounded sum are the channel.
        wire [TW-1:0] tri_sum = {acc, 8'd0} + p + {{ "{" }}{(TW - 2*WBits - 8){1'b0}}, 1'b1, {(2*WBits + 7){1'b0}}};
        wire [VW-1:0] bil_sum = v + {{ "{" }}{(VW - 2*WBits){1'b0}}, 1'b1, {(2*WBits - 1){1'b0}}};
        wire unused_sums;
        assign unused_sums = ^{tri_sum[TW-9:0], bil_sum[VW-9:0]};
        wire [7:0] c = lane[0] ? (s3_second ? tri_sum[TW-1 -: 8] : bil_sum[VW-1 -: 8]) : 8'd0;
{%- if fp32 %}
        assign out_in[gl*OutLaneW + gc*32 +: 32] = lane[0] ? unorm8_f32(c) : 32'd0;
{%- else %}
        assign out_in[gl*OutLaneW + gc*8 +: 8] = c;
{%- endif %}
      end

      always @(posedge clk_i{{ rst.edge }}) begin
        if ({{ rst.active }}) begin
          acc_q <= {(4*VW){1'b0}};
        end else if (s3_valid && s3_first) begin
          acc_q <= lane[1 +: 4*VW];
        end
      end
    end
  endgenerate

  {{ skid }} #(
    .Width (RspW)
  ) u_out (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (s3_valid & ~s3_first),
    .in_ready_o  (out_ready),
    .in_data_i   (out_in),
    .out_valid_o (rsp_valid_o),
    .out_ready_i (rsp_ready_i),
    .out_data_o  (rsp_data_o)
  );

endmodule
