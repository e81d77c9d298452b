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
// Stages: fixed-point coordinates, wrapped texel pairs, addresses, a skid register after
// each; one pass per clock.
// Combinational paths: none between ports.
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
  localparam integer FLaneW = {{ f_lane_w }};  // active, a, b, is, it
  localparam integer F1W = {{ f_w }};
  localparam integer CLaneW = {{ c_lane_w }};  // active, a, b, i0s, i1s, i0t, i1t
  localparam integer C1W = {{ c1_w }};
  localparam integer SLaneW = {{ s_lane_w }};  // active, a, b, subs
{%- for f in word_lsbs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
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
  localparam [CoordW-1:0] CoordOne = 1;
{%- endif %}
  localparam [LgW-1:0] TileLog2 = 2;  // 4x4 texel tiles, 4x4 DXT1 blocks
  localparam [LgW-1:0] LgOne = 1;
  // A coordinate, its tile row (4 texels) and its block-group row (8) widened to an address.
{%- if !tiled %}
  localparam integer CoordPad = AddrW - CoordW;
{%- endif %}
  localparam integer TilePad = AddrW - (CoordW - 2);
  localparam integer BlockPad = AddrW - (CoordW - 3);

  // ---------------------------------------------------------------------------------
  // Passes: level 1, and level 2 of a trilinear plan. A request is trilinear when any of
  // its quads is; in the second pass a quad that is not reads nothing (skip) and blends
  // its first pass with weight 0, which is that pass's result exactly.
  reg second_q;
  wire c_ready;
  wire [FormatW-1:0] format = in_data_i[PlanFormatLsb +: FormatW];
  wire [WrapW-1:0] wrap_s = in_data_i[PlanWrapSLsb +: WrapW];
  wire [WrapW-1:0] wrap_t = in_data_i[PlanWrapTLsb +: WrapW];
  wire [Quads-1:0] tris;
  wire [Quads*BlendW-1:0] blends;
  wire [Quads*CQuadW-1:0] c_quads;  // the quads of this pass
  genvar gq;
  generate
    for (gq = 0; gq < Quads; gq = gq + 1) begin : g_pass
      wire [PQuadW-1:0] pq = in_data_i[PlanQuadsLsb + gq*PQuadW +: PQuadW];
      wire is_tri = pq[PlanQuadTriLsb];
      wire linear = pq[PlanQuadLinearLsb];
      wire [LevelW-1:0] level = (second_q & is_tri) ? pq[PlanQuadLevel2Lsb +: LevelW] : pq[PlanQuadLevel1Lsb +: LevelW];
      wire [CQuadW-1:0] cq;
      assign cq[PassQuadLwLsb +: LgW]     = level[LevelLwLsb +: LgW];
      assign cq[PassQuadLhLsb +: LgW]     = level[LevelLhLsb +: LgW];
      assign cq[PassQuadBaseLsb +: AddrW]  = level[LevelBaseLsb +: AddrW];
      assign cq[PassQuadLinearLsb]         = linear;
      assign cq[PassQuadSkipLsb]           = second_q & ~is_tri;
      assign tris[gq]                      = is_tri;
      assign blends[gq*BlendW +: BlendW]   = pq[PlanQuadBlendLsb +: BlendW];
      assign c_quads[gq*CQuadW +: CQuadW]  = cq;
    end
  endgenerate
  wire trilin = |tris;
  wire [PassCodeW-1:0] pass = trilin ? (second_q ? PassSecond : PassFirst) : PassSingle;
  wire pair = {{ dxt1 }} & (format == FmtDxt1);
  wire last = ~trilin | second_q;
  wire take = in_valid_i & c_ready;

  assign in_ready_o = c_ready & last;

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      second_q <= 1'b0;
    end else if (take) begin
      second_q <= ~last;
    end
  end

  // floor(i) wrapped into a level 2^lg texels wide. Which bits of i and mode matter
  // depends on the wraps enabled.
  function automatic [CoordW-1:0] wrap;
    input [63:0] i;
    input [LgW-1:0] lg;
    input [WrapW-1:0] mode;
    reg [CoordW-1:0] mask;
{%- if mirror %}
    reg [CoordW:0] m;
    reg [CoordW-1:0] mir;
{%- endif %}
    reg unused_args;  // the bits the enabled wraps leave unread
    begin
      unused_args = ^{i, mode{% if mirror %}, m{% endif %}};
      mask = ~({CoordW{1'b1}} << lg);  // 2^lg - 1
{%- if mirror %}
      m    = i[CoordW:0] & {mask, 1'b1};
      mir  = mask - m[CoordW-1:0] + mask + CoordOne;  // 2n - 1 - m, below n
{%- endif %}
{%- if clamp || mirror %}
      case (mode)
{%- if clamp %}
        Clamp:   wrap = i[63] ? {CoordW{1'b0}} : ((|i[62:CoordW] || i[CoordW-1:0] > mask) ? mask : i[CoordW-1:0]);
{%- endif %}
{%- if mirror %}
        Mirror:  wrap = (m > {1'b0, mask}) ? mir : m[CoordW-1:0];
{%- endif %}
        default: wrap = i[CoordW-1:0] & mask;  // repeat
      endcase
{%- else %}
      wrap = i[CoordW-1:0] & mask;  // repeat, the only wrap enabled
{%- endif %}
    end
  endfunction

  // ---------------------------------------------------------------------------------
  // Stage 1: per lane, the fixed-point texel column and row and the weight along each
  // axis (the conversion and the half-texel step: two 64-bit carry chains).
  wire [Lanes*FLaneW-1:0] f_lanes;
  genvar gi;
  generate
    for (gi = 0; gi < Lanes; gi = gi + 1) begin : g_fixed
      wire [31:0] s = in_data_i[PlanLanesLsb + gi*LaneW +: 32];
      wire [31:0] t = in_data_i[PlanLanesLsb + gi*LaneW + 32 +: 32];
      wire active = in_data_i[PlanLanesLsb + gi*LaneW + 64];
      // The lane's quad: its level and filter this pass.
      wire [CQuadW-1:0] q = c_quads[(gi / 4)*CQuadW +: CQuadW];
      wire [LgW-1:0] lw = q[PassQuadLwLsb +: LgW];
      wire [LgW-1:0] lh = q[PassQuadLhLsb +: LgW];
      wire linear = q[PassQuadLinearLsb];
      wire unused_q;
      assign unused_q = ^{q[PassQuadBaseLsb +: AddrW], q[PassQuadSkipLsb]};
      wire [4:0] ks = {1'b0, lw} + (linear ? WBits[4:0] : 5'd0);
      wire [4:0] kt = {1'b0, lh} + (linear ? WBits[4:0] : 5'd0);
      wire [63:0] fs;
      wire [63:0] ft;
      // Half a texel comes off in the conversion's own carry chain when linear.
      {{ fixed }} #(.KW(5), .HalfLsb(WBits - 1)) u_fs (.s_i(s), .k_i(ks), .sat_i(wrap_s == Clamp), .half_i(linear), .fixed_o(fs));
      {{ fixed }} #(.KW(5), .HalfLsb(WBits - 1)) u_ft (.s_i(t), .k_i(kt), .sat_i(wrap_t == Clamp), .half_i(linear), .fixed_o(ft));
      wire [63:0] us = fs;
      wire [63:0] vt = ft;
      // Arithmetic shifts on their own: inside the ?: an unsigned operand would make them
      // logical.
      wire signed [63:0] us_sh = $signed(us) >>> WBits;
      wire signed [63:0] vt_sh = $signed(vt) >>> WBits;
      wire [FLaneW-1:0] fl;
      assign fl[FLaneActiveLsb]     = active;
      assign fl[FLaneALsb +: WBits] = linear ? us[WBits-1:0] : {WBits{1'b0}};
      assign fl[FLaneBLsb +: WBits] = linear ? vt[WBits-1:0] : {WBits{1'b0}};
      assign fl[FLaneIsLsb +: 64]   = linear ? us_sh : us;
      assign fl[FLaneItLsb +: 64]   = linear ? vt_sh : vt;
      assign f_lanes[gi*FLaneW +: FLaneW] = fl;
    end
  endgenerate

  wire f_valid;
  wire f_out_ready;
  wire [F1W-1:0] f_data;
  wire [F1W-1:0] f_in;
  assign f_in[FPairLsb]                   = pair;
  assign f_in[FPassLsb +: PassCodeW]      = pass;
  assign f_in[FFormatLsb +: FormatW]      = format;
  assign f_in[FBlendsLsb +: Quads*BlendW] = blends;
  assign f_in[FQuadsLsb +: Quads*CQuadW]  = c_quads;
  assign f_in[FWrapSLsb +: WrapW]         = wrap_s;
  assign f_in[FWrapTLsb +: WrapW]         = wrap_t;
  assign f_in[FLanesLsb +: Lanes*FLaneW]  = f_lanes;

  {{ skid }} #(
    .Width (F1W)
  ) u_fixed (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (in_valid_i),
    .in_ready_o  (c_ready),
    .in_data_i   (f_in),
    .out_valid_o (f_valid),
    .out_ready_i (f_out_ready),
    .out_data_o  (f_data)
  );

  // ---------------------------------------------------------------------------------
  // Stage 2: per lane, the texel pair along each axis, wrapped.
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
      wire [63:0] is = fl[FLaneIsLsb +: 64];
      wire [63:0] it = fl[FLaneItLsb +: 64];
      wire [CLaneW-1:0] cl;
      assign cl[CLaneActiveLsb]     = fl[FLaneActiveLsb];
      assign cl[CLaneALsb +: WBits] = fl[FLaneALsb +: WBits];
      assign cl[CLaneBLsb +: WBits] = fl[FLaneBLsb +: WBits];
      assign cl[CLaneI0sLsb +: CoordW] = wrap(is, lw, f_wrap_s);
      assign cl[CLaneI1sLsb +: CoordW] = wrap(is + 64'd1, lw, f_wrap_s);
      assign cl[CLaneI0tLsb +: CoordW] = wrap(it, lh, f_wrap_t);
      assign cl[CLaneI1tLsb +: CoordW] = wrap(it + 64'd1, lh, f_wrap_t);
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
  assign c_in[CBlendsLsb +: Quads*BlendW] = f_data[FBlendsLsb +: Quads*BlendW];
  assign c_in[CQuadsLsb +: Quads*CQuadW] = f_quads;
  assign c_in[CLanesLsb +: Lanes*CLaneW] = c_lanes;

  {{ skid }} #(
    .Width (C1W)
  ) u_coord (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (f_valid),
    .in_ready_o  (f_out_ready),
    .in_data_i   (c_in),
    .out_valid_o (c_valid),
    .out_ready_i (c_out_ready),
    .out_data_o  (c_data)
  );

  // ---------------------------------------------------------------------------------
  // Stage 2: word addresses and the texels' indices in their words.
  wire [FormatW-1:0] c_format = c_data[CFormatLsb +: FormatW];
  // log2 of the texels in a word: 32, 16 or 8 bits a texel.
  wire [1:0]  per_sh   = ({{ one_per_word }}) ? 2'd0
                       : ({{ four_per_word }}) ? 2'd2 : 2'd1;

  wire [Ports-1:0] o_active;
  wire [Ports*AddrW-1:0] o_addr;
  wire [Lanes*SLaneW-1:0] o_lanes;
  genvar gk;
  generate
    for (gi = 0; gi < Lanes; gi = gi + 1) begin : g_addr
      wire [CLaneW-1:0] ln = c_data[CLanesLsb + gi*CLaneW +: CLaneW];
      // The lane's quad: {skip, linear, base, lh, lw}.
      wire [CQuadW-1:0] cq = c_data[CQuadsLsb + (gi / 4)*CQuadW +: CQuadW];
      wire [LgW-1:0] c_lw = cq[PassQuadLwLsb +: LgW];
      wire [LgW-1:0] c_lh = cq[PassQuadLhLsb +: LgW];
      wire [AddrW-1:0] c_base = cq[PassQuadBaseLsb +: AddrW];
      wire c_linear = cq[PassQuadLinearLsb];
      wire c_skip = cq[PassQuadSkipLsb];
      wire [LgW-1:0] tile_sh = (c_lw > TileLog2) ? c_lw - TileLog2 : {LgW{1'b0}};
      // DXT1 blocks in 2x2 groups when the level is at least two blocks each way.
      wire grouped = (c_lw > TileLog2) & (c_lh > TileLog2);
      wire [CoordW-1:0] i0s = ln[CLaneI0sLsb +: CoordW];
      wire [CoordW-1:0] i1s = ln[CLaneI1sLsb +: CoordW];
      wire [CoordW-1:0] i0t = ln[CLaneI0tLsb +: CoordW];
      wire [CoordW-1:0] i1t = ln[CLaneI1tLsb +: CoordW];
      wire [4*SubW-1:0] subs;
      for (gk = 0; gk < 4; gk = gk + 1) begin : g_texel
        wire [CoordW-1:0] u = gk[0] ? i1s : i0s;
        wire [CoordW-1:0] v = gk[1] ? i1t : i0t;
        // At most 2^(2*CoordW - 4) tiles: the top bits of tile stay zero.
        wire [AddrW-1:0] tile = ({{ "{{" }}TilePad{1'b0}}, v[CoordW-1:2]} << tile_sh) + {{ "{{" }}TilePad{1'b0}}, u[CoordW-1:2]};
        wire unused_tile;
        assign unused_tile = ^tile;
        wire [3:0] in_tile = {v[1:0], u[1:0]};
        // The DXT1 block's index (sampler::dxt1_block): a group is 4 blocks, a row of
        // groups 2 x 2^tile_sh blocks.
        wire [AddrW-1:0] block = grouped ? (({{ "{{" }}BlockPad{1'b0}}, v[CoordW-1:3]} << (tile_sh + LgOne))
                                            + {{ "{{" }}(BlockPad - 2){1'b0}}, u[CoordW-1:3], 2'b00}
                                            + {{ "{{" }}(AddrW - 2){1'b0}}, v[2], u[2]})
                                         : tile;
        wire unused_block;
        assign unused_block = ^block;
{%- if tiled %}
        wire [AddrW-1:0] index = {tile[AddrW-5:0], in_tile};
{%- else %}
        wire [AddrW-1:0] index = ({{ "{{" }}CoordPad{1'b0}}, v} << c_lw) + {{ "{{" }}CoordPad{1'b0}}, u};
{%- endif %}
        wire [AddrW-1:0] word = (c_format == FmtDxt1) ? {block[AddrW-2:0], 1'b0} : (index >> per_sh);
        // SubW bits of it reach the filter: enough for every enabled format.
        wire [3:0] sub = (c_format == FmtDxt1) ? in_tile : (index[3:0] & ((4'd1 << per_sh) - 4'd1));
        wire unused_sub;
        assign unused_sub = ^sub;
        assign subs[gk*SubW +: SubW] = sub[SubW-1:0];
        assign o_addr[(4*gi + gk)*AddrW +: AddrW] = c_base + word;
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

  // The pass, by the table the top reads it with.
  wire [SideW-1:0] o_side;
  assign o_side[SidePairLsb]                    = c_data[CPairLsb];
  assign o_side[SidePassLsb +: PassCodeW]       = c_data[CPassLsb +: PassCodeW];
  assign o_side[SideBlendsLsb +: Quads*BlendW]  = c_data[CBlendsLsb +: Quads*BlendW];
  assign o_side[SideFormatLsb +: FormatW]       = c_format;
  assign o_side[SideLanesLsb +: Lanes*SLaneW]   = o_lanes;
  wire [OutW-1:0] o_word;
  assign o_word[PassAddrsLsb +: Ports*AddrW] = o_addr;
  assign o_word[PassActiveLsb +: Ports]      = o_active;
  assign o_word[PassSideLsb +: SideW]        = o_side;

  {{ skid }} #(
    .Width (OutW)
  ) u_addr (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (c_valid),
    .in_ready_o  (c_out_ready),
    .in_data_i   (o_word),
    .out_valid_o (out_valid_o),
    .out_ready_i (out_ready_i),
    .out_data_o  (out_data_o)
  );

endmodule
