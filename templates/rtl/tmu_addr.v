{{ stamp }}
// {{ name }}: texel address generation (seed 001), as src/model/tmu/coord.rs and
// texel_word in src/model/tmu/sampler.rs compute it. A plan from the LOD stage becomes
// one pass (one level) or two (trilinear: level 1, then level 2); each pass gives every
// lane its 2x2 footprint: u = s * W - 0.5 and v = t * H - 0.5 in fixed point, the
// texels floor(u) and floor(u) + 1 wrapped ({{ wrap_list }}), the weights from the fraction
// bits, and each texel's word address and its index in the word. Nearest reads one
// texel a lane (the other three are masked, with weight 0).
//
// in_data_i:  the plan (see the LOD stage's header).
// out_data_o: {{ out_desc }}: word addresses, their active bits and the filter's side
//              fields {{ side_desc }}, a lane {{ s_lane_desc }};
//              texel k of lane i at port 4i + k.
//              pair: a DXT1 pass, whose block's second word is read by a second request.
// Texel layout in memory: {{ layout }}; DXT1: 4x4 blocks of two words, in 2x2 groups of
// blocks (row-major in a group, groups row-major; a level one block wide or tall is a row),
// so a footprint's blocks fall in distinct cache banks.
// Stages: the pass's level (its fields and the terms of its log2 size), the
// coordinates' exponents, their shifts (by multiples of 8, then the rest), their sums
// (narrow fixed point, the index and the index + 1 from two carry chains side by side),
// the signs' and clamps' selects after them (the texel index, the index + 1, the
// weight), wrapped texel pairs, the texels' indices in their levels, the addresses (the
// indices shifted to words, plus the levels' bases); one pass per clock. A {% if credits %}pipeline
// register{% else %}skid register{% endif %} follows each stage where the clock needs it, else neighbouring stages share a
// clock (src/iface/tmu.rs's AddrPipe); the last ends at the output register. The clocks
// at {{ target_mhz }} MHz:
//   {{ addr_clocks }}
{%- if credits %}
// The pipeline registers never stall: a pass enters only with a credit, one of
// {{ queue.depth }}, and its credit comes back as it leaves the queue in front of the
// output register (a skid), so the queue never fills and one pass a clock flows.
{%- endif %}
// Combinational paths: none between ports.
{%- import "rtl/hs_stage.v" as hs %}
module {{ name }} #(
  parameter integer WBits = {{ wbits }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire in_valid_i,
  output wire in_ready_o,
  input wire [{{ plan_w - 1 }}:0] in_data_i,
  output wire out_valid_o,
  input wire out_ready_i,
  output wire [{{ out_w - 1 }}:0] out_data_o
);

  localparam integer Lanes = {{ lanes }};
  localparam integer Quads = {{ quads }};
  localparam integer Ports = 4 * Lanes;
  localparam integer LaneW = {{ lane_w }};  // a lane of a sample request
  localparam integer SubW = {{ sub_w }};
  localparam integer PQuadW = {{ plan_quad_w }};  // a quad of the plan
{%- for f in plan_quad_lsbs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer CQuadW = {{ pass_quad_w }};  // a quad between the stages: lw, lh, base, linear, skip
{%- for f in pass_quad_lsbs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer LevelW = {{ level_w }};  // a level of the plan: {base, lh, lw}
  localparam integer NB = {{ nb }};  // the narrow coordinate: CoordW + 2 + WBits bits
  localparam integer PreW = {{ pre_w }};  // a coordinate's exponent: sh, mant, neg, zero, inf, sat
  localparam integer KTermsW = {{ k_terms_w }};  // a coordinate's k terms: {150 - k, k - 150}
  localparam integer LvLaneW = {{ lv_lane_w }};  // active, s, t as fp32
  localparam integer LvW = {{ lv_w }};
  localparam integer ELaneW = {{ e_lane_w }};  // active, s, t
  localparam integer E1W = {{ e_w }};
  localparam integer CoarseW = {{ coarse_w }};  // a coordinate half shifted (rtl::tmu::coarse_fields)
  localparam integer HLaneW = {{ h_lane_w }};  // active, s, t half shifted
  localparam integer H1W = {{ h_w }};
  localparam integer MidW = {{ mid_w }};  // a shifted coordinate: mag, inexact, neg, huge
  localparam integer MLaneW = {{ m_lane_w }};  // active, s, t shifted
  localparam integer M1W = {{ m_w }};
  localparam integer SumW = {{ sum_w }};  // a coordinate's sums: sum, sum1, neg, lt, gt
  localparam integer ULaneW = {{ u_lane_w }};  // active, s, t summed
  localparam integer U1W = {{ u_w }};
  localparam integer FLaneW = {{ f_lane_w }};  // active, a, b, is, it
  localparam integer F1W = {{ f_w }};
  localparam integer CLaneW = {{ c_lane_w }};  // active, a, b, i0s, i1s, i0t, i1t
  localparam integer C1W = {{ c1_w }};
  localparam integer SLaneW = {{ s_lane_w }};  // active, a, b, subs
{%- for f in word_lsbs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer WW = {{ w_w }};  // the words and the bases, before their sums
  localparam integer OutW = {{ out_w }};
  localparam integer SideW = {{ side_w }};  // what the filter needs of a pass
{%- for w in widths %}
  localparam integer {{ w.0 }} = {{ w.1 }};  // {{ w.2 }}
{%- endfor %}
{%- for c in codes %}
  localparam {{ c.0 }} {{ c.1 }} = {{ c.2 }};
{%- endfor %}
  localparam [WrapW-1:0] Clamp = {{ clamp_code }};
{%- if mirror %}
  localparam [WrapW-1:0] Mirror = {{ mirror_code }};
{%- endif %}
  localparam [LgW-1:0] TileLog2 = 2;  // 4x4 texel tiles, 4x4 DXT1 blocks
  // A coordinate and its tile row (4 texels) or block-group row widened to an address.
{%- if !tiled %}
  localparam integer CoordPad = AddrW - CoordW;
{%- endif %}
  localparam integer TilePad = AddrW - (CoordW - 2);

  // A quad's fields for a pass at one of its levels: the level's log2 sizes and base,
  // and for the address stage log2 of the level's tiles in a row and whether the pass
  // reads DXT1 blocks in 2x2 groups (a level at least two blocks each way).
  function automatic [CQuadW-1:0] quad_level;
    input [LevelW-1:0] level;
    input linear;
    input pair;
    input skip;
    reg [LgW-1:0] lw;
    reg [LgW-1:0] lh;
    begin
      lw = level[LevelLwLsb +: LgW];
      lh = level[LevelLhLsb +: LgW];
      quad_level = {CQuadW{1'b0}};
      quad_level[PassQuadLwLsb +: LgW]     = lw;
      quad_level[PassQuadLhLsb +: LgW]     = lh;
      quad_level[PassQuadBaseLsb +: AddrW] = level[LevelBaseLsb +: AddrW];
      quad_level[PassQuadLinearLsb]        = linear;
      quad_level[PassQuadSkipLsb]          = skip;
      quad_level[PassQuadTileShLsb +: LgW] = (lw > TileLog2) ? lw - TileLog2 : {LgW{1'b0}};
      quad_level[PassQuadGroupedLsb]       = pair & (lw > TileLog2) & (lh > TileLog2);
    end
  endfunction

  // ---------------------------------------------------------------------------------
  // Passes: level 1, and level 2 of a trilinear plan. A request is trilinear when any of
  // its quads is; in the second pass a quad that is not reads nothing (skip) and blends
  // its first pass with weight 0, which is that pass's result exactly.
  reg second_q;
  wire c_ready;  // a pass may enter the stages this clock
  wire [FormatW-1:0] format = in_data_i[PlanFormatLsb +: FormatW];
  wire [WrapW-1:0] wrap_s = in_data_i[PlanWrapSLsb +: WrapW];
  wire [WrapW-1:0] wrap_t = in_data_i[PlanWrapTLsb +: WrapW];
  wire pair = {{ dxt1 }} & (format == FmtDxt1);
  wire [Quads-1:0] tris;
  wire [Quads*BlendW-1:0] blends;
  wire [Quads*CQuadW-1:0] c_quads;  // the quads of this pass
  wire [Quads*2*KTermsW-1:0] quad_ks;  // per quad {t's, s's} k_terms of its pass's level
  genvar gq;
  generate
    for (gq = 0; gq < Quads; gq = gq + 1) begin : g_pass
      wire [PQuadW-1:0] pq = in_data_i[PlanQuadsLsb + gq*PQuadW +: PQuadW];
      wire is_tri = pq[PlanQuadTriLsb];
      wire linear = pq[PlanQuadLinearLsb];
      wire [LevelW-1:0] level1 = pq[PlanQuadLevel1Lsb +: LevelW];
      wire [LevelW-1:0] level2 = pq[PlanQuadLevel2Lsb +: LevelW];
      wire sel2 = second_q & is_tri;
      // In the second pass a quad that is not trilinear reads nothing.
      wire skip = second_q & ~is_tri;
      // Each level's terms and fields are worked out beside the select, which picks
      // between them last (sel2 fans out to all of them).
      wire [CQuadW-1:0] cq1 = quad_level(level1, linear, pair, skip);
      wire [CQuadW-1:0] cq2 = quad_level(level2, linear, pair, skip);
      wire [2*KTermsW-1:0] k1 = {k_terms(level1[LevelLhLsb +: LgW], linear), k_terms(level1[LevelLwLsb +: LgW], linear)};
      wire [2*KTermsW-1:0] k2 = {k_terms(level2[LevelLhLsb +: LgW], linear), k_terms(level2[LevelLwLsb +: LgW], linear)};
      assign quad_ks[gq*2*KTermsW +: 2*KTermsW] = sel2 ? k2 : k1;
      assign tris[gq]                      = is_tri;
      assign blends[gq*BlendW +: BlendW]   = pq[PlanQuadBlendLsb +: BlendW];
      assign c_quads[gq*CQuadW +: CQuadW]  = sel2 ? cq2 : cq1;
    end
  endgenerate
  wire trilin = |tris;
  wire [PassCodeW-1:0] pass = trilin ? (second_q ? PassSecond : PassFirst) : PassSingle;
  // For the address stage: log2 of the texels in a word (32, 16 or 8 bits a texel).
  wire [1:0] per_sh = ({{ one_per_word }}) ? 2'd0
                    : ({{ four_per_word }}) ? 2'd2 : 2'd1;
  wire last = ~trilin | second_q;
  wire take = in_valid_i & c_ready;
  wire lv_in_ready;
{%- if credits %}
  wire unused_lv_in_ready = lv_in_ready;
{%- else %}
  assign c_ready = lv_in_ready;
{%- endif %}

  assign in_ready_o = c_ready & last;

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      second_q <= 1'b0;
    end else if (take) begin
      second_q <= ~last;
    end
  end

  // floor(i) wrapped into a level 2^lg texels wide, from the narrow index (modulo
  // 2^(CoordW + 2), or saturated to -2..=2^CoordW under clamp to edge). Which bits of i
  // and mode matter depends on the wraps enabled.
  function automatic [CoordW-1:0] wrap;
    input [CoordW+1:0] i;
    input [LgW-1:0] lg;
    input [WrapW-1:0] mode;
    reg [CoordW-1:0] mask;
{%- if mirror %}
    reg [CoordW+1:0] down;
{%- endif %}
    reg unused_args;  // the bits the enabled wraps leave unread
    begin
      unused_args = ^{i, mode{% if mirror %}, down{% endif %}};
      mask = ~({CoordW{1'b1}} << lg);  // 2^lg - 1
{%- if mirror %}
      // Bit lg of i says which half of a mirrored pair of copies i is in; in the second,
      // 2^(lg+1) - 1 - (i mod 2^(lg+1)) is the complement of i's bits below lg.
      down = i >> lg;
{%- endif %}
{%- if clamp || mirror %}
      // No carries: i is past 2^lg - 1 when a bit at or above lg is set.
      case (mode)
{%- if clamp %}
        Clamp:   wrap = i[CoordW+1] ? {CoordW{1'b0}}
                      : ((i[CoordW] || ((i[CoordW-1:0] & ~mask) != {CoordW{1'b0}})) ? mask : i[CoordW-1:0]);
{%- endif %}
{%- if mirror %}
        Mirror:  wrap = (down[0] ? ~i[CoordW-1:0] : i[CoordW-1:0]) & mask;
{%- endif %}
        default: wrap = i[CoordW-1:0] & mask;  // repeat
      endcase
{%- else %}
      wrap = i[CoordW-1:0] & mask;  // repeat, the only wrap enabled
{%- endif %}
    end
  endfunction

  // ---------------------------------------------------------------------------------
  // The conversion: u = floor(s * 2^k) - h of an fp32 s (k = log2 of the level's size,
  // plus WBits when linear; h = half a texel when linear), as tmu_fixed computes it in
  // 64 bits, but only what the wraps read: u modulo 2^NB, the weight's WBits and the
  // index's CoordW + 2 above them, and under clamp to edge the index saturated. Three
  // clocks: the exponent, the shift, the sum. tests/tmu.rs proves the pair with the wraps equal to
  // tmu_fixed with the 64-bit wraps, for every fp32, k, level and mode.
  localparam integer VW = NB + 2;  // u, signed: |u| < 2^(NB + 1)
  localparam signed [10:0] NbS = 11'sd{{ nb }};  // NB, as the shift is
  localparam [VW-1:0] HalfV = {{ "{{" }}(VW-1){1'b0}}, 1'b1} << (WBits - 1);
  localparam signed [VW-1:0] IdxLo = -2;
  localparam signed [VW-1:0] IdxHi = {{ "{{" }}(VW-1){1'b0}}, 1'b1} << CoordW;
  localparam signed [VW-1:0] IdxLo1 = IdxLo + 1'b1;
  localparam signed [VW-1:0] IdxHi1 = IdxHi + 1'b1;

  // The terms of a level's k (its log2 size lg, plus WBits when linear) that the
  // exponent's sums take: {150 - k, k - 150}, 11 bits each. A table of lg and linear
  // (constants a case), so that LUTs rather than a carry chain work them out.
  function automatic [KTermsW-1:0] k_terms;
    input [LgW-1:0] lg;
    input linear;
    integer i;
    reg [10:0] k_near;
    reg [10:0] k_lin;
    begin
      k_terms = {KTermsW{1'b0}};
      for (i = 0; i < (1 << LgW); i = i + 1) begin
        k_near = i[10:0];
        k_lin = i[10:0] + WBits[10:0];
        if (lg == i[LgW-1:0]) begin
          k_terms[10:0]  = linear ? k_lin - 11'd150 : k_near - 11'd150;
          k_terms[21:11] = linear ? 11'd150 - k_lin : 11'd150 - k_near;
        end
      end
    end
  endfunction

  // The exponent: s = mant * 2^(e1 - 150), so s * 2^k = mant * 2^sh. NaN, and an
  // infinity when not clamping, convert as 0. terms: k_terms of k.
  function automatic [PreW-1:0] coord_pre;
    input [31:0] s;
    input [KTermsW-1:0] terms;
    input sat;
    reg [7:0] e;
    reg [7:0] e1;
    begin
      e = s[30:23];
      e1 = (e == 8'd0) ? 8'd1 : e;
      coord_pre = {PreW{1'b0}};
      coord_pre[PreShLsb +: 11]   = $signed({3'd0, e1}) + $signed(terms[10:0]);
      coord_pre[PreNshLsb +: 11]  = $signed(terms[21:11]) - $signed({3'd0, e1});
      coord_pre[PreMantLsb +: 24] = {(e != 8'd0), s[22:0]};
      coord_pre[PreNegLsb]        = s[31];
      coord_pre[PreZeroLsb]       = (e == 8'hff) & ((s[22:0] != 23'd0) | ~sat);
      coord_pre[PreInfLsb]        = (e == 8'hff) & (s[22:0] == 23'd0);
      coord_pre[PreSatLsb]        = sat;
    end
  endfunction

  // x >= c for a signed 11-bit x and a constant c, folded bit by bit from the bottom
  // (x[b:0] >= c[b:0] needs x[b] as well when c[b] is set, and holds when x[b] alone is
  // set otherwise), so that synthesis builds it from LUTs instead of a carry chain.
  function automatic at_least;
    input [10:0] x;
    input [10:0] c;
    reg [10:0] xu;
    reg [10:0] cu;
    integer b;
    begin
      // Offset binary: the signed order as the unsigned one.
      xu = x ^ 11'h400;
      cu = c ^ 11'h400;
      at_least = 1'b1;
      for (b = 0; b < 11; b = b + 1) begin
        at_least = cu[b] ? (xu[b] & at_least) : (xu[b] | at_least);
      end
    end
  endfunction

  // The shift: the magnitude modulo 2^NB, whether bits were shifted out below the binary
  // point (bit i when i < -sh) or past 2^NB (bit i when i + sh >= NB), each a compare a
  // bit with no carry (-sh comes from the first clock). A clamped infinity, or a
  // magnitude past 2^NB, is huge: its sign alone picks the texel. In two halves, a clock
  // apart where the clock needs it: coord_coarse shifts by the multiple of 8 and marks
  // the bits shifted out; coord_align shifts the rest of the way and ORs the marks.
  localparam integer ValW = {{ coarse_val_w }};  // the half-shifted mantissa's bits kept
  function automatic [CoarseW-1:0] coord_coarse;
    input [PreW-1:0] p;
    reg signed [10:0] sh;
    reg signed [10:0] nsh;
    reg [23:0] mant;
    reg [NB+23:0] wide;
    reg [23:0] low;
    reg [23:0] high;
    reg unused_wide;
    integer i;
    begin
      sh = p[PreShLsb +: 11];
      nsh = p[PreNshLsb +: 11];
      mant = p[PreMantLsb +: 24];
      coord_coarse = {CoarseW{1'b0}};
      if (~sh[10]) begin
        wide = {{ "{{" }}NB{1'b0}}, mant} << {sh[5:3], 3'b000};
        coord_coarse[CoarseFineLsb +: 3] = sh[2:0];
        coord_coarse[CoarseKillLsb]      = at_least(sh, NbS);
      end else begin
        wide = {{ "{{" }}NB{1'b0}}, mant >> {nsh[4:3], 3'b000}};
        coord_coarse[CoarseFineLsb +: 3] = nsh[2:0];
        coord_coarse[CoarseKillLsb]      = at_least(nsh, 11'sd24);
      end
      coord_coarse[CoarseValLsb +: ValW] = wide[ValW-1:0];
      unused_wide = ^wide[NB+23:ValW];
      for (i = 0; i < 24; i = i + 1) begin
        low[i]  = at_least(nsh, i[10:0] + 11'd1);
        high[i] = at_least(sh, NbS - $signed(i[10:0]));
      end
      coord_coarse[CoarseLeftLsb]    = ~sh[10];
      coord_coarse[CoarseLoLsb +: 24] = sh[10] ? (mant & low) : 24'd0;
      coord_coarse[CoarseHiLsb +: 24] = sh[10] ? 24'd0 : (mant & high);
      coord_coarse[CoarseNegLsb]     = p[PreNegLsb];
      coord_coarse[CoarseZeroLsb]    = p[PreZeroLsb];
      coord_coarse[CoarseInfLsb]     = p[PreInfLsb];
      coord_coarse[CoarseSatLsb]     = p[PreSatLsb];
    end
  endfunction

  function automatic [MidW-1:0] coord_align;
    input [CoarseW-1:0] c;
    reg [ValW-1:0] val;
    reg [2:0] fine;
    reg [ValW-1:0] wide;
    reg zero;
    reg unused_wide;
    begin
      val  = c[CoarseValLsb +: ValW];
      fine = c[CoarseFineLsb +: 3];
      zero = c[CoarseZeroLsb];
      wide = c[CoarseLeftLsb] ? (val << fine) : (val >> fine);
      unused_wide = ^wide;
      coord_align = {MidW{1'b0}};
      coord_align[MidMagLsb +: NB] = (zero | c[CoarseKillLsb]) ? {NB{1'b0}} : wide[NB-1:0];
      coord_align[MidInexactLsb]   = ~zero & (c[CoarseLoLsb +: 24] != 24'd0);
      coord_align[MidNegLsb]       = ~zero & c[CoarseNegLsb];
      coord_align[MidHugeLsb]      = ~zero & c[CoarseSatLsb] & (c[CoarseInfLsb] | (c[CoarseHiLsb +: 24] != 24'd0));
    end
  endfunction

  // The sum: u = (neg ? -mag - inexact : mag) - h in one carry chain (-x - c - h =
  // ~(x + c + h - 1)), the weight from its fraction bits, the index above them; under
  // clamp to edge the index saturated to -2..=2^CoordW, where clamping it or it + 1 to
  // any level gives what the exact value gives. Whether it saturates is decided from the
  // magnitude beside the sum (rtl::tmu::clamp_bounds). The index + 1 (the second texel
  // of a pair) is a second chain beside the first, whose addend is one texel further
  // (u + d = ~(~u - d)), so that no increment waits for the sum. The chains' low NB bits
  // (all the index, the index + 1 and the weight read), the sign and the saturation
  // flags are a coordinate's Sum word (rtl::tmu::sum_fields); the sign's and the clamp's
  // selects follow in the next stage (coord_sel).
  localparam [NB-1:0] LtNearest = {{ lt_nearest }};
  localparam [NB-1:0] LtLinear = {{ lt_linear }};
  localparam [NB-1:0] GtNearest = {{ gt_nearest }};
  localparam [NB-1:0] GtLinear = {{ gt_linear }};
  localparam [VW-1:0] StepV = {{ "{{" }}(VW-1){1'b0}}, 1'b1} << WBits;  // a texel, linear
  function automatic [SumW-1:0] coord_sum;
    input [MidW-1:0] m;
    input linear;
    reg neg;
    reg inexact;
    reg [NB-1:0] mag;
    reg [NB-1:0] lt_at;
    reg [VW-1:0] add_b;
    reg [VW-1:0] add_b1;
    reg cin;  // the chains' carry in
    reg [VW:0] sum;
    reg [VW:0] sum1;
    reg unused_sum;
    begin
      neg     = m[MidNegLsb];
      inexact = m[MidInexactLsb];
      mag     = m[MidMagLsb +: NB];
      add_b = neg ? (linear ? HalfV - 1'b1 : {VW{1'b1}}) : (linear ? ~HalfV : {VW{1'b1}});
      cin   = neg ? inexact : 1'b1;
      sum   = {2'b00, mag, 1'b1} + {add_b, cin};
      add_b1 = neg ? (linear ? HalfV - 1'b1 - StepV : {{ "{{" }}(VW-1){1'b1}}, 1'b0})
                   : (linear ? ~HalfV + StepV : {VW{1'b0}});
      sum1  = {2'b00, mag, 1'b1} + {add_b1, cin};
      // The saturation reads the magnitude; the index's bits end below NB.
      unused_sum = ^{sum[0], sum[VW:NB+1], sum1[0], sum1[VW:NB+1]};
      lt_at = linear ? LtLinear : LtNearest;
      coord_sum = {SumW{1'b0}};
      coord_sum[SumSumLsb +: NB]  = sum[NB:1];
      coord_sum[SumSum1Lsb +: NB] = sum1[NB:1];
      coord_sum[SumNegLsb]        = neg;
      coord_sum[SumLtLsb] = m[MidHugeLsb] ? neg : (neg & ((mag > lt_at) | ((mag == lt_at) & inexact)));
      coord_sum[SumGtLsb] = m[MidHugeLsb] ? ~neg : (~neg & (mag >= (linear ? GtLinear : GtNearest)));
    end
  endfunction

  // A coordinate's Sum word to {index + 1, index, weight}: the sign's select (u = ~sum
  // when negative), the index above the weight's bits (linear) and the clamp's
  // saturation.
  function automatic [2*(CoordW+2)+WBits-1:0] coord_sel;
    input [SumW-1:0] x;
    input linear;
    input sat;
    reg neg;
    reg lt;
    reg gt;
    reg [NB-1:0] u;
    reg [NB-1:0] u1;
    reg [CoordW+1:0] idx;
    reg [CoordW+1:0] idx1;
    begin
      neg  = x[SumNegLsb];
      lt   = x[SumLtLsb];
      gt   = x[SumGtLsb];
      u    = neg ? ~x[SumSumLsb +: NB] : x[SumSumLsb +: NB];
      u1   = neg ? ~x[SumSum1Lsb +: NB] : x[SumSum1Lsb +: NB];
      idx  = linear ? u[WBits +: CoordW + 2] : u[CoordW+1:0];
      idx1 = linear ? u1[WBits +: CoordW + 2] : u1[CoordW+1:0];
      coord_sel[WBits +: CoordW + 2] = (sat & lt) ? IdxLo[CoordW+1:0]
                                     : (sat & gt) ? IdxHi[CoordW+1:0] : idx;
      coord_sel[WBits + CoordW + 2 +: CoordW + 2] = (sat & lt) ? IdxLo1[CoordW+1:0]
                                                  : (sat & gt) ? IdxHi1[CoordW+1:0] : idx1;
      coord_sel[0 +: WBits] = linear ? u[WBits-1:0] : {WBits{1'b0}};
    end
  endfunction

  // ---------------------------------------------------------------------------------
  // Stage 1: the pass's level: its fields and k terms per quad, the lanes as they came.
  wire [Lanes*LvLaneW-1:0] lv_lanes;
  genvar gi;
  generate
    for (gi = 0; gi < Lanes; gi = gi + 1) begin : g_level
      wire [LvLaneW-1:0] ll;
      assign ll[LvLaneActiveLsb] = in_data_i[PlanLanesLsb + gi*LaneW + 64];
      assign ll[LvLaneSLsb +: 32] = in_data_i[PlanLanesLsb + gi*LaneW +: 32];
      assign ll[LvLaneTLsb +: 32] = in_data_i[PlanLanesLsb + gi*LaneW + 32 +: 32];
      assign lv_lanes[gi*LvLaneW +: LvLaneW] = ll;
    end
  endgenerate

  wire lv_valid;
  wire lv_out_ready;
  wire [LvW-1:0] lv_data;
  wire [LvW-1:0] lv_in;
  assign lv_in[LvPairLsb]                   = pair;
  assign lv_in[LvPassLsb +: PassCodeW]      = pass;
  assign lv_in[LvFormatLsb +: FormatW]      = format;
  assign lv_in[LvPerShLsb +: 2]             = per_sh;
  assign lv_in[LvDxtLsb]                    = format == FmtDxt1;
  assign lv_in[LvBlendsLsb +: Quads*BlendW] = blends;
  assign lv_in[LvQuadsLsb +: Quads*CQuadW]  = c_quads;
  assign lv_in[LvWrapSLsb +: WrapW]         = wrap_s;
  assign lv_in[LvWrapTLsb +: WrapW]         = wrap_t;
  assign lv_in[LvKsLsb +: Quads*2*KTermsW]  = quad_ks;
  assign lv_in[LvLanesLsb +: Lanes*LvLaneW] = lv_lanes;

{%- if credits %}
{%- call hs::stage(reg_level, "u_level", "LvW", "take", "lv_in_ready", "lv_in", "lv_valid", "lv_out_ready", "lv_data") %}{% endcall %}
{%- else %}
{%- call hs::stage(reg_level, "u_level", "LvW", "in_valid_i", "lv_in_ready", "lv_in", "lv_valid", "lv_out_ready", "lv_data") %}{% endcall %}
{%- endif %}

  // ---------------------------------------------------------------------------------
  // Stage 2: per lane, the exponents of the texel column and row.
  wire [WrapW-1:0] lv_wrap_s = lv_data[LvWrapSLsb +: WrapW];
  wire [WrapW-1:0] lv_wrap_t = lv_data[LvWrapTLsb +: WrapW];
  wire [Lanes*ELaneW-1:0] e_lanes;
  generate
    for (gi = 0; gi < Lanes; gi = gi + 1) begin : g_exp
      wire [LvLaneW-1:0] ll = lv_data[LvLanesLsb + gi*LvLaneW +: LvLaneW];
      // The lane's quad's k terms at the pass's level.
      wire [2*KTermsW-1:0] k = lv_data[LvKsLsb + (gi / 4)*2*KTermsW +: 2*KTermsW];
      wire [ELaneW-1:0] el;
      assign el[ELaneActiveLsb]    = ll[LvLaneActiveLsb];
      assign el[ELaneSLsb +: PreW] = coord_pre(ll[LvLaneSLsb +: 32], k[0 +: KTermsW], lv_wrap_s == Clamp);
      assign el[ELaneTLsb +: PreW] = coord_pre(ll[LvLaneTLsb +: 32], k[KTermsW +: KTermsW], lv_wrap_t == Clamp);
      assign e_lanes[gi*ELaneW +: ELaneW] = el;
    end
  endgenerate

  wire e_valid;
  wire e_out_ready;
  wire [E1W-1:0] e_data;
  wire [E1W-1:0] e_in;
  // Everything but the lanes passes on as it came (rtl::tmu::level_word_fields: the
  // exponent's word's layout up to its lanes).
  assign e_in[0 +: ELanesLsb]            = lv_data[0 +: LvKsLsb];
  assign e_in[ELanesLsb +: Lanes*ELaneW] = e_lanes;

{%- call hs::stage(reg_exp, "u_exp", "E1W", "lv_valid", "lv_out_ready", "e_in", "e_valid", "e_out_ready", "e_data") %}{% endcall %}

  // ---------------------------------------------------------------------------------
  // Stage 3: per lane, the shifts' coarse halves.
  wire [Lanes*HLaneW-1:0] h_lanes;
  generate
    for (gi = 0; gi < Lanes; gi = gi + 1) begin : g_coarse
      wire [ELaneW-1:0] el = e_data[ELanesLsb + gi*ELaneW +: ELaneW];
      wire [HLaneW-1:0] hl;
      assign hl[HLaneActiveLsb]       = el[ELaneActiveLsb];
      assign hl[HLaneSLsb +: CoarseW] = coord_coarse(el[ELaneSLsb +: PreW]);
      assign hl[HLaneTLsb +: CoarseW] = coord_coarse(el[ELaneTLsb +: PreW]);
      assign h_lanes[gi*HLaneW +: HLaneW] = hl;
    end
  endgenerate

  wire h_valid;
  wire h_out_ready;
  wire [H1W-1:0] h_data;
  wire [H1W-1:0] h_in;
  // Everything but the lanes passes on as it came (rtl::tmu::conv_fields: one layout up
  // to the lanes).
  assign h_in[0 +: HLanesLsb]            = e_data[0 +: ELanesLsb];
  assign h_in[HLanesLsb +: Lanes*HLaneW] = h_lanes;

{%- call hs::stage(reg_shift, "u_shift", "H1W", "e_valid", "e_out_ready", "h_in", "h_valid", "h_out_ready", "h_data") %}{% endcall %}

  // ---------------------------------------------------------------------------------
  // Stage 4: per lane, the shifts' fine halves.
  wire [Lanes*MLaneW-1:0] m_lanes;
  generate
    for (gi = 0; gi < Lanes; gi = gi + 1) begin : g_shift
      wire [HLaneW-1:0] hl = h_data[HLanesLsb + gi*HLaneW +: HLaneW];
      wire [MLaneW-1:0] ml;
      assign ml[MLaneActiveLsb]    = hl[HLaneActiveLsb];
      assign ml[MLaneSLsb +: MidW] = coord_align(hl[HLaneSLsb +: CoarseW]);
      assign ml[MLaneTLsb +: MidW] = coord_align(hl[HLaneTLsb +: CoarseW]);
      assign m_lanes[gi*MLaneW +: MLaneW] = ml;
    end
  endgenerate

  wire m_valid;
  wire m_out_ready;
  wire [M1W-1:0] m_data;
  wire [M1W-1:0] m_in;
  assign m_in[0 +: MLanesLsb]            = h_data[0 +: HLanesLsb];
  assign m_in[MLanesLsb +: Lanes*MLaneW] = m_lanes;

{%- call hs::stage(reg_align, "u_align", "M1W", "h_valid", "h_out_ready", "m_in", "m_valid", "m_out_ready", "m_data") %}{% endcall %}

  // ---------------------------------------------------------------------------------
  // Stage 5: per lane, the sums of the narrow texel column and row.
  wire [Quads*CQuadW-1:0] m_quads = m_data[MQuadsLsb +: Quads*CQuadW];
  wire [Lanes*ULaneW-1:0] u_lanes;
  generate
    for (gi = 0; gi < Lanes; gi = gi + 1) begin : g_coord_sum
      wire [MLaneW-1:0] ml = m_data[MLanesLsb + gi*MLaneW +: MLaneW];
      wire linear = m_quads[(gi / 4)*CQuadW + PassQuadLinearLsb];
      wire [ULaneW-1:0] ul;
      assign ul[ULaneActiveLsb]    = ml[MLaneActiveLsb];
      assign ul[ULaneSLsb +: SumW] = coord_sum(ml[MLaneSLsb +: MidW], linear);
      assign ul[ULaneTLsb +: SumW] = coord_sum(ml[MLaneTLsb +: MidW], linear);
      assign u_lanes[gi*ULaneW +: ULaneW] = ul;
    end
  endgenerate

  wire u_valid;
  wire u_out_ready;
  wire [U1W-1:0] u_data;
  wire [U1W-1:0] u_in;
  assign u_in[0 +: ULanesLsb]            = m_data[0 +: MLanesLsb];
  assign u_in[ULanesLsb +: Lanes*ULaneW] = u_lanes;

{%- call hs::stage(reg_sum, "u_sum", "U1W", "m_valid", "m_out_ready", "u_in", "u_valid", "u_out_ready", "u_data") %}{% endcall %}

  // ---------------------------------------------------------------------------------
  // Stage 6: per lane, the narrow texel column and row and the weights, from the sums.
  wire [WrapW-1:0] u_wrap_s = u_data[UWrapSLsb +: WrapW];
  wire [WrapW-1:0] u_wrap_t = u_data[UWrapTLsb +: WrapW];
  wire [Quads*CQuadW-1:0] u_quads = u_data[UQuadsLsb +: Quads*CQuadW];
  wire [Lanes*FLaneW-1:0] f_lanes;
  generate
    for (gi = 0; gi < Lanes; gi = gi + 1) begin : g_fixed
      wire [ULaneW-1:0] ul = u_data[ULanesLsb + gi*ULaneW +: ULaneW];
      wire linear = u_quads[(gi / 4)*CQuadW + PassQuadLinearLsb];
      wire [2*(CoordW+2)+WBits-1:0] us = coord_sel(ul[ULaneSLsb +: SumW], linear, u_wrap_s == Clamp);
      wire [2*(CoordW+2)+WBits-1:0] vt = coord_sel(ul[ULaneTLsb +: SumW], linear, u_wrap_t == Clamp);
      wire [FLaneW-1:0] fl;
      assign fl[FLaneActiveLsb]         = ul[ULaneActiveLsb];
      assign fl[FLaneALsb +: WBits]     = us[0 +: WBits];
      assign fl[FLaneBLsb +: WBits]     = vt[0 +: WBits];
      assign fl[FLaneIsLsb +: CoordW+2] = us[WBits +: CoordW + 2];
      assign fl[FLaneItLsb +: CoordW+2] = vt[WBits +: CoordW + 2];
      assign fl[FLaneIs1Lsb +: CoordW+2] = us[WBits + CoordW + 2 +: CoordW + 2];
      assign fl[FLaneIt1Lsb +: CoordW+2] = vt[WBits + CoordW + 2 +: CoordW + 2];
      assign f_lanes[gi*FLaneW +: FLaneW] = fl;
    end
  endgenerate

  wire f_valid;
  wire f_out_ready;
  wire [F1W-1:0] f_data;
  wire [F1W-1:0] f_in;
  assign f_in[0 +: FLanesLsb]            = u_data[0 +: ULanesLsb];
  assign f_in[FLanesLsb +: Lanes*FLaneW]  = f_lanes;

{%- call hs::stage(reg_fixed, "u_fixed", "F1W", "u_valid", "u_out_ready", "f_in", "f_valid", "f_out_ready", "f_data") %}{% endcall %}

  // ---------------------------------------------------------------------------------
  // Stage 7: per lane, the texel pair along each axis, wrapped.
  wire [WrapW-1:0] f_wrap_s = f_data[FWrapSLsb +: WrapW];
  wire [WrapW-1:0] f_wrap_t = f_data[FWrapTLsb +: WrapW];
  wire [Quads*CQuadW-1:0] f_quads = f_data[FQuadsLsb +: Quads*CQuadW];
  wire [Lanes*CLaneW-1:0] c_lanes;
  generate
    for (gi = 0; gi < Lanes; gi = gi + 1) begin : g_coord
      wire [FLaneW-1:0] fl = f_data[FLanesLsb + gi*FLaneW +: FLaneW];
      // The lane's quad's level sizes.
      wire [LgW-1:0] lw = f_quads[(gi / 4)*CQuadW + PassQuadLwLsb +: LgW];
      wire [LgW-1:0] lh = f_quads[(gi / 4)*CQuadW + PassQuadLhLsb +: LgW];
      wire [CoordW+1:0] is = fl[FLaneIsLsb +: CoordW+2];
      wire [CoordW+1:0] it = fl[FLaneItLsb +: CoordW+2];
      wire [CoordW+1:0] is1 = fl[FLaneIs1Lsb +: CoordW+2];
      wire [CoordW+1:0] it1 = fl[FLaneIt1Lsb +: CoordW+2];
      wire [CLaneW-1:0] cl;
      assign cl[CLaneActiveLsb]     = fl[FLaneActiveLsb];
      assign cl[CLaneALsb +: WBits] = fl[FLaneALsb +: WBits];
      assign cl[CLaneBLsb +: WBits] = fl[FLaneBLsb +: WBits];
      assign cl[CLaneI0sLsb +: CoordW] = wrap(is, lw, f_wrap_s);
      assign cl[CLaneI1sLsb +: CoordW] = wrap(is1, lw, f_wrap_s);
      assign cl[CLaneI0tLsb +: CoordW] = wrap(it, lh, f_wrap_t);
      assign cl[CLaneI1tLsb +: CoordW] = wrap(it1, lh, f_wrap_t);
      assign c_lanes[gi*CLaneW +: CLaneW] = cl;
    end
  endgenerate

  wire c_valid;
  wire c_out_ready;
  wire [C1W-1:0] c_data;
  wire [C1W-1:0] c_in;
  assign c_in[CPairLsb]                  = f_data[FPairLsb];
  assign c_in[CPassLsb +: PassCodeW]     = f_data[FPassLsb +: PassCodeW];
  assign c_in[CFormatLsb +: FormatW]     = f_data[FFormatLsb +: FormatW];
  assign c_in[CPerShLsb +: 2]            = f_data[FPerShLsb +: 2];
  assign c_in[CDxtLsb]                   = f_data[FDxtLsb];
  assign c_in[CBlendsLsb +: Quads*BlendW] = f_data[FBlendsLsb +: Quads*BlendW];
  assign c_in[CQuadsLsb +: Quads*CQuadW] = f_quads;
  assign c_in[CLanesLsb +: Lanes*CLaneW] = c_lanes;

{%- call hs::stage(reg_coord, "u_coord", "C1W", "f_valid", "f_out_ready", "c_in", "c_valid", "c_out_ready", "c_data") %}{% endcall %}

  // ---------------------------------------------------------------------------------
  // Stage 8: word addresses and the texels' indices in their words.
  wire [FormatW-1:0] c_format = c_data[CFormatLsb +: FormatW];
  // log2 of the texels in a word and DXT1, decoded from the format in the first clock.
  wire [1:0] c_per_sh = c_data[CPerShLsb +: 2];
  wire c_dxt = c_data[CDxtLsb];

  wire [Ports-1:0] o_active;
  wire [Ports*AddrW-1:0] o_words;
  wire [Lanes*SLaneW-1:0] o_lanes;
  genvar gk;
  generate
    for (gi = 0; gi < Lanes; gi = gi + 1) begin : g_addr
      wire [CLaneW-1:0] ln = c_data[CLanesLsb + gi*CLaneW +: CLaneW];
      // The lane's quad (its base is added in the next clock).
      wire [CQuadW-1:0] cq = c_data[CQuadsLsb + (gi / 4)*CQuadW +: CQuadW];
{%- if !tiled %}
      wire [LgW-1:0] c_lw = cq[PassQuadLwLsb +: LgW];
{%- endif %}
      wire c_linear = cq[PassQuadLinearLsb];
      wire c_skip = cq[PassQuadSkipLsb];
      wire [LgW-1:0] tile_sh = cq[PassQuadTileShLsb +: LgW];
      wire grouped = cq[PassQuadGroupedLsb];  // DXT1 blocks in 2x2 groups
      wire [CoordW-1:0] i0s = ln[CLaneI0sLsb +: CoordW];
      wire [CoordW-1:0] i1s = ln[CLaneI1sLsb +: CoordW];
      wire [CoordW-1:0] i0t = ln[CLaneI0tLsb +: CoordW];
      wire [CoordW-1:0] i1t = ln[CLaneI1tLsb +: CoordW];
      wire [4*SubW-1:0] subs;
      for (gk = 0; gk < 4; gk = gk + 1) begin : g_texel
        wire [CoordW-1:0] u = gk[0] ? i1s : i0s;
        wire [CoordW-1:0] v = gk[1] ? i1t : i0t;
        // The tile's index, or the DXT1 block's (sampler::dxt1_block) where blocks are
        // grouped: a group is 4 blocks, a row of groups 2 x 2^tile_sh blocks, so the
        // group row v / 8 shifts one place further than a tile row, which is the tile row
        // v / 4 with its low bit cleared: one shifter serves both, and the group only
        // changes its operands. At most 2^(2*CoordW - 4) tiles: the top bits stay zero.
        // A wrapped u is below the level's width, so every sum of a row's start and a
        // column here is an OR of disjoint bits: no carry.
        wire [CoordW-3:0] row = {v[CoordW-1:3], v[2] & ~grouped};
        wire [CoordW-2:0] col = grouped ? {u[CoordW-1:3], v[2], u[2]} : {1'b0, u[CoordW-1:2]};
        wire [AddrW-1:0] tile = ({{ "{{" }}TilePad{1'b0}}, row} << tile_sh) | {{ "{{" }}(TilePad - 1){1'b0}}, col};
        wire unused_tile;
        assign unused_tile = ^tile;
        wire [3:0] in_tile = {v[1:0], u[1:0]};
{%- if tiled %}
        wire [AddrW-1:0] index = {tile[AddrW-5:0], in_tile};
{%- else %}
        wire [AddrW-1:0] index = ({{ "{{" }}CoordPad{1'b0}}, v} << c_lw) | {{ "{{" }}CoordPad{1'b0}}, u};
{%- endif %}
        // The shift to words (texels in a word) comes in the next clock, before the sum.
        wire [AddrW-1:0] word = c_dxt ? {tile[AddrW-2:0], 1'b0} : index;
        // SubW bits of it reach the filter: enough for every enabled format.
        wire [3:0] sub = c_dxt ? in_tile : (index[3:0] & ((4'd1 << c_per_sh) - 4'd1));
        wire unused_sub;
        assign unused_sub = ^sub;
        assign subs[gk*SubW +: SubW] = sub[SubW-1:0];
        assign o_words[(4*gi + gk)*AddrW +: AddrW] = word;
        assign o_active[4*gi + gk] = ln[CLaneActiveLsb] & (c_linear | (gk == 0)) & ~c_skip;
      end
      wire [SLaneW-1:0] sl;
      assign sl[SLaneActiveLsb]      = ln[CLaneActiveLsb];
      assign sl[SLaneALsb +: WBits]  = ln[CLaneALsb +: WBits];
      assign sl[SLaneBLsb +: WBits]  = ln[CLaneBLsb +: WBits];
      assign sl[SLaneSubsLsb +: 4*SubW] = subs;
      assign o_lanes[gi*SLaneW +: SLaneW] = sl;
    end
  endgenerate

  // The pass, by the table the top reads it with, with the indices in their levels and
  // the quads' bases.
  wire [SideW-1:0] o_side;
  assign o_side[SidePairLsb]                    = c_data[CPairLsb];
  assign o_side[SidePassLsb +: PassCodeW]       = c_data[CPassLsb +: PassCodeW];
  assign o_side[SideBlendsLsb +: Quads*BlendW]  = c_data[CBlendsLsb +: Quads*BlendW];
  assign o_side[SideFormatLsb +: FormatW]       = c_format;
  assign o_side[SideLanesLsb +: Lanes*SLaneW]   = o_lanes;
  wire [Quads*AddrW-1:0] o_bases;
  generate
    for (gq = 0; gq < Quads; gq = gq + 1) begin : g_base
      assign o_bases[gq*AddrW +: AddrW] = c_data[CQuadsLsb + gq*CQuadW + PassQuadBaseLsb +: AddrW];
    end
  endgenerate
  wire [WW-1:0] w_in;
  assign w_in[WWordsLsb +: Ports*AddrW] = o_words;
  assign w_in[WActiveLsb +: Ports]      = o_active;
  assign w_in[WSideLsb +: SideW]        = o_side;
  assign w_in[WBasesLsb +: Quads*AddrW] = o_bases;
  assign w_in[WShiftLsb +: 2]           = c_dxt ? 2'd0 : c_per_sh;

  wire w_valid;
  wire w_out_ready;
  wire [WW-1:0] w_data;
{%- call hs::stage(reg_word, "u_word", "WW", "c_valid", "c_out_ready", "w_in", "w_valid", "w_out_ready", "w_data") %}{% endcall %}

  // ---------------------------------------------------------------------------------
  // Stage 9: each texel's word address, its level's base plus its word (the texel index
  // shifted to words, unless DXT1, whose block index already counts words).
  wire [1:0] w_shift = w_data[WShiftLsb +: 2];
  wire [Ports*AddrW-1:0] o_addr;
  generate
    for (gi = 0; gi < Ports; gi = gi + 1) begin : g_sum
      assign o_addr[gi*AddrW +: AddrW] = w_data[WBasesLsb + (gi / 16)*AddrW +: AddrW]
                                       + (w_data[WWordsLsb + gi*AddrW +: AddrW] >> w_shift);
    end
  endgenerate
  wire [OutW-1:0] o_word;
  assign o_word[PassAddrsLsb +: Ports*AddrW] = o_addr;
  assign o_word[PassActiveLsb +: Ports]      = w_data[WActiveLsb +: Ports];
  assign o_word[PassSideLsb +: SideW]        = w_data[WSideLsb +: SideW];

{%- if credits %}
  wire q_valid;
  wire q_ready;
  wire [OutW-1:0] q_data;
{%- call hs::queue("OutW", "take", "c_ready", "w_valid", "w_out_ready", "o_word", "q_valid", "q_ready", "q_data") %}{% endcall %}
{%- endif %}

  {{ skid }} #(
    .Width (OutW)
  ) u_addr (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
{%- if credits %}
    .in_valid_i  (q_valid),
    .in_ready_o  (q_ready),
    .in_data_i   (q_data),
{%- else %}
    .in_valid_i  (w_valid),
    .in_ready_o  (w_out_ready),
    .in_data_i   (o_word),
{%- endif %}
    .out_valid_o (out_valid_o),
    .out_ready_i (out_ready_i),
    .out_data_o  (out_data_o)
  );

endmodule
