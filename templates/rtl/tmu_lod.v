{{ stamp }}
// {{ name }}: the texture mapping unit's front (seed 001): the texture parameter memory,
// the level of detail of each request and the choice of mip level(s), as
// src/model/tmu/lod.rs and select_levels in src/model/tmu/sampler.rs compute them.
//
// in_data_i: a command (src/iface/tmu.rs holds the layout and the descriptor registers)
//   sample: {1'b0, tex[{{ tex_w }}], has_lod, lod fp32, lane[{{ lanes }}] = {active, t fp32, s fp32}}, lane 0 lowest
//   write:  {1'b1, ..., tex[{{ tex_w }}], reg[{{ reg_w }}], data[31:0]}
// Descriptor registers: {{ reg_desc }}.
// Control register: {{ ctrl_desc }}.
// A write waits until no earlier sample is inside this module, so every sample reads
// the descriptors as they were when it arrived, and the registers can be read at any
// stage. A write lands a clock after it is taken (from flops, one enable per register);
// a sample right behind it waits that clock.
// out_data_o: the plan of a sample:
//   {quad[{{ quads }}], wrap_t[2], wrap_s[2], format[3], lanes as in_data_i}, quad 0 lowest;
//   a quad (lanes 4q to 4q + 3) is {base2[30], lh2[4], lw2[4], base1[30], lh1[4], lw1[4],
//   linear, tri, blend[8]}: its level 1 is read alone (tri = 0) or blended with its
//   level 2 by blend / 256 (tri = 1).
// Enabled filters: {{ filter_list }}; wraps: {{ wrap_list }}. A descriptor's disabled or
// unknown filter reads as {{ filter_fallback_name }}, a disabled wrap as {{ wrap_fallback_name }}.
{%- if quad_lod %}
// LOD of each quad from its differences: lane 1 - lane 0 along x, lane 2 - lane 0 along
// y, in base-level texels with 12 fraction bits, each clamped to 2^31 - 1; rho^2 of the
// longer side; log2 by repeated squaring of a 17-bit mantissa, two squarings a stage.
// An explicit LOD applies to every quad.
{%- else if lod %}
// LOD: the request's explicit LOD, or 0 ({{ lanes }} lane(s) are not a quad), then bias and clamp.
{%- else %}
// LOD: one filter is enabled, so no LOD is computed: every sample reads level 0.
{%- endif %}
// Stages: {% if credits %}pipeline registers between them that never stall: a sample enters
// them only with a credit, one of {{ queue.depth }}, which comes back as it leaves the queue
// in front of the output skid{% else %}skid registers between them{% endif %}; a sample or a write per clock (a sample
// right behind a write one clock later).
// Combinational paths: none between ports.
{%- import "rtl/hs_stage.v" as hs %}
module {{ name }} #(
  parameter integer Textures = {{ textures }},
  parameter integer MipLevels = {{ mip_levels }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire in_valid_i,
  output wire in_ready_o,
  input wire [{{ req_w - 1 }}:0] in_data_i,
  output wire out_valid_o,
  input wire out_ready_i,
  output wire [{{ plan_w - 1 }}:0] out_data_o
);

  localparam integer Lanes = {{ lanes }};
  localparam integer Quads = {{ quads }};
  localparam integer QuadW = {{ plan_quad_w }};  // a quad's part of the plan
  localparam integer ReqW = {{ req_w }};
  localparam integer TexW = {{ tex_w }};
  localparam integer RegW = {{ reg_w }};
  localparam integer LaneW = {{ lane_w }};  // a lane of a sample request
  localparam integer LanesW = LaneW * Lanes;
  localparam integer PlanW = {{ plan_w }};
  localparam integer CtrlW = {{ ctrl_w }};  // the control register's fields
{%- for f in ctrl_fields %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer SampleW = {{ sample_w }};  // a sample command's fields
  localparam integer DescW = {{ desc_w }};  // control, bias, LOD limits
  localparam integer P0W = {{ p0_w }};  // a sample and its descriptor
  localparam integer LevelW = {{ level_w }};  // a level of the plan: {base, lh, lw}
{%- if quad_lod %}
  localparam integer DeltaW = {{ delta_w }};  // a difference, clamped
  localparam integer DiffW = {{ diff_w }};  // a quad's four differences
  localparam integer SqW = {{ sq_w }};  // a difference squared
  localparam integer Rho2W = {{ rho2_w }};  // a quad's rho^2
  localparam integer LogQuadW = {{ log_quad_w }};  // a quad's log2 state
{%- endif %}
{%- if lod %}
  localparam integer CmpW = {{ cmp_w }};  // a quad's compares after stage C1
  localparam integer ClassW = {{ class_w }};  // the filter class beside them
  localparam integer PickW = {{ pick_w }};  // a quad's levels and blend after stage C2
{%- endif %}
{%- for f in lsbs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
{%- for w in widths %}
  localparam integer {{ w.0 }} = {{ w.1 }};  // {{ w.2 }}
{%- endfor %}
  localparam integer InflW = {{ infl_w }};
{%- if max_log2 < 15 %}
  localparam [LgW-1:0] MaxLog2 = {{ max_log2 }};
{%- endif %}
{%- if lod %}
  localparam [7:0] FilterMask = 8'b{{ filter_mask }};
{%- for f in filter_codes %}
  localparam [2:0] {{ f.0 }} = 3'd{{ f.1 }};
{%- endfor %}
{%- endif %}
  localparam [2:0] FilterFallback = 3'd{{ filter_fallback }};
  localparam [3:0] WrapMask = 4'b{{ wrap_mask }};
  localparam [WrapW-1:0] WrapFallback = {{ wrap_fallback }};
{%- for r in regs %}
  localparam [RegW-1:0] {{ r.0 }} = {{ reg_w }}'d{{ r.1 }};
{%- endfor %}

  // Sizes and level counts past the largest level read as the largest.
  function automatic [LgW-1:0] sat_log2;
    input [LgW-1:0] x;
    begin
{%- if max_log2 < 15 %}
      sat_log2 = (x > MaxLog2) ? MaxLog2 : x;
{%- else %}
      sat_log2 = x;  // every LgW-bit value is a level
{%- endif %}
    end
  endfunction

  // ---------------------------------------------------------------------------------
  // Input register and the texture parameter memory.
  wire s0_valid;
  wire s0_ready;
  wire [ReqW-1:0] s0_data;

  {{ skid }} #(
    .Width (ReqW)
  ) u_in (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (in_valid_i),
    .in_ready_o  (in_ready_o),
    .in_data_i   (in_data_i),
    .out_valid_o (s0_valid),
    .out_ready_i (s0_ready),
    .out_data_o  (s0_data)
  );

  reg [InflW-1:0] inflight_q;
  wire s0_write = s0_data[ReqW-1];
  wire idle = (inflight_q == {InflW{1'b0}});
  wire wr_en = s0_valid & s0_write & idle;
  wire [31:0] wr_data = s0_data[WriteDataLsb +: 32];
  wire [RegW-1:0] wr_reg = s0_data[WriteRegLsb +: RegW];
  wire [TexW-1:0] wr_tex = s0_data[WriteTexLsb +: TexW];
  wire [TexW-1:0] s0_tex = s0_data[SampleTexLsb +: TexW];
  // A write lands a clock after it is taken, from flops: one decoded enable per register
  // (each drives only its own register's enables), the data beside them. The sample
  // behind a write waits that clock (s0_go), so it reads what was written.
  reg wr_pend_q;
  reg [31:0] wr_data_q;
  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      wr_pend_q <= 1'b0;
    end else begin
      wr_pend_q <= wr_en;
    end
  end
  always @(posedge clk_i) begin
    if (wr_en) begin
      wr_data_q <= wr_data;
    end
  end
  wire s0_go = s0_valid & ~s0_write & ~wr_pend_q;  // a sample leaves the input register

  // Registers, flattened so that a texture id selects them; ids past the last texture
  // read as zero.
  wire [Textures*DescW-1:0] desc_all;
  wire [Textures*MipLevels*AddrW-1:0] base_all;

  genvar gt;
  genvar gl;
  generate
    for (gt = 0; gt < Textures; gt = gt + 1) begin : g_tex
      reg [CtrlW-1:0] ctrl_q;
      reg [15:0] bias_q;
      reg [31:0] lods_q;
      wire sel = wr_en & (wr_tex == gt[TexW-1:0]);
      reg we_ctrl_q;
      reg we_bias_q;
      reg we_lods_q;
      always @(posedge clk_i{{ rst.edge }}) begin
        if ({{ rst.active }}) begin
          we_ctrl_q <= 1'b0;
          we_bias_q <= 1'b0;
          we_lods_q <= 1'b0;
        end else begin
          we_ctrl_q <= sel & (wr_reg == RegCtrl);
          we_bias_q <= sel & (wr_reg == RegBias);
          we_lods_q <= sel & (wr_reg == RegLods);
        end
      end
      always @(posedge clk_i{{ rst.edge }}) begin
        if ({{ rst.active }}) begin
          ctrl_q <= {CtrlW{1'b0}};
          bias_q <= 16'd0;
          lods_q <= 32'd0;
        end else begin
          if (we_ctrl_q) ctrl_q <= wr_data_q[CtrlW-1:0];
          if (we_bias_q) bias_q <= wr_data_q[15:0];
          if (we_lods_q) lods_q <= wr_data_q;
        end
      end
      assign desc_all[gt*DescW + DescCtrlLsb +: CtrlW] = ctrl_q;
      assign desc_all[gt*DescW + DescBiasLsb +: 16]    = bias_q;
      assign desc_all[gt*DescW + DescMinLodLsb +: 16]  = lods_q[15:0];
      assign desc_all[gt*DescW + DescMaxLodLsb +: 16]  = lods_q[31:16];
      for (gl = 0; gl < MipLevels; gl = gl + 1) begin : g_level
        reg [AddrW-1:0] base_q;
        reg we_base_q;
        always @(posedge clk_i{{ rst.edge }}) begin
          if ({{ rst.active }}) begin
            we_base_q <= 1'b0;
            base_q <= {AddrW{1'b0}};
          end else begin
            we_base_q <= sel && wr_reg == RegBase + gl[RegW-1:0];
            if (we_base_q) base_q <= wr_data_q[AddrW-1:0];
          end
        end
        assign base_all[(gt*MipLevels+gl)*AddrW +: AddrW] = base_q;
      end
    end
  endgenerate

  wire s0_tex_ok = ({1'b0, s0_tex} < Textures[TexW:0]);
  wire [DescW-1:0] s0_desc = s0_tex_ok ? desc_all[s0_tex*DescW +: DescW] : {DescW{1'b0}};
  // A sample and its descriptor, carried down the stages.
  wire [P0W-1:0] s0_p = {s0_desc, s0_data[SampleW-1:0]};
  wire d_valid;
  wire d_ready;
  wire d_in_ready;  // a sample may leave the input register
  wire d_entry_ready;
  wire [P0W-1:0] d_p;
{%- if desc_stage %}
  // The descriptor read gets a clock of its own: the texture id reaches every bit of
  // every descriptor, and that net with the select does not fit a {{ target_mhz }} MHz
  // clock together with the next stage's compares (decided in src/rtl/tmu.rs).
{%- else %}
  // At {{ target_mhz }} MHz the descriptor read fits with the next stage: no register.
{%- endif %}
{%- if credits %}
  wire d_take = s0_go & d_in_ready;  // takes a credit
  wire unused_d_entry_ready = d_entry_ready;
{%- call hs::stage(desc_stage, "u_desc", "P0W", "d_take", "d_entry_ready", "s0_p", "d_valid", "d_ready", "d_p") %}{% endcall %}
{%- else %}
  assign d_in_ready = d_entry_ready;
{%- call hs::stage(desc_stage, "u_desc", "P0W", "s0_go", "d_entry_ready", "s0_p", "d_valid", "d_ready", "d_p") %}{% endcall %}
{%- endif %}
{%- if quad_lod %}

  // ---------------------------------------------------------------------------------
  // Stage 1: per quad, u and v of its lanes 0, 1 and 2 in base-level texels (12
  // fraction bits), and the four differences, clamped.
  localparam integer S1W = P0W + Quads * DiffW;
  wire s1_valid;
  wire s1_ready;
  wire [S1W-1:0] s1_data;
  wire [LgW-1:0] lw0 = sat_log2(d_p[SampleW + DescCtrlLsb + CtrlLog2WidthLsb +: LgW]);
  wire [LgW-1:0] lh0 = sat_log2(d_p[SampleW + DescCtrlLsb + CtrlLog2HeightLsb +: LgW]);

  // |b - a| modulo 2^64, clamped to 2^DeltaW - 1.
  function automatic [DeltaW-1:0] absdiff;
    input [63:0] a;
    input [63:0] b;
    reg [63:0] d;
    reg [63:0] m;
    begin
      d = b - a;
      m = d[63] ? (~d + 64'd1) : d;
      absdiff = (m[63:DeltaW] != {(64-DeltaW){1'b0}}) ? {DeltaW{1'b1}} : m[DeltaW-1:0];
    end
  endfunction

  wire [Quads*DiffW-1:0] diffs;
  genvar gq;
  generate
    for (gq = 0; gq < Quads; gq = gq + 1) begin : g_diff
      // The quad's lanes 0, 1, 2: (x, y), (x + 1, y), (x, y + 1); their active bits go unread.
      wire [3*LaneW-1:0] ql = d_p[SampleLanesLsb + gq*4*LaneW +: 3*LaneW];
      wire unused_ql;
      assign unused_ql = ^ql;
      wire [63:0] fu0;
      wire [63:0] fu1;
      wire [63:0] fu2;
      wire [63:0] fv0;
      wire [63:0] fv1;
      wire [63:0] fv2;
      {{ fixed }} #(.KW(5)) u_fu0 (.s_i(ql[0 +: 32]), .k_i({1'b0, lw0} + 5'd12), .sat_i(1'b0), .half_i(1'b0), .fixed_o(fu0));
      {{ fixed }} #(.KW(5)) u_fu1 (.s_i(ql[LaneW +: 32]), .k_i({1'b0, lw0} + 5'd12), .sat_i(1'b0), .half_i(1'b0), .fixed_o(fu1));
      {{ fixed }} #(.KW(5)) u_fu2 (.s_i(ql[2*LaneW +: 32]), .k_i({1'b0, lw0} + 5'd12), .sat_i(1'b0), .half_i(1'b0), .fixed_o(fu2));
      {{ fixed }} #(.KW(5)) u_fv0 (.s_i(ql[32 +: 32]), .k_i({1'b0, lh0} + 5'd12), .sat_i(1'b0), .half_i(1'b0), .fixed_o(fv0));
      {{ fixed }} #(.KW(5)) u_fv1 (.s_i(ql[LaneW + 32 +: 32]), .k_i({1'b0, lh0} + 5'd12), .sat_i(1'b0), .half_i(1'b0), .fixed_o(fv1));
      {{ fixed }} #(.KW(5)) u_fv2 (.s_i(ql[2*LaneW + 32 +: 32]), .k_i({1'b0, lh0} + 5'd12), .sat_i(1'b0), .half_i(1'b0), .fixed_o(fv2));
      assign diffs[gq*DiffW + DiffUxLsb +: DeltaW] = absdiff(fu0, fu1);
      assign diffs[gq*DiffW + DiffVxLsb +: DeltaW] = absdiff(fv0, fv1);
      assign diffs[gq*DiffW + DiffUyLsb +: DeltaW] = absdiff(fu0, fu2);
      assign diffs[gq*DiffW + DiffVyLsb +: DeltaW] = absdiff(fv0, fv2);
    end
  endgenerate

{%- call hs::stage(lod_quad[0], "u_diff", "S1W", "d_valid", "d_ready", "{diffs, d_p}", "s1_valid", "s1_ready", "s1_data") %}{% endcall %}

  // ---------------------------------------------------------------------------------
  // Stage 2: per quad, rho^2, the larger of the two squared lengths.
  localparam integer S2W = P0W + Quads * Rho2W;
  wire s2_valid;
  wire s2_ready;
  wire [S2W-1:0] s2_data;
  wire [Quads*Rho2W-1:0] rho2s;
  generate
    for (gq = 0; gq < Quads; gq = gq + 1) begin : g_rho
      wire [DiffW-1:0] d = s1_data[P0W + gq*DiffW +: DiffW];
      wire [SqW-1:0] sq_ux = d[DiffUxLsb +: DeltaW] * d[DiffUxLsb +: DeltaW];
      wire [SqW-1:0] sq_vx = d[DiffVxLsb +: DeltaW] * d[DiffVxLsb +: DeltaW];
      wire [SqW-1:0] sq_uy = d[DiffUyLsb +: DeltaW] * d[DiffUyLsb +: DeltaW];
      wire [SqW-1:0] sq_vy = d[DiffVyLsb +: DeltaW] * d[DiffVyLsb +: DeltaW];
      wire [Rho2W-1:0] rho2_x = {1'b0, sq_ux} + {1'b0, sq_vx};
      wire [Rho2W-1:0] rho2_y = {1'b0, sq_uy} + {1'b0, sq_vy};
      assign rho2s[gq*Rho2W +: Rho2W] = (rho2_x > rho2_y) ? rho2_x : rho2_y;
    end
  endgenerate

{%- call hs::stage(lod_quad[1], "u_rho", "S2W", "s1_valid", "s1_ready", "{rho2s, s1_data[P0W-1:0]}", "s2_valid", "s2_ready", "s2_data") %}{% endcall %}

  // ---------------------------------------------------------------------------------
  // Stage 3: per quad, rho^2 = 2^msb * m, m in [1, 2) with 16 fraction bits (truncated).
  // A quad's log state: {fraction[8], mantissa[17], msb[6], zero}.
  localparam integer LogW = P0W + Quads * LogQuadW;
  wire s3_valid;
  wire s3_ready;
  wire [LogW-1:0] s3_data;

  // The highest set bit (0 for 0).
  function automatic [5:0] msb_of;
    input [Rho2W-1:0] x;
    integer i;
    begin
      msb_of = 6'd0;
      for (i = 0; i < Rho2W; i = i + 1) begin
        if (x[i]) msb_of = i[5:0];
      end
    end
  endfunction

  wire [Quads*LogQuadW-1:0] norms;
  generate
    for (gq = 0; gq < Quads; gq = gq + 1) begin : g_norm
      wire [Rho2W-1:0] rho2 = s2_data[P0W + gq*Rho2W +: Rho2W];
      wire [5:0] msb = msb_of(rho2);
      // The mantissa is the 17 bits from the leading one down.
      wire [Rho2W-1:0] norm_r = rho2 >> (msb - 6'd16);
      wire [Rho2W-1:0] norm_l = rho2 << (6'd16 - msb);
      wire unused_norm;
      assign unused_norm = ^{norm_r[Rho2W-1:17], norm_l[Rho2W-1:17]};
      wire [16:0] mant0 = (msb >= 6'd16) ? norm_r[16:0] : norm_l[16:0];
      assign norms[gq*LogQuadW + LogQuadZeroLsb]       = (rho2 == {Rho2W{1'b0}});
      assign norms[gq*LogQuadW + LogQuadMsbLsb +: 6]   = msb;
      assign norms[gq*LogQuadW + LogQuadMantLsb +: 17] = mant0;
      assign norms[gq*LogQuadW + LogQuadFracLsb +: 8]  = 8'd0;
    end
  endgenerate

{%- call hs::stage(lod_quad[2], "u_norm", "LogW", "s2_valid", "s2_ready", "{norms, s2_data[P0W-1:0]}", "s3_valid", "s3_ready", "s3_data") %}{% endcall %}

  // ---------------------------------------------------------------------------------
  // Stages 4 to 7: two squarings each; a square of 2 or more is the next fraction bit 1.
  // The square's low 16 bits are truncated, as MANT_BITS in src/model/tmu/lod.rs.
  // Each ends at a skid register where the clock needs it (src/iface/tmu.rs's LodPipe);
  // the quads' stages at {{ target_mhz }} MHz: {{ quad_clocks }}.
  function automatic [17:0] square_step;  // {bit, mantissa[16:0]}
    input [16:0] m;
    reg [33:0] sq;
    reg unused_sq;  // the truncated bits
    begin
      sq = m * m;
      unused_sq = ^sq[15:0];
      square_step = sq[33] ? {1'b1, sq[33:17]} : {1'b0, sq[32:16]};
    end
  endfunction

{%- for sq in sq_stages %}

  // Stage {{ sq.n }}: two squarings.
  wire [Quads*LogQuadW-1:0] {{ sq.name }}_steps;
  generate
    for (gq = 0; gq < Quads; gq = gq + 1) begin : g_{{ sq.name }}
      wire [LogQuadW-1:0] q_in = {{ sq.prev }}_data[P0W + gq*LogQuadW +: LogQuadW];
      // Two new fraction bits enter at the bottom; the top two are still zero.
      wire [7:0] f_in = q_in[LogQuadFracLsb +: 8];
      wire unused_f_in;
      assign unused_f_in = ^f_in[7:6];
      wire [17:0] st1 = square_step(q_in[LogQuadMantLsb +: 17]);
      wire [17:0] st2 = square_step(st1[16:0]);
      assign {{ sq.name }}_steps[gq*LogQuadW + LogQuadZeroLsb]       = q_in[LogQuadZeroLsb];
      assign {{ sq.name }}_steps[gq*LogQuadW + LogQuadMsbLsb +: 6]   = q_in[LogQuadMsbLsb +: 6];
      assign {{ sq.name }}_steps[gq*LogQuadW + LogQuadMantLsb +: 17] = st2[16:0];
      assign {{ sq.name }}_steps[gq*LogQuadW + LogQuadFracLsb +: 8]  = {f_in[5:0], st1[17], st2[17]};
    end
  endgenerate
  wire {{ sq.name }}_valid;
  wire {{ sq.name }}_ready;
  wire [LogW-1:0] {{ sq.name }}_data;
{%- call hs::stage(sq.reg, sq.inst, "LogW", sq.in_valid, sq.in_ready, sq.in_data, sq.out_valid, sq.out_ready, sq.out_data) %}{% endcall %}
{%- endfor %}

  wire sel_valid = sq3_valid;
  wire sel_ready;
  wire [LogW-1:0] sel_log = sq3_data;
  assign sq3_ready = sel_ready;
  wire [P0W-1:0] sel_p = sel_log[P0W-1:0];
  assign s0_ready = s0_write ? idle : (~wr_pend_q & d_in_ready);
  // Per quad, log2(rho) = log2(rho^2) / 2 in base-level texels: minus the 12 fraction
  // bits. log2(rho^2) to 8 fraction bits is log2(rho) to 9: halving rounds to 8, to
  // nearest (the model's (x + 1) >> 1).
  wire [Quads*16-1:0] lambda_ds;
  generate
    for (gq = 0; gq < Quads; gq = gq + 1) begin : g_lambda
      // The mantissa and the last fraction bit go unread.
      wire [LogQuadW-1:0] q_log = sel_log[P0W + gq*LogQuadW +: LogQuadW];
      wire [13:0] log2_rho2 = {q_log[LogQuadMsbLsb +: 6], q_log[LogQuadFracLsb +: 8]};
      // log2(rho^2) < 63 * 256: adding one cannot carry out of 14 bits.
      wire [13:0] rounded = log2_rho2 + 14'd1;
      wire unused_log;
      assign unused_log = ^{q_log[LogQuadMantLsb +: 17], rounded[0]};
      assign lambda_ds[gq*16 +: 16] = q_log[LogQuadZeroLsb] ? -16'sd32768
                                    : ($signed({3'd0, rounded[13:1]}) - 16'sd3072);
    end
  endgenerate
{%- else %}

  wire sel_valid = d_valid;
  wire sel_ready;
  // Without LOD hardware the LOD fields and the LOD registers go unread.
  wire [P0W-1:0] sel_p = d_p;
  wire unused_sel_p;
  assign unused_sel_p = ^sel_p;
  assign d_ready  = sel_ready;
  assign s0_ready = s0_write ? idle : (~wr_pend_q & d_in_ready);
{%- if lod %}
  wire [Quads*16-1:0] lambda_ds = {(Quads*16){1'b0}};
{%- endif %}
{%- endif %}

  // ---------------------------------------------------------------------------------
  // Selection: explicit LOD or the differences', bias, clamp; mag or min; the level(s),
  // per quad.
  genvar gp;
{%- if lod %}
  // floor(s * 2^8) of the explicit LOD s, saturated to 16 bits: what {{ fixed }} with
  // k = 8 and a clamp to 16 bits give (tests/tmu.rs proves the two halves in a row equal
  // to it), in a 24-bit shifter. s = mant * 2^(e1 - 150), so s * 2^8 =
  // mant >> (142 - e1). NaN gives 0, infinities saturate. Two clocks: the exponent and
  // whether it saturates, then the shift and the sign.
  localparam integer LodPreW = {{ lod_pre_w }};
  function automatic [LodPreW-1:0] lod_pre;
    input [31:0] s;
    reg [7:0] e1;
    integer i;
    begin
      e1 = (s[30:23] == 8'd0) ? 8'd1 : s[30:23];
      lod_pre = {LodPreW{1'b0}};
      lod_pre[LodPreMantLsb +: 24] = {(s[30:23] != 8'd0), s[22:0]};
      lod_pre[LodPreNshLsb +: 8]   = 8'd142 - e1;
      // Mantissa bit i is shifted out when i < 142 - e1: a compare of e1 a bit, here
      // beside the subtract rather than after it.
      for (i = 0; i < 24; i = i + 1) begin
        lod_pre[LodPreLowLsb + i]  = (e1 < 8'd142 - i[7:0]);
      end
      lod_pre[LodPreNegLsb]        = s[31];
      // From e1 = 134 on, the magnitude is at least 2^15 (a normal mantissa is at least
      // 2^23): 16 bits saturate (-2^15, the one such value they hold, is the saturated
      // one), so that no test of the shifted magnitude follows the shift.
      lod_pre[LodPreSatLsb]        = (e1 >= 8'd134);
      lod_pre[LodPreNanLsb]        = (s[30:23] == 8'hff) && (s[22:0] != 23'd0);
    end
  endfunction

  // Returns {x, c}: the value is x + c, x signed 17 bits and c a carry that the next
  // clock's sums take in, so that a negative value's -mag - inexact = ~mag + ~inexact
  // has no carry chain of its own after the shift.
  function automatic [17:0] lod_post;
    input [LodPreW-1:0] p;
    reg [23:0] mant;
    reg [7:0] nsh;
    reg [23:0] mag;
    reg inexact;
    reg unused_mag;
    begin
      mant = p[LodPreMantLsb +: 24];
      nsh = p[LodPreNshLsb +: 8];
      // Unsaturated, nsh > 8 and the magnitude is below 2^15; from nsh = 24 on it is 0,
      // which the 5-bit shift gives up to 31.
      mag = (|nsh[7:5]) ? 24'd0 : (mant >> nsh[4:0]);
      unused_mag = ^mag[23:15];
      // Bits shifted out below the binary point make a negative value floor one lower.
      inexact = ((mant & p[LodPreLowLsb +: 24]) != 24'd0);
      if (p[LodPreNanLsb]) begin
        lod_post = {17'd0, 1'b0};
      end else if (p[LodPreSatLsb]) begin
        lod_post = {p[LodPreNegLsb] ? 17'h18000 : 17'h07fff, 1'b0};
      end else if (!p[LodPreNegLsb]) begin
        lod_post = {2'b00, mag[14:0], 1'b0};
      end else begin
        lod_post = {2'b11, ~mag[14:0], ~inexact};  // {1, ~mag} = -mag - 1
      end
    end
  endfunction

  // Six stages: A0 takes the explicit LOD's exponent apart and decides whether it
  // saturates, A shifts it (x + c); B biases and clamps each quad's LOD; C1 compares it
  // with the switch-over and the last level; C2 picks magnification or the level(s) and
  // the blend; D works out the levels' sizes and bases. A skid register after each where
  // the clock needs it (src/iface/tmu.rs's LodPipe), else neighbouring stages share a
  // clock; at {{ target_mhz }} MHz:
  //   {{ lod_clocks }}
  // The clamp's upper end, max(min_lod, max_lod), from the descriptor beside the exponent.
  wire signed [15:0] sel_min = sel_p[P0MinLodLsb +: 16];
  wire signed [15:0] sel_max = sel_p[P0MaxLodLsb +: 16];
  wire signed [15:0] sel_hi = (sel_max < sel_min) ? sel_min : sel_max;
  localparam integer SelA0W = P0W + Quads*16 + LodPreW + 16;  // {lod_hi, lod_pre, lambda_ds, sample}
  wire sa0_valid;
  wire sa0_ready;
  wire [SelA0W-1:0] sa0_data;
{%- call hs::stage(lod_regs[0], "u_sel_exp", "SelA0W", "sel_valid", "sel_ready", "{sel_hi, lod_pre(sel_p[P0LodLsb +: 32]), lambda_ds, sel_p}", "sa0_valid", "sa0_ready", "sa0_data") %}{% endcall %}
  wire [17:0] lod_xc = lod_post(sa0_data[P0W + Quads*16 +: LodPreW]);
  // The clamp's ends moved to the LOD's side of the bias (x + bias < min when x < min -
  // bias), so that the next clock compares x and adds the bias side by side: nlo_b is
  // bias - min, hi_b is max - bias.
  wire signed [15:0] sa0_hi = sa0_data[P0W + Quads*16 + LodPreW +: 16];
  wire signed [15:0] sa0_bias = sa0_data[P0BiasLsb +: 16];
  wire signed [15:0] sa0_min = sa0_data[P0MinLodLsb +: 16];
  wire signed [17:0] nlo_b = $signed({{ "{{" }}2{sa0_bias[15]}}, sa0_bias}) - $signed({{ "{{" }}2{sa0_min[15]}}, sa0_min});
  wire signed [16:0] hi_b = $signed({sa0_hi[15], sa0_hi}) - $signed({sa0_bias[15], sa0_bias});
  localparam integer SelAW = P0W + Quads*16 + 18 + 16 + 18 + 17;  // {hi_b, nlo_b, lod_hi, lod_xc, lambda_ds, sample}
  wire sa_valid;
  wire sa_ready;
  wire [SelAW-1:0] sa_data;
{%- call hs::stage(lod_regs[1], "u_sel_lod", "SelAW", "sa0_valid", "sa0_ready", "{hi_b, nlo_b, sa0_hi, lod_xc, sa0_data[P0W + Quads*16 - 1:0]}", "sa_valid", "sa_ready", "sa_data") %}{% endcall %}
  wire [P0W-1:0] sa_p = sa_data[P0W-1:0];
  wire sa_lod_c = sa_data[P0W + Quads*16];
  wire [16:0] sa_lod_x = sa_data[P0W + Quads*16 + 1 +: 17];
  wire [15:0] bias = sa_p[P0BiasLsb +: 16];
  wire signed [15:0] min_lod = sa_p[P0MinLodLsb +: 16];
  wire signed [15:0] lod_hi = sa_data[P0W + Quads*16 + 18 +: 16];
  wire [17:0] sa_nlo_b = sa_data[P0W + Quads*16 + 34 +: 18];
  wire [16:0] sa_hi_b = sa_data[P0W + Quads*16 + 52 +: 17];
  wire has_lod = sa_p[P0HasLodLsb];
  wire [Quads*17-1:0] lambdas;
  generate
    for (gp = 0; gp < Quads; gp = gp + 1) begin : g_clamp
      wire [15:0] lambda_d = sa_data[P0W + gp*16 +: 16];
      // The LOD is x + c; each sum takes c in at its bottom ({a, 1} + {b, c} = 2(a + b + c) + ~c).
      wire [16:0] x = has_lod ? sa_lod_x : {lambda_d[15], lambda_d};
      wire c = has_lod & sa_lod_c;
      // x + c < min - bias: x + c + (bias - min) is negative.
      wire [18:0] lt_sum = {x[16], x, 1'b1} + {sa_nlo_b, c};
      // x + c > max - bias: (max - bias) + ~x + ~c = (max - bias) - x - c is negative.
      wire [18:0] gt_sum = {sa_hi_b[16], sa_hi_b, 1'b1} + {~x[16], ~x, ~c};
      wire [17:0] b_sum = {x, 1'b1} + {bias[15], bias, c};
      wire unused_sums;
      assign unused_sums = ^{lt_sum[17:0], gt_sum[17:0], b_sum[0]};
      assign lambdas[gp*17 +: 17] = lt_sum[18] ? {min_lod[15], min_lod}
                                  : gt_sum[18] ? {lod_hi[15], lod_hi}
                                  : b_sum[17:1];
    end
  endgenerate
  // The sample's filter class and last level, and the switch-over, beside the clamp: C1's
  // compares then start at flops (the last level's saturation in front of the compare's
  // carry chain was the default TMU's path, 8.5 ns).
  wire [2:0] min_code = sa_p[P0CtrlLsb + CtrlMinFilterLsb +: 3];
  wire [2:0] mag_code = {2'd0, sa_p[P0CtrlLsb + CtrlMagLinearLsb]};
  wire [2:0] min_f = FilterMask[min_code] ? min_code : FilterFallback;
  wire [2:0] mag_f = FilterMask[mag_code] ? mag_code : FilterFallback;
  wire [LgW-1:0] sa_last = sat_log2(sa_p[P0CtrlLsb + CtrlLastLevelLsb +: LgW]);
  // GL's switch-over point c: 1/2 for LINEAR magnification with a NEAREST_MIPMAP minifier.
  wire sa_c_half = (mag_f == FilterLinear) & ((min_f == FilterNearestMipmapNearest) | (min_f == FilterNearestMipmapLinear));
  // The minifier's class: one level rounded, two levels blended, or level 0 (bit 0 of a
  // filter code: linear within a level).
  wire mip_near = (min_f == FilterNearestMipmapNearest) | (min_f == FilterLinearMipmapNearest);
  wire mip_lin = (min_f == FilterNearestMipmapLinear) | (min_f == FilterLinearMipmapLinear);
  wire [ClassW-1:0] sa_class;
  assign sa_class[ClassMipNearLsb]     = mip_near;
  assign sa_class[ClassMipLinLsb]      = mip_lin;
  assign sa_class[ClassMinLinLsb]      = min_f[0];
  assign sa_class[ClassMagLinLsb]      = mag_f[0];
  assign sa_class[ClassLastLsb +: LgW] = sa_last;
  localparam integer SelBW = P0W + Quads*17 + ClassW + 1;  // {c_half, class, lambda, sample}
  wire pick_valid;
  wire pick_ready;
  wire [SelBW-1:0] sb_data;
{%- call hs::stage(lod_regs[2], "u_sel_lambda", "SelBW", "sa_valid", "sa_ready", "{sa_c_half, sa_class, lambdas, sa_p}", "pick_valid", "pick_ready", "sb_data") %}{% endcall %}
  wire [P0W-1:0] pick_p = sb_data[P0W-1:0];
{%- else %}
  wire pick_valid = sel_valid;
  wire pick_ready;
  assign sel_ready = pick_ready;
  wire [P0W-1:0] pick_p = sel_p;
{%- endif %}
{%- if lod %}
  // Stage C1: per quad, lambda's compares (magnification's switch-over, the last level,
  // the levels rounded and floored), with B's filter class, into a register, so that C2
  // is selects only (the compares' carry chains then four selects in one clock
  // were the default TMU's path, 9.7-11.3 ns).
  wire [ClassW-1:0] pick_class = sb_data[P0W + Quads*17 +: ClassW];
  wire c_half = sb_data[P0W + Quads*17 + ClassW];
  wire [LgW-1:0] last = pick_class[ClassLastLsb +: LgW];
  wire [Quads*CmpW-1:0] cmps;
  generate
    for (gp = 0; gp < Quads; gp = gp + 1) begin : g_cmp
      wire signed [16:0] lambda = sb_data[P0W + gp*17 +: 17];
      wire mag = (lambda <= (c_half ? 17'sd128 : 17'sd0));
      wire gt_half = (lambda > 17'sd128);
      // Level ceil(lambda + 1/2) - 1 = floor((lambda + 127) / 256) (lambda > 1/2 where it
      // is used) and floor(lambda), 8 bits. lambda + 127 < 2^16: bit 16 stays zero, and
      // bits 7:0 are the fraction dropped.
      wire [16:0] near_sum = lambda[16:0] + 17'd127;
      wire [7:0] near_d = near_sum[15:8];
      wire [7:0] floor_d = lambda[15:8];
      // The last level at the width it is compared at.
      wire [7:0] last8 = {{ "{{" }}(8 - LgW){1'b0}}, last};
      // near_d > last is lambda + 127 >= (last + 1) * 256, lambda > last * 256 + 128: a
      // compare of lambda itself, beside the sum rather than after it.
      wire past_last = ($signed(lambda) > $signed({1'b0, last8, 8'h80}));
      wire floor_ge = (floor_d >= last8);
      wire [LgW-1:0] floor_up = floor_d[LgW-1:0] + {{ "{{" }}(LgW - 1){1'b0}}, 1'b1};
      wire unused_cmp;
      assign unused_cmp = ^{near_sum[16], near_sum[7:0], near_d, floor_d};  // LgW bits of each are a level
      assign cmps[gp*CmpW + CmpMagLsb]            = mag;
      assign cmps[gp*CmpW + CmpGtHalfLsb]         = gt_half;
      assign cmps[gp*CmpW + CmpPastLastLsb]       = past_last;
      assign cmps[gp*CmpW + CmpFloorGeLsb]        = floor_ge;
      assign cmps[gp*CmpW + CmpNearLsb +: LgW]    = near_d[LgW-1:0];
      assign cmps[gp*CmpW + CmpFloorLsb +: LgW]   = floor_d[LgW-1:0];
      assign cmps[gp*CmpW + CmpFloorUpLsb +: LgW] = floor_up;
      assign cmps[gp*CmpW + CmpFracLsb +: BlendW] = lambda[7:0];
    end
  endgenerate
  localparam integer SelC1W = P0W + ClassW + Quads*CmpW;  // {compares, class, sample}
  wire lvl_valid;
  wire lvl_ready;
  wire [SelC1W-1:0] sc1_data;
{%- call hs::stage(lod_regs[3], "u_sel_cmp", "SelC1W", "pick_valid", "pick_ready", "{cmps, pick_class, pick_p}", "lvl_valid", "lvl_ready", "sc1_data") %}{% endcall %}
  wire [P0W-1:0] lvl_p = sc1_data[P0W-1:0];
  wire [ClassW-1:0] lvl_class = sc1_data[P0W +: ClassW];
  wire lvl_mip_near = lvl_class[ClassMipNearLsb];
  wire lvl_mip_lin = lvl_class[ClassMipLinLsb];
  wire lvl_min_lin = lvl_class[ClassMinLinLsb];
  wire lvl_mag_lin = lvl_class[ClassMagLinLsb];
  wire [LgW-1:0] lvl_last = lvl_class[ClassLastLsb +: LgW];
  // Stage C2: per quad, magnification or the level(s) and the blend, selects of C1's
  // registers.
  wire [Quads*PickW-1:0] picks;
  generate
    for (gp = 0; gp < Quads; gp = gp + 1) begin : g_pick
      wire [CmpW-1:0] cmp = sc1_data[P0W + ClassW + gp*CmpW +: CmpW];
      wire mag = cmp[CmpMagLsb];
      wire gt_half = cmp[CmpGtHalfLsb];
      wire past_last = cmp[CmpPastLastLsb];
      wire floor_ge = cmp[CmpFloorGeLsb];
      wire [LgW-1:0] near_d = cmp[CmpNearLsb +: LgW];
      wire [LgW-1:0] floor_d = cmp[CmpFloorLsb +: LgW];
      wire [LgW-1:0] floor_up = cmp[CmpFloorUpLsb +: LgW];
      wire [BlendW-1:0] frac = cmp[CmpFracLsb +: BlendW];
      reg [LgW-1:0] d1;
      reg [LgW-1:0] d2;
      reg [BlendW-1:0] blend;
      reg linear;
      always @(*) begin
        d1     = {LgW{1'b0}};
        d2     = {LgW{1'b0}};
        blend  = {BlendW{1'b0}};
        linear = lvl_min_lin;
        if (mag) begin
          linear = lvl_mag_lin;
        end else if (lvl_mip_near) begin
          if (gt_half) d1 = past_last ? lvl_last : near_d;
        end else if (lvl_mip_lin) begin
          if (floor_ge) begin
            d1 = lvl_last;
            d2 = lvl_last;
          end else begin
            d1    = floor_d;
            d2    = floor_up;
            blend = frac;
          end
        end
      end
      assign picks[gp*PickW + PickD1Lsb +: LgW]       = d1;
      assign picks[gp*PickW + PickD2Lsb +: LgW]       = d2;
      assign picks[gp*PickW + PickBlendLsb +: BlendW] = blend;
      assign picks[gp*PickW + PickLinearLsb]          = linear;
    end
  endgenerate
  // The texture's level bases, read here beside the level choice (descriptor writes wait
  // for an idle unit, so they are the ones the sample would read later).
  wire [TexW-1:0] lvl_tex = lvl_p[P0TexLsb +: TexW];
  wire lvl_tex_ok = ({1'b0, lvl_tex} < Textures[TexW:0]);
  wire [MipLevels*AddrW-1:0] lvl_bases = lvl_tex_ok ? base_all[lvl_tex*(MipLevels*AddrW) +: MipLevels*AddrW]
                                                    : {(MipLevels*AddrW){1'b0}};
  localparam integer SelCW = P0W + Quads*PickW + MipLevels*AddrW;  // {bases, picks, sample}
  wire plan_valid;
  wire plan_ready;
  wire [SelCW-1:0] sc_data;
{%- call hs::stage(lod_regs[4], "u_sel_level", "SelCW", "lvl_valid", "lvl_ready", "{lvl_bases, picks, lvl_p}", "plan_valid", "plan_ready", "sc_data") %}{% endcall %}
  wire [P0W-1:0] plan_p = sc_data[P0W-1:0];
  // Stage D: the levels' sizes and bases, and the plan.
  wire [CtrlW-1:0] ctrl = plan_p[P0CtrlLsb +: CtrlW];
  // Used up in stages A to C (synthesis drops their flops here).
  wire unused_plan;
  assign unused_plan = ^{plan_p[P0LodLsb +: 32], plan_p[P0HasLodLsb], plan_p[P0BiasLsb +: 16],
                         plan_p[P0MinLodLsb +: 16], plan_p[P0MaxLodLsb +: 16],
                         ctrl[CtrlMinFilterLsb +: 3], ctrl[CtrlMagLinearLsb],
                         ctrl[CtrlLastLevelLsb +: LgW]};
{%- else %}
  wire plan_valid = pick_valid;
  wire plan_ready;
  assign pick_ready = plan_ready;
  wire [P0W-1:0] plan_p = pick_p;
  wire [CtrlW-1:0] ctrl = plan_p[P0CtrlLsb +: CtrlW];
  // Without LOD hardware the descriptor's LOD fields, the filter codes and the level
  // count go unread.
  wire unused_plan;
  assign unused_plan = ^plan_p;
  wire unused_ctrl;
  assign unused_ctrl = ^ctrl;
{%- endif %}
  wire [WrapW-1:0] wrap_s = WrapMask[ctrl[CtrlWrapSLsb +: WrapW]] ? ctrl[CtrlWrapSLsb +: WrapW] : WrapFallback;
  wire [WrapW-1:0] wrap_t = WrapMask[ctrl[CtrlWrapTLsb +: WrapW]] ? ctrl[CtrlWrapTLsb +: WrapW] : WrapFallback;
  wire [LgW-1:0] lw = sat_log2(ctrl[CtrlLog2WidthLsb +: LgW]);
  wire [LgW-1:0] lh = sat_log2(ctrl[CtrlLog2HeightLsb +: LgW]);
  // The texture's level bases{% if lod %} (read in stage C){% else %}, chosen while its levels are worked out{% endif %}; each
  // quad then picks its level(s) among them (no offset arithmetic in front of the
  // multiplexer).
{%- if lod %}
  wire [MipLevels*AddrW-1:0] sel_bases = sc_data[P0W + Quads*PickW +: MipLevels*AddrW];
  wire unused_tex;
  assign unused_tex = ^plan_p[P0TexLsb +: TexW];
{%- else %}
  wire [TexW-1:0] sel_tex = plan_p[P0TexLsb +: TexW];
  wire tex_ok = ({1'b0, sel_tex} < Textures[TexW:0]);
  wire [MipLevels*AddrW-1:0] sel_bases = tex_ok ? base_all[sel_tex*(MipLevels*AddrW) +: MipLevels*AddrW]
                                                : {(MipLevels*AddrW){1'b0}};
{%- endif %}

  wire [Quads*QuadW-1:0] plan_quads;
  wire [PlanW-1:0] plan;
  assign plan[PlanLanesLsb +: LanesW]       = plan_p[P0LanesLsb +: LanesW];
  assign plan[PlanFormatLsb +: FormatW]     = ctrl[CtrlFormatLsb +: FormatW];
  assign plan[PlanWrapSLsb +: WrapW]        = wrap_s;
  assign plan[PlanWrapTLsb +: WrapW]        = wrap_t;
  assign plan[PlanQuadsLsb +: Quads*QuadW]  = plan_quads;
  generate
    for (gp = 0; gp < Quads; gp = gp + 1) begin : g_sel
{%- if lod %}
      wire [PickW-1:0] pick = sc_data[P0W + gp*PickW +: PickW];
      wire [LgW-1:0] d1 = pick[PickD1Lsb +: LgW];
      wire [LgW-1:0] d2 = pick[PickD2Lsb +: LgW];
      wire [BlendW-1:0] blend = pick[PickBlendLsb +: BlendW];
      wire linear = pick[PickLinearLsb];
{%- else %}
      // One filter: every code reads as it, at level 0.
      wire [LgW-1:0] d1 = {LgW{1'b0}};
      wire [LgW-1:0] d2 = {LgW{1'b0}};
      wire [BlendW-1:0] blend = {BlendW{1'b0}};
      wire linear = FilterFallback[0];
{%- endif %}

      // Level geometry: sides shrink to 1, and each level's first word.
      wire [LgW-1:0] lw1 = (lw > d1) ? lw - d1 : {LgW{1'b0}};
      wire [LgW-1:0] lh1 = (lh > d1) ? lh - d1 : {LgW{1'b0}};
      wire [LgW-1:0] lw2 = (lw > d2) ? lw - d2 : {LgW{1'b0}};
      wire [LgW-1:0] lh2 = (lh > d2) ? lh - d2 : {LgW{1'b0}};
      // d1, d2 <= the last level <= MipLevels - 1: always inside sel_bases.
      wire [AddrW-1:0] base1 = sel_bases[d1*AddrW +: AddrW];
      wire [AddrW-1:0] base2 = sel_bases[d2*AddrW +: AddrW];
      wire [QuadW-1:0] pq;
      wire [LevelW-1:0] level1;
      wire [LevelW-1:0] level2;
      assign level1[LevelLwLsb +: LgW]    = lw1;
      assign level1[LevelLhLsb +: LgW]    = lh1;
      assign level1[LevelBaseLsb +: AddrW] = base1;
      assign level2[LevelLwLsb +: LgW]    = lw2;
      assign level2[LevelLhLsb +: LgW]    = lh2;
      assign level2[LevelBaseLsb +: AddrW] = base2;
      assign pq[PlanQuadBlendLsb +: BlendW]  = blend;
      assign pq[PlanQuadTriLsb]              = |blend;
      assign pq[PlanQuadLinearLsb]           = linear;
      assign pq[PlanQuadLevel1Lsb +: LevelW] = level1;
      assign pq[PlanQuadLevel2Lsb +: LevelW] = level2;
      assign plan_quads[gp*QuadW +: QuadW] = pq;
    end
  endgenerate

{%- if credits %}
  wire q_valid;
  wire q_ready;
  wire [PlanW-1:0] q_data;
{%- call hs::queue("PlanW", "d_take", "d_in_ready", "plan_valid", "plan_ready", "plan", "q_valid", "q_ready", "q_data") %}{% endcall %}
{%- endif %}

  {{ skid }} #(
    .Width (PlanW)
  ) u_out (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
{%- if credits %}
    .in_valid_i  (q_valid),
    .in_ready_o  (q_ready),
    .in_data_i   (q_data),
{%- else %}
    .in_valid_i  (plan_valid),
    .in_ready_o  (plan_ready),
    .in_data_i   (plan),
{%- endif %}
    .out_valid_o (out_valid_o),
    .out_ready_i (out_ready_i),
    .out_data_o  (out_data_o)
  );

  // Samples past the input register and not yet out: a write waits for none.
  wire leave = out_valid_o & out_ready_i;
  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      inflight_q <= {InflW{1'b0}};
    end else if (s0_go & s0_ready & ~leave) begin
      inflight_q <= inflight_q + 1'b1;
    end else if (leave & ~(s0_go & s0_ready)) begin
      inflight_q <= inflight_q - 1'b1;
    end
  end

endmodule
