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
// req_data_i: {{ req_desc }}, lane 0 and quad 0 lowest;
//             Quads = (Lanes + 3) / 4, lanes 4q to 4q + 3 blend by f (blends) of quad q; a lane is
//             {{ lane_desc }}, active lowest; a texel is {{ tex_desc }}:
//             word is the cache word holding the texel, sub its index in the word{% if dxt1 %}
//             (for DXT1: word = colours, aux = indices, sub = 4y + x in the block){% endif %}.
// rsp_data_o: lane[{{ lanes }}] of {% if fp32 %}{a, b, g, r} fp32 (exactly c / 255){% else %}{a, b, g, r} 8 bits{% endif %}, lane 0 lowest; inactive
//             lanes read as zero. Pass 1 gives no response.
//
// Pipeline (iface::tex_filter::FilterPipe, scheduled for {{ target_mhz }} MHz): the input register,
// {{ pipe_desc }} (a register at each "|": {{ stages }}),
// then the output FIFO. Latency {{ latency }} clocks; throughput one request per clock.
{%- if dsp %}
// Every blend is a multiplier block ({% if t_split %}five{% else %}four{% endif %} a channel: h0, h1, v and the level blend's
// {% if t_split %}two halves{% else %}one{% endif %}), each in a stage of its own between its input and output registers,
{%- if block_nets %}
// its operands from fabric registers a stage before and its product into fabric registers
// a stage after, then carry chains.
{%- else %}
// then carry chains (the clock leaves room for the nets to and from the blocks).
{%- endif %}
{%- else %}
// Every product is a sum of shifted rows in an adder tree, one tree level a step; no
// multiplier blocks.
{%- endif %}
// The datapath never stalls: the input takes a request only while the output FIFO
// ({{ fifo_depth }} entries) has room for every request in flight, so its registers are
// plain flops with no enable. Combinational paths: none between ports.
module {{ name }} #(
  parameter integer Lanes = {{ lanes }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire req_valid_i,
  output wire req_ready_o,
  input wire [{{ req_port_w }} - 1:0] req_data_i,
  output wire rsp_valid_o,
  input wire rsp_ready_i,
  output wire [Lanes * {{ out_lane_w }} - 1:0] rsp_data_o
);

  // The weight width shapes the adder trees, so it is fixed by the generator.
  localparam integer WBits = {{ wbits }};
  localparam integer SubW = {{ sub_w }};
{%- for w in widths %}
  localparam integer {{ w.0 }} = {{ w.1 }};  // {{ w.2 }}
{%- endfor %}
  localparam integer TexW = {{ tex_w }};  // one texel of a request
  localparam integer LaneW = {{ lane_w }};  // one lane of a request
{%- for f in lsbs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer CLaneW = LaneTexelsLsb;  // a lane's {b, a, active}, in the control word
  localparam integer Quads = (Lanes + 3) / 4;  // lanes 4q to 4q + 3 share f
{%- for f in word_exprs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer HW = 8 + WBits;  // a horizontal blend, exact
  localparam integer VW = 8 + 2 * WBits;  // a bilinear sum, exact
  localparam integer TW = VW + 8;  // a trilinear sum, exact
  localparam integer Stages = {{ stages }};
  localparam integer OutDepth = {{ fifo_depth }};  // responses the credits let in
{%- if fifo_write_always %}
  localparam integer OutEntries = {{ fifo_entries }};  // the output FIFO's: one spare
{%- endif %}
  localparam integer UsedW = {{ used_w }};
  localparam [UsedW-1:0] LastFree = {{ last_free }};  // OutDepth - 1: one request short of full
  localparam integer OutLaneW = {{ out_lane_w }};
  localparam integer RspW = Lanes * OutLaneW;
  localparam [PassCodeW-1:0] PassFirst = {{ pass_first }};  // pass codes (iface::tex_filter)
  localparam [PassCodeW-1:0] PassSecond = {{ pass_second }};
{%- if dxt1 %}
  localparam [FormatW-1:0] FmtDxt1 = {{ dxt1_code }};
{%- endif %}

  // ---------------------------------------------------------------------------------
  // Format conversion. Widening is GL's round(c * 255 / (2^n - 1)), exactly, by table.
{%- if need_w5 %}

  function [7:0] w5(input [4:0] v);  // round(v * 255 / 31)
    (* rom_style = "logic" *)
    case (v)
{%- for e in w5_table %}
      5'd{{ e.0 }}: w5 = 8'd{{ e.1 }};
{%- endfor %}
      default: w5 = 8'd0;
    endcase
  endfunction
{%- endif %}
{%- if need_w6 %}

  function [7:0] w6(input [5:0] v);  // round(v * 255 / 63)
    (* rom_style = "logic" *)
    case (v)
{%- for e in w6_table %}
      6'd{{ e.0 }}: w6 = 8'd{{ e.1 }};
{%- endfor %}
      default: w6 = 8'd0;
    endcase
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

  // A DXT1 texel that is an endpoint or zero: index 0, 1, or 3 with three colours
  // (index 2, and 3 with four colours, blend the endpoints: see the sum and third steps).
  function [31:0] dxt1(input [31:0] cw, input [1:0] idx);
    case (idx)
      2'd0:    dxt1 = {8'hff, endpoint(cw[15:0])};
      2'd1:    dxt1 = {8'hff, endpoint(cw[31:16])};
      default: dxt1 = 32'd0;
    endcase
  endfunction
{%- endif %}

  // One texel as {a, b, g, r}{% if dxt1 %} (a DXT1 texel as dxt1() above){% endif %}.
  function [WordW-1:0] decode(input [FormatW-1:0] fmt, input [WordW-1:0] word{% if need_h %}, input [15:0] h{% endif %}{% if need_l %}, input [7:0] l{% endif %}{% if dxt1 %}, input [1:0] idx{% endif %});
    reg unused_in;  // what the enabled formats leave unread
    begin
      unused_in = ^{word{% if need_h %}, h{% endif %}{% if need_l %}, l{% endif %}{% if dxt1 %}, idx{% endif %}};
      case (fmt)
{%- for f in formats %}
        {{ f.code }}: decode = {{ f.expr }};  // {{ f.name }}
{%- endfor %}
        default: decode = 32'd0;
      endcase
    end
  endfunction
{%- if fp32 %}

  // c / 255 in quarters by c[7:6], so that a table is a 6-input function and the
  // choice among them a step of its own. In LUTs: as a block RAM a table's unregistered
  // output would take most of a clock.
{%- for (qi, q) in fp32_quarters %}

  // Entry c at bits [32*c +: 32]: a constant indexed, since Yosys 0.23 leaves a case
  // table's result undriven where a generate block uses it.
  localparam [2047:0] F32Q{{ qi }} = 2048'h{{ q }};

  function [31:0] unorm8_f32_q{{ qi }}(input [5:0] c);
    unorm8_f32_q{{ qi }} = F32Q{{ qi }}[{c, 5'd0} +: 32];
  endfunction
{%- endfor %}
{%- endif %}

  // ---------------------------------------------------------------------------------
  // Input register, then the credits: a request is taken only while the output FIFO has
  // room for it and for every request ahead of it (room_q, a flop: no combinational path
  // from the ports). The input register loads every clock, with no enable (its valid bit
  // says whether it holds a request), so no control signal fans out to its data flops.
  reg [UsedW-1:0] used_q;  // requests taken and not yet popped or dropped
  reg [UsedW-1:0] used_d;
  // used_q != OutDepth, kept in a flop of its own.
  reg room_q;
  reg room_d;
  wire take = req_valid_i & room_q;
  reg s0_valid_q;
  reg [ReqW-1:0] s0_data_q;
  wire [ReqW-1:0] s0_data = s0_data_q;
  wire accept = s0_valid_q;  // the request in the input register enters the datapath
  wire push;  // a response into the output FIFO
  wire drop;  // a first pass leaves the datapath with no response
  wire pop;
  wire grow = take & ~pop & ~drop;  // one request more in flight
  wire hold = take ? (pop ^ drop) : ~(pop | drop);  // as many in as out

  assign req_ready_o = room_q;

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      s0_valid_q <= 1'b0;
    end else begin
      s0_valid_q <= take;
    end
  end

  always @(posedge clk_i) begin
    s0_data_q <= req_data_i;
  end

  always @(*) begin
    used_d = used_q + {{ "{" }}{(UsedW - 1){1'b0}}, take} - {{ "{" }}{(UsedW - 1){1'b0}}, pop}
           - {{ "{" }}{(UsedW - 1){1'b0}}, drop};
    // used_d != OutDepth without the sum on the path: used_q never passes OutDepth, so
    // used_d reaches it only from OutDepth - 1 with one request more, or from OutDepth
    // with as many in as out.
    room_d = ~((grow & (used_q == LastFree)) | (hold & (used_q == OutDepth[UsedW-1:0])));
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      used_q <= {UsedW{1'b0}};
      room_q <= 1'b1;
    end else begin
      used_q <= used_d;
      room_q <= room_d;
    end
  end

  // The control word travels beside the data, one copy a stage.
  wire [CtlW-1:0] s0_ctl;
  assign s0_ctl[CtlFormatLsb +: FormatW]       = s0_data[ReqFormatLsb +: FormatW];
  assign s0_ctl[CtlBlendsLsb +: Quads*BlendW] = s0_data[ReqBlendsLsb +: Quads*BlendW];
  assign s0_ctl[CtlPassLsb +: PassCodeW]      = s0_data[ReqPassLsb +: PassCodeW];

  reg [Stages-1:0] valid_q;
  reg [Stages*CtlW-1:0] ctl_q;
  wire [Stages-1:0] valid_d = {{ valid_shift }};
  wire [Stages*CtlW-1:0] ctl_d = {{ ctl_shift }};

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      valid_q <= {Stages{1'b0}};
    end else begin
      valid_q <= valid_d;
    end
  end

  always @(posedge clk_i) begin
    ctl_q <= ctl_d;
  end

  // Each step's view of the control word: the copy of the stage it is in.
{%- for v in ctl_views %}
  wire [CtlW-1:0] ctl_{{ v.0 }} = {{ v.1 }};
{%- endfor %}
{%- if let Some((v, _)) = tdiff_en_src %}
  // The stage before tdiff (ctl_pre_tdiff above): each channel's accumulator enable and
  // second-pass select are registered from it.
  wire valid_pre_tdiff = {{ v }};
  wire [PassCodeW-1:0] pass_pre_tdiff = ctl_pre_tdiff[CtlPassLsb +: PassCodeW];
{%- else %}
  wire valid_tdiff = {{ valid_tdiff }};
{%- endif %}
  wire valid_last = {{ valid_last }};
  wire unused_ctl;
  assign unused_ctl = ^{ {%- for v in ctl_views %}ctl_{{ v.0 }}{% if !loop.last %}, {% endif %}{%- endfor %}};

{%- if tdiff_en_src.is_none() %}

  wire [PassCodeW-1:0] pass_tdiff = ctl_tdiff[CtlPassLsb +: PassCodeW];
  wire tdiff_first = pass_tdiff == PassFirst;
  wire tdiff_second = pass_tdiff == PassSecond;
{%- endif %}
  wire last_first = ctl_last[CtlPassLsb +: PassCodeW] == PassFirst;

  assign push = valid_last & ~last_first;
  assign drop = valid_last & last_first;

  wire [RspW-1:0] out_in;
{%- if let Some(src) = pick_fmt_src %}
{%- if !lane_copies %}
  // The pick step's format in a register of its own, loaded a clock early from the stage
  // before it: every lane's texel selects read it, not the control word's shift register.
  reg [FormatW-1:0] pick_fmt_q;
  always @(posedge clk_i) begin
    pick_fmt_q <= {{ src }}[CtlFormatLsb +: FormatW];
  end
  wire [FormatW-1:0] pick_fmt = pick_fmt_q;
{%- endif %}
{%- else %}
  wire [FormatW-1:0] pick_fmt = ctl_pick[CtlFormatLsb +: FormatW];
{%- endif %}

  genvar gl;
  genvar gt;
  genvar gc;
{%- if !dsp %}
  genvar gk;  // a tree's rows
{%- endif %}
{%- if round_copies %}
  genvar gq;
{%- endif %}
  generate
    for (gl = 0; gl < Lanes; gl = gl + 1) begin : g_lane
      wire [LaneW-1:0] lane = s0_data[ReqLanesLsb + gl*LaneW +: LaneW];
      wire [4*WordW-1:0] texels;  // converted, in the hdiff step
      assign s0_ctl[CtlLanesLsb + gl*CLaneW +: CLaneW] = lane[CLaneW-1:0];

      for (gt = 0; gt < 4; gt = gt + 1) begin : g_texel
{%- if lane_copies %}
{%- if let Some(src) = pick_fmt_src %}
        // The pick step's format in a register of the texel's own, loaded a clock early
        // from the stage before it: one flop's net reaching every lane's texel selects
        // was the filter's worst path. `keep` stops synthesis merging the copies back.
        reg [FormatW-1:0] pick_fmt_q;
        (* keep *) always @(posedge clk_i) begin
          pick_fmt_q <= {{ src }}[CtlFormatLsb +: FormatW];
        end
        wire [FormatW-1:0] pick_fmt = pick_fmt_q;
{%- endif %}
{%- endif %}
        wire [TexW-1:0] tex = lane[LaneTexelsLsb + gt*TexW +: TexW];
        wire [SubW-1:0] sub = tex[TexSubLsb +: SubW];
        wire [WordW-1:0] word = tex[TexWordLsb +: WordW];
{%- if need_h %}
        wire [15:0] h = sub[0] ? word[31:16] : word[15:0];  // the 16-bit texel
{%- endif %}
{%- if need_l %}
        wire [7:0] l = word[{sub[1:0], 3'b000} +: 8];  // the 8-bit texel
{%- endif %}
{%- if dxt1 %}

{%- if row_at_load %}
        // The texel's row of the block's index word (four 2-bit indices), picked by the
        // sub's high bits as the request loads, beside the input register: the select
        // step then picks one of four. (A 16:1 select from the input register, most of it
        // routing, bounded seed001's four-lane filter.)
        localparam integer InTex = ReqLanesLsb + gl*LaneW + LaneTexelsLsb + gt*TexW;
        wire [WordW-1:0] in_iw = req_data_i[InTex + TexAuxLsb +: WordW];
        wire [1:0] in_row = req_data_i[InTex + TexSubLsb + 2 +: 2];
        reg [7:0] row_q;
        always @(posedge clk_i) begin
          row_q <= in_iw[{in_row, 3'b000} +: 8];
        end
        // Read as the request loads, into row_q.
        wire unused_row = ^{tex[TexAuxLsb +: WordW], sub[3:2]};

        // Step select: the texel's index bits and the block's mode (colour 0 > colour 1:
        // four opaque colours).
        wire [1:0] idx = row_q[{sub[1:0], 1'b0} +: 2];
{%- else %}

        // Step select: the texel's index bits and the block's mode (colour 0 > colour 1:
        // four opaque colours).
        wire [WordW-1:0] iw = tex[TexAuxLsb +: WordW];
        wire [1:0] idx = iw[{sub, 1'b0} +: 2];
{%- endif %}
        wire four = word[15:0] > word[31:16];
        wire [{{ select_w - 1 }}:0] select_d;
        assign select_d[SelWordLsb +: WordW] = word;
{%- if need_h %}
        assign select_d[SelHLsb +: 16]       = h;
{%- endif %}
{%- if need_l %}
        assign select_d[SelLLsb +: 8]        = l;
{%- endif %}
        assign select_d[SelIdxLsb +: 2]      = idx;
        assign select_d[SelFourLsb]          = four;
        assign select_d[SelSwapNLsb]         = ~idx[0];
{{ hop_select }}
        wire [WordW-1:0] s_word = select[SelWordLsb +: WordW];
{%- if need_h %}
        wire [15:0] s_h = select[SelHLsb +: 16];
{%- endif %}
{%- if need_l %}
        wire [7:0] s_l = select[SelLLsb +: 8];
{%- endif %}
        wire [1:0] s_idx = select[SelIdxLsb +: 2];
        wire s_four = select[SelFourLsb];
        // The endpoints' swap from a flop of its own: with the index's it fanned out to
        // the decode and both endpoints (seed001's filter, a 3.7 ns net to the pick).
        wire s_swap_n = select[SelSwapNLsb];
        wire is_dxt1 = pick_fmt == FmtDxt1;

        // Step pick: the format's texel, or for DXT1 the endpoints to blend: index 2 weighs
        // colour 0 double and index 3 colour 1, so one sum serves both.
        wire [23:0] p0 = endpoint(s_word[15:0]);
        wire [23:0] p1 = endpoint(s_word[31:16]);
        wire third_d = is_dxt1 & s_idx[1] & s_four;
        wire half_d = is_dxt1 & (s_idx == 2'd2) & ~s_four;
        wire [{{ pick_w - 1 }}:0] pick_d;
        assign pick_d[PickTexelLsb +: WordW] = decode(pick_fmt, s_word{% if need_h %}, s_h{% endif %}{% if need_l %}, s_l{% endif %}, s_idx);
        assign pick_d[PickPaLsb +: 24]       = s_swap_n ? p0 : p1;  // the colour weighted double
        assign pick_d[PickPbLsb +: 24]       = s_swap_n ? p1 : p0;
        assign pick_d[PickThirdLsb]          = third_d;
        assign pick_d[PickHalfLsb]           = half_d;
{{ hop_pick }}
        wire [23:0] pa = pick[PickPaLsb +: 24];
        wire [23:0] pb = pick[PickPbLsb +: 24];

        // Step sum: 2 pa + pb for the thirds, (pa + pb) / 2 for the halves.
        wire [29:0] x;
        wire [23:0] halves;
        for (gc = 0; gc < 3; gc = gc + 1) begin : g_sum
          wire [8:0] hs = {1'b0, pa[gc*8 +: 8]} + {1'b0, pb[gc*8 +: 8]};
          assign x[gc*10 +: 10] = {1'b0, pa[gc*8 +: 8], 1'b0} + {2'b00, pb[gc*8 +: 8]};
          wire unused_hs = hs[0];
          assign halves[gc*8 +: 8] = hs[8:1];
        end
        wire [{{ sum_w - 1 }}:0] sum_d;
        assign sum_d[SumTexelLsb +: WordW] = pick[PickHalfLsb] ? {8'hff, halves} : pick[PickTexelLsb +: WordW];
        assign sum_d[SumXLsb +: 30]        = x;
        assign sum_d[SumThirdLsb]          = pick[PickThirdLsb];
{{ hop_sum }}

        // Steps third: x * 683 >> 11 is x / 3 for x < 768, an adder tree a channel; the
        // texel and its choice wait beside it.
        wire [23:0] thirds;
        for (gc = 0; gc < 3; gc = gc + 1) begin : g_third
          wire [9:0] tx = sum[SumXLsb + gc*10 +: 10];
          wire [{{ third_rows_w - 1 }}:0] third_rows;
{%- for r in third_rows %}
          assign third_rows[{{ loop.index0 }}*{{ third_w }} +: {{ third_w }}] = { {{- third_w - 10 }}'d0, tx} << {{ r }};
{%- endfor %}
{{ tree_third }}
          wire unused_third = ^{third_sum[{{ third_w - 1 }}], third_sum[10:0]};
          assign thirds[gc*8 +: 8] = third_sum[18:11];
        end
        wire [WordW:0] side_d = {sum[SumThirdLsb], sum[SumTexelLsb +: WordW]};
{{ delay_side }}
        assign texels[gt*WordW +: WordW] = side[WordW] ? {8'hff, thirds} : side[WordW-1:0];
{%- else %}

        // Step pick: the format's texel.
        wire [WordW-1:0] pick_d = decode(pick_fmt, word{% if need_h %}, h{% endif %}{% if need_l %}, l{% endif %});
        wire unused_tex = ^tex;
{{ hop_pick }}
        assign texels[gt*WordW +: WordW] = pick;
{%- endif %}
      end

      // ---------------------------------------------------------------------------------
      // Filter lane: per channel h0 = t00 W + (t10 - t00) a and h1 likewise, then
      // v = h0 W + (h1 - h0) b (the exact bilinear sum), then
      // t = base 256 + d f + round: a second pass blends with the accumulator (base acc,
      // d = v - acc), any other takes d = 0 and base v, which rounds v alone exactly.
      // Each product is a tree of shifted rows, exact modulo the sum's width, where the
      // sum lies.
{%- if !chan_copies %}
      wire [WBits-1:0] a = ctl_h[CtlLanesLsb + gl*CLaneW + LaneALsb +: WBits];
      wire [WBits-1:0] b = ctl_v[CtlLanesLsb + gl*CLaneW + LaneBLsb +: WBits];
      wire [BlendW-1:0] f = ctl_t[CtlBlendsLsb + (gl / 4)*BlendW +: BlendW];
{%- endif %}
      wire active = ctl_round[CtlLanesLsb + gl*CLaneW + LaneActiveLsb];

      for (gc = 0; gc < 4; gc = gc + 1) begin : g_chan
{%- if chan_copies %}
        // The lane's weights in the channel's own registers, loaded a clock early from
        // the stage before each blend: a weight bit selects every row of every channel's
        // tree, and one flop for them all was the filter's worst net. `keep` stops
        // synthesis merging the copies back into one.
        reg [WBits-1:0] a_q;
        reg [WBits-1:0] b_q;
        reg [BlendW-1:0] f_q;
        (* keep *) always @(posedge clk_i) begin
          a_q <= ctl_pre_h[CtlLanesLsb + gl*CLaneW + LaneALsb +: WBits];
          b_q <= ctl_pre_v[CtlLanesLsb + gl*CLaneW + LaneBLsb +: WBits];
          f_q <= ctl_pre_t[CtlBlendsLsb + (gl / 4)*BlendW +: BlendW];
        end
        wire [WBits-1:0] a = a_q;
        wire [WBits-1:0] b = b_q;
        wire [BlendW-1:0] f = f_q;
{%- endif %}
        wire [7:0] t00 = texels[0*WordW + gc*8 +: 8];
        wire [7:0] t10 = texels[1*WordW + gc*8 +: 8];
        wire [7:0] t01 = texels[2*WordW + gc*8 +: 8];
        wire [7:0] t11 = texels[3*WordW + gc*8 +: 8];
        // Step hdiff.
        wire [8:0] d0 = {1'b0, t10} - {1'b0, t00};
        wire [8:0] d1 = {1'b0, t11} - {1'b0, t01};
        wire [33:0] hdiff_d = {d1, d0, t01, t00};
{{ hop_hdiff }}
        wire [8:0] hd0 = hdiff[16 +: 9];
        wire [8:0] hd1 = hdiff[25 +: 9];

{%- if dsp %}
        // Steps h_in, h_mul{% if block_nets %}, h_out{% endif %} and h_add: hd0 a and hd1 a in multiplier blocks,
        // their operands and products registered (gpurtl synth moves those registers into
        // an ECP5 MULT18X18D){% if block_nets %}, from fabric registers a clock before and into fabric
        // registers a clock after{% endif %}; then t00 W + hd0 a in a carry chain.
        reg [8:0] hd0_in_q;
        reg [8:0] hd1_in_q;
        reg [WBits:0] a_in_q;
        reg [15:0] hpass_in_q;  // t01, t00 beside the products
        reg signed [WBits+9:0] h0_p_q;
        reg signed [WBits+9:0] h1_p_q;
        reg [15:0] hpass_p_q;
        always @(posedge clk_i) begin
          hd0_in_q   <= hd0;
          hd1_in_q   <= hd1;
          a_in_q     <= {1'b0, a};
          hpass_in_q <= hdiff[0 +: 16];
          h0_p_q     <= $signed(hd0_in_q) * $signed(a_in_q);
          h1_p_q     <= $signed(hd1_in_q) * $signed(a_in_q);
          hpass_p_q  <= hpass_in_q;
        end
        wire unused_h_p = ^{h0_p_q[WBits+9:HW], h1_p_q[WBits+9:HW]};
        wire [2*HW+15:0] h_out_d = {hpass_p_q, h1_p_q[HW-1:0], h0_p_q[HW-1:0]};
{{ hop_h_out }}
        wire [HW-1:0] h0_o = h_out[0 +: HW];
        wire [HW-1:0] h1_o = h_out[HW +: HW];
        wire [15:0] hpass = h_out[2*HW +: 16];
        wire [HW-1:0] h0_add_d = {hpass[0 +: 8], {WBits{1'b0}}} + h0_o;
        wire [HW-1:0] h1_add_d = {hpass[8 +: 8], {WBits{1'b0}}} + h1_o;
{{ hop_h0_add }}
{{ hop_h1_add }}
        wire [HW-1:0] h0_sum = h0_add;
        wire [HW-1:0] h1_sum = h1_add;
{%- else %}
        // Steps h: the horizontal blends.
        wire [(WBits+1)*HW-1:0] h0_rows;
        wire [(WBits+1)*HW-1:0] h1_rows;
        assign h0_rows[0 +: HW] = {hdiff[0 +: 8], {WBits{1'b0}}};
        assign h1_rows[0 +: HW] = {hdiff[8 +: 8], {WBits{1'b0}}};
        for (gk = 0; gk < WBits; gk = gk + 1) begin : g_hrow
          assign h0_rows[(gk+1)*HW +: HW] = a[gk] ? ({{ "{" }}{(HW - 9){hd0[8]}}, hd0} << gk) : {HW{1'b0}};
          assign h1_rows[(gk+1)*HW +: HW] = a[gk] ? ({{ "{" }}{(HW - 9){hd1[8]}}, hd1} << gk) : {HW{1'b0}};
        end
{{ tree_h0 }}
{{ tree_h1 }}
{%- endif %}

        // Step vdiff.
        wire [2*HW:0] vdiff_d = {{ "{" }}{1'b0, h1_sum} - {1'b0, h0_sum}, h0_sum};
{{ hop_vdiff }}
        wire [HW:0] dh = vdiff[HW +: HW + 1];

{%- if dsp %}
        // Steps v_in, v_mul{% if block_nets %}, v_out{% endif %} and v_add: dh b in a multiplier block (registered
        // as the h blends'), with dh's low bit taken out (dh is a bit wider than the block's input:
        // dh = 2 (dh >> 1) + dh[0]), then h0 W + dh[0] b + 2 (dh >> 1) b, where
        // h0 W + dh[0] b is a concatenation (b < W).
        reg [HW-1:0] dh_in_q;
        reg [WBits:0] b_in_q;
        reg [VW-1:0] vpass_in_q;
        reg signed [HW+WBits:0] v_p_q;
        reg [VW-1:0] vpass_p_q;
        always @(posedge clk_i) begin
          dh_in_q    <= dh[HW:1];
          b_in_q     <= {1'b0, b};
          vpass_in_q <= {vdiff[0 +: HW], dh[0] ? b : {WBits{1'b0}}};
          v_p_q      <= $signed(dh_in_q) * $signed(b_in_q);
          vpass_p_q  <= vpass_in_q;
        end
        wire unused_v_p = ^v_p_q[HW+WBits:VW-1];
        wire [2*VW-2:0] v_out_d = {vpass_p_q, v_p_q[VW-2:0]};
{{ hop_v_out }}
        wire [VW-2:0] v_o = v_out[0 +: VW-1];
        wire [VW-1:0] vpass = v_out[VW-1 +: VW];
        wire [VW-1:0] v_add_d = vpass + {v_o, 1'b0};
{{ hop_v_add }}
        wire [VW-1:0] v_sum = v_add;
{%- else %}
        // Steps v: the vertical blend.
        wire [(WBits+1)*VW-1:0] v_rows;
        assign v_rows[0 +: VW] = {vdiff[0 +: HW], {WBits{1'b0}}};
        for (gk = 0; gk < WBits; gk = gk + 1) begin : g_vrow
          assign v_rows[(gk+1)*VW +: VW] = b[gk] ? ({{ "{" }}{(VW - HW - 1){dh[HW]}}, dh} << gk) : {VW{1'b0}};
        end
{{ tree_v }}
{%- endif %}

        // Step tdiff: a first pass fills the accumulator (reset: a lone second pass
        // blends with 0).
{%- if tdiff_en_src.is_some() %}
        // The accumulator's load enable (a first pass at tdiff) and the second-pass
        // select, registered a clock early from the stage before, in the channel's own
        // flops: not one flop whose net reaches every lane's accumulator and mux bits.
        // `keep` stops synthesis merging the copies back into one.
        reg acc_en_q;
        reg second_q;
        (* keep *) always @(posedge clk_i{{ rst.edge }}) begin
          if ({{ rst.active }}) begin
            acc_en_q <= 1'b0;
            second_q <= 1'b0;
          end else begin
            acc_en_q <= valid_pre_tdiff & (pass_pre_tdiff == PassFirst);
            second_q <= pass_pre_tdiff == PassSecond;
          end
        end
        wire acc_en = acc_en_q;
        wire tdiff_second = second_q;
{%- endif %}
        reg [VW-1:0] acc_q;
        always @(posedge clk_i{{ rst.edge }}) begin
          if ({{ rst.active }}) begin
            acc_q <= {VW{1'b0}};
          end else if ({% if tdiff_en_src.is_some() %}acc_en{% else %}valid_tdiff && tdiff_first{% endif %}) begin
            acc_q <= v_sum;
          end
        end
        wire [VW:0] td = {1'b0, v_sum} - {1'b0, acc_q};
        wire [2*VW:0] tdiff_d = {tdiff_second ? td : {(VW + 1){1'b0}}, tdiff_second ? acc_q : v_sum};
{{ hop_tdiff }}
        wire [VW:0] tdd = tdiff[VW +: VW + 1];

{%- if dsp %}
        // Steps t_in, t_mul{% if block_nets %}, t_out{% endif %}{% if t_split %}, t_add{% endif %} and t_sum: the level blend, d f in
        // multiplier blocks registered as the other blends'{% if t_split %}: d is wider than a block's input, so its
        // low 17 bits and the rest are two products, added in t_add{% endif %}; base 256 and the
        // rounding constant are added beside the blocks, and to the product in t_sum.
        localparam [TW-1:0] Round = {{ "{" }}{(TW - 2*WBits - 8){1'b0}}, 1'b1, {(2*WBits + 7){1'b0}}};
        reg [8:0] f_in_q;
        reg [TW-1:0] tpass_in_q;
        reg [TW-1:0] tpass_p_q;
{%- if t_split %}
        reg [16:0] tlo_in_q;
        reg [VW-17:0] thi_in_q;
        reg signed [25:0] tlo_p_q;  // under 2^25
        reg signed [VW-8:0] thi_p_q;
        always @(posedge clk_i) begin
          tlo_in_q   <= tdd[16:0];
          thi_in_q   <= tdd[VW:17];
          f_in_q     <= {1'b0, f};
          tpass_in_q <= {tdiff[0 +: VW], 8'd0} + Round;
          tlo_p_q    <= $signed({1'b0, tlo_in_q}) * $signed(f_in_q);
          thi_p_q    <= $signed(thi_in_q) * $signed(f_in_q);
          tpass_p_q  <= tpass_in_q;
        end
        wire unused_t_p = ^{tlo_p_q[25], thi_p_q[VW-8:TW-17]};
        wire [2*TW+7:0] t_out_d = {tpass_p_q, thi_p_q[TW-18:0], tlo_p_q[24:0]};
{{ hop_t_out }}
        wire [24:0] tlo_o = t_out[0 +: 25];
        wire [TW-18:0] thi_o = t_out[25 +: TW-17];
        wire [TW-1:0] tpass = t_out[TW+8 +: TW];
        wire [2*TW-1:0] t_add_d = {tpass, {thi_o, 17'd0} + {{ t_lo_ext }}};
{{ hop_t_add }}
        wire [TW-1:0] t_sum_d = t_add[TW +: TW] + t_add[0 +: TW];
{%- else %}
        reg [VW:0] td_in_q;
        reg signed [VW+9:0] t_p_q;
        always @(posedge clk_i) begin
          td_in_q    <= tdd;
          f_in_q     <= {1'b0, f};
          tpass_in_q <= {tdiff[0 +: VW], 8'd0} + Round;
          t_p_q      <= $signed(td_in_q) * $signed(f_in_q);
          tpass_p_q  <= tpass_in_q;
        end
        wire unused_t_p = ^t_p_q[VW+9:TW];
        wire [2*TW-1:0] t_out_d = {tpass_p_q, t_p_q[TW-1:0]};
{{ hop_t_out }}
        wire [TW-1:0] t_o = t_out[0 +: TW];
        wire [TW-1:0] tpass = t_out[TW +: TW];
        wire [TW-1:0] t_sum_d = tpass + t_o;
{%- endif %}
{{ hop_t_sum }}
{%- else %}
        // Steps t: the level blend and its rounding.
        wire [10*TW-1:0] t_rows;
        assign t_rows[0 +: TW] = {tdiff[0 +: VW], 8'd0};
        for (gk = 0; gk < 8; gk = gk + 1) begin : g_trow
          assign t_rows[(gk+1)*TW +: TW] = f[gk] ? ({{ "{" }}{(TW - VW - 1){tdd[VW]}}, tdd} << gk) : {TW{1'b0}};
        end
        assign t_rows[9*TW +: TW] = {{ "{" }}{(TW - 2*WBits - 8){1'b0}}, 1'b1, {(2*WBits + 7){1'b0}}};
{{ tree_t }}
{%- endif %}
        wire unused_t = ^t_sum[TW-9:0];

        // Step round{% if fp32 %}, then fp32a and fp32b: exactly c / 255 by table{% endif %}.
        wire [7:0] round_d = active ? t_sum[TW-1 -: 8] : 8'd0;
{{ hop_round }}
{%- if fp32 %}
{%- if round_copies %}
        // Each quarter's table reads its own copy of the round register's index bits: one
        // register driving all four tables (128 functions of six inputs) had a 5.2-5.5 ns
        // net across the die on two of five default TMU seeds. Each copy's block is kept,
        // or synthesis merges the copies.
        wire [23:0] round_x;  // quarters 0..3's index copies
        for (gq = 0; gq < 4; gq = gq + 1) begin : g_round_copy
          reg [5:0] copy_q;

          (* keep *)
          always @(posedge clk_i) begin
            copy_q <= round_d[5:0];
          end

          assign round_x[gq*6 +: 6] = copy_q;
        end
        wire unused_round = ^round[5:0];
        wire [129:0] fp32a_d = {round[7:6], unorm8_f32_q3(round_x[18 +: 6]), unorm8_f32_q2(round_x[12 +: 6]),
                                unorm8_f32_q1(round_x[6 +: 6]), unorm8_f32_q0(round_x[0 +: 6])};
{%- else %}
        wire [129:0] fp32a_d = {round[7:6], unorm8_f32_q3(round[5:0]), unorm8_f32_q2(round[5:0]),
                                unorm8_f32_q1(round[5:0]), unorm8_f32_q0(round[5:0])};
{%- endif %}
{{ hop_fp32a }}
        assign out_in[gl*OutLaneW + gc*32 +: 32] = fp32a[32*fp32a[129:128] +: 32];
{%- else %}
        assign out_in[gl*OutLaneW + gc*8 +: 8] = round;
{%- endif %}
      end
    end
  endgenerate

  // ---------------------------------------------------------------------------------
{%- if fifo_write_always %}
  // Output FIFO: the credits keep at most OutDepth responses in it, one short of its
  // OutEntries, so its ready is not needed, and the entry at its write pointer is always
  // free: it is written every clock (WriteAlways, the clock's schedule), with no write
  // enable fanned out to its storage.
{%- else %}
  // Output FIFO: the credits keep it from filling, so its ready is not needed.
{%- endif %}
  wire out_ready;
  wire unused_out_ready;
  assign unused_out_ready = out_ready;
  assign pop = rsp_valid_o & rsp_ready_i;

  {{ fifo }} #(
{%- if fifo_write_always %}
    .Width       (RspW),
    .Depth       (OutEntries),
    .WriteAlways (1)
{%- else %}
    .Width (RspW),
    .Depth (OutDepth)
{%- endif %}
  ) u_out (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (push),
    .in_ready_o  (out_ready),
    .in_data_i   (out_in),
    .out_valid_o (rsp_valid_o),
    .out_ready_i (rsp_ready_i),
    .out_data_o  (rsp_data_o)
  );

endmodule
