{{ stamp }}
// {{ name }}: the texture mapping unit (seed 001): LOD and level choice ({{ lod }}), texel
// address generation ({{ addr }}), the texture cache ({{ cache }}), and the format
// converters and filter lanes ({{ filter }}), in that order, joined by valid/ready.
//
// req_data_i: a command: a texture descriptor write or a sample request ({{ lod }}'s header;
//             src/model/tmu/unit.rs has the descriptor registers).
// rsp_data_o: one response per sample request, in order: {{ lanes }} lane(s) of {{ out_desc }},
//             lane 0 lowest; masked lanes and disabled formats read as zero.
// mem_*:      the cache's line fills (byte address, {{ bus_bits }}-bit beats).
//
// The cache answers in request order, so what the filter needs besides the texel words
// (weights, texel indices, pass, blends, format) waits in a FIFO of {{ side_depth }} passes beside it,
// enough for every pass the cache can hold. A DXT1 pass reads two words a texel (the
// block's colours, then its indices) with two cache requests, so DXT1 runs at half rate.
{%- if join_stage %}
// The join of the two has a register on each side (decided in src/iface/tmu.rs for
// {{ target_mhz }} MHz): the cache's responses come through a skid, the filter's requests
// go through a bubble register, so its control starts and ends at flops.
{%- endif %}
// Combinational paths: none between ports.
module {{ name }} #(
  parameter integer SideDepth = {{ side_depth }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire req_valid_i,
  output wire req_ready_o,
  input wire [{{ req_w - 1 }}:0] req_data_i,
  output wire rsp_valid_o,
  input wire rsp_ready_i,
  output wire [{{ rsp_w - 1 }}:0] rsp_data_o,
  output wire mem_req_valid_o,
  input wire mem_req_ready_i,
  output wire [31:0] mem_req_addr_o,
  input wire mem_rsp_valid_i,
  output wire mem_rsp_ready_o,
  input wire [{{ bus_bits - 1 }}:0] mem_rsp_data_i
);

  localparam integer Lanes = {{ lanes }};
  localparam integer Quads = {{ quads }};
  localparam integer Ports = 4 * Lanes;
  localparam integer WBits = {{ wbits }};
  localparam integer SubW = {{ sub_w }};
  localparam integer PlanW = {{ plan_w }};
  localparam integer PassW = {{ pass_w }};
  localparam integer SideW = {{ side_w }};  // pair, pass, blend per quad, format, lanes
  localparam integer SLaneW = {{ s_lane_w }};  // active, a, b, subs
{%- for f in word_lsbs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer CRspW = {{ crsp_w }};  // a cache response: words, then hit and miss counts
  localparam integer CRspHitsLsb = {{ crsp_hits_lsb }};
  localparam integer TexW = {{ filter_tex_w }};  // a texel of a filter request
  localparam integer FLaneW = {{ filter_lane_w }};  // a lane of a filter request
  localparam integer FReqW = {{ filter_req_w }};  // a filter request
{%- for f in filter_lsbs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
{%- for w in widths %}
  localparam integer {{ w.0 }} = {{ w.1 }};  // {{ w.2 }}
{%- endfor %}

  // ---------------------------------------------------------------------------------
  // LOD and level choice, then texel addresses.
  wire plan_valid;
  wire plan_ready;
  wire [PlanW-1:0] plan_data;

  {{ lod }} u_lod (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (req_valid_i),
    .in_ready_o  (req_ready_o),
    .in_data_i   (req_data_i),
    .out_valid_o (plan_valid),
    .out_ready_i (plan_ready),
    .out_data_o  (plan_data)
  );

  wire pass_valid;
  wire pass_ready;
  wire [PassW-1:0] pass_data;

  {{ addr }} u_addr (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (plan_valid),
    .in_ready_o  (plan_ready),
    .in_data_i   (plan_data),
    .out_valid_o (pass_valid),
    .out_ready_i (pass_ready),
    .out_data_o  (pass_data)
  );

  // ---------------------------------------------------------------------------------
  // Issue: each pass to the cache (twice for DXT1: the second request reads each block's
  // index word) and its filter fields to the side FIFO, once.
  reg aux_q;
  wire side_in_ready;
  wire creq_ready;
  wire [SideW-1:0] side_in = pass_data[PassSideLsb +: SideW];
  wire pass_pair = side_in[SidePairLsb];
{%- if join_stage && dxt1 %}
  // A side entry: the side word and, above it, the pair flag's copy for the join's
  // control (inverted, "single", so that synthesis keeps it apart from the pair flag,
  // whose selects reach every texel word).
  localparam integer EntryW = SideW + 1;
  wire [EntryW-1:0] entry_in = {~pass_pair, side_in};
{%- else %}
  localparam integer EntryW = SideW;
  wire [EntryW-1:0] entry_in = side_in;
{%- endif %}
  wire [Ports-1:0] active = pass_data[PassActiveLsb +: Ports];
  wire [Ports*AddrW-1:0] addrs;
  genvar gp;
  generate
    for (gp = 0; gp < Ports; gp = gp + 1) begin : g_issue
      assign addrs[gp*AddrW +: AddrW] = pass_data[PassAddrsLsb + gp*AddrW +: AddrW] + {{ "{{" }}(AddrW - 1){1'b0}}, aux_q};
    end
  endgenerate
  wire creq_valid = pass_valid & (aux_q | side_in_ready);
  wire creq_go = creq_valid & creq_ready;
  assign pass_ready = creq_ready & (aux_q | side_in_ready) & (~pass_pair | aux_q);

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      aux_q <= 1'b0;
    end else if (creq_go) begin
      aux_q <= pass_pair & ~aux_q;
    end
  end

  wire side_valid;
  wire side_ready;
  wire [EntryW-1:0] entry_data;
  wire [SideW-1:0] side_data = entry_data[SideW-1:0];
  wire unused_side_data;
  assign unused_side_data = ^side_data;  // the pair bit is unused without DXT1

{%- if side_stage %}
  // The FIFO's head goes through a skid register to the join: a read of SideDepth entries
  // is a deep select, and with the filter's input control behind it does not fit a
  // {{ target_mhz }} MHz clock (decided in src/iface/tmu.rs). Entries wait for their
  // texels far longer than the extra clock.
  wire sfifo_valid;
  wire sfifo_ready;
  wire [EntryW-1:0] sfifo_data;
{%- endif %}

  {{ fifo }} #(
    .Width (EntryW),
    .Depth (SideDepth)
  ) u_side (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (pass_valid & ~aux_q & creq_ready),
    .in_ready_o  (side_in_ready),
    .in_data_i   (entry_in),
{%- if side_stage %}
    .out_valid_o (sfifo_valid),
    .out_ready_i (sfifo_ready),
    .out_data_o  (sfifo_data)
  );

  {{ skid }} #(
    .Width (EntryW)
  ) u_side_head (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (sfifo_valid),
    .in_ready_o  (sfifo_ready),
    .in_data_i   (sfifo_data),
    .out_valid_o (side_valid),
    .out_ready_i (side_ready),
    .out_data_o  (entry_data)
  );
{%- else %}
    .out_valid_o (side_valid),
    .out_ready_i (side_ready),
    .out_data_o  (entry_data)
  );
{%- endif %}

  wire crsp_valid;
  wire crsp_ready;
  // The cache's hit and miss counts (the top 16 bits) are for its own co-simulation.
  wire [CRspW-1:0] crsp_data;
  wire unused_crsp_data;
  assign unused_crsp_data = ^crsp_data[CRspW-1:CRspHitsLsb];

  {{ cache }} u_cache (
    .clk_i           (clk_i),
    .{{ rst.port }}{{ cache_pad }} ({{ rst.port }}),
    .req_valid_i     (creq_valid),
    .req_ready_o     (creq_ready),
    .req_data_i      ({1'b0, active, addrs}),
    .rsp_valid_o     (crsp_valid),
    .rsp_ready_i     (crsp_ready),
    .rsp_data_o      (crsp_data),
    .mem_req_valid_o (mem_req_valid_o),
    .mem_req_ready_i (mem_req_ready_i),
    .mem_req_addr_o  (mem_req_addr_o),
    .mem_rsp_valid_i (mem_rsp_valid_i),
    .mem_rsp_ready_o (mem_rsp_ready_o),
    .mem_rsp_data_i  (mem_rsp_data_i)
  );

  // The texel words the join reads.
  wire jrsp_valid;
  wire jrsp_ready;
  wire [Ports*WordW-1:0] jrsp_data;
{%- if join_stage %}

  {{ skid }} #(
    .Width (Ports*WordW)
  ) u_rsp_head (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (crsp_valid),
    .in_ready_o  (crsp_ready),
    .in_data_i   (crsp_data[Ports*WordW-1:0]),
    .out_valid_o (jrsp_valid),
    .out_ready_i (jrsp_ready),
    .out_data_o  (jrsp_data)
  );
{%- else %}
  assign jrsp_valid = crsp_valid;
  assign crsp_ready = jrsp_ready;
  assign jrsp_data  = crsp_data[Ports*WordW-1:0];
{%- endif %}

  // ---------------------------------------------------------------------------------
  // Join: texel words with their side entry into a filter request. The first response
  // of a DXT1 pair (the colour words) waits in a register for the second.
  wire freq_ready;
{%- if dxt1 %}
  wire side_pair = side_data[SidePairLsb];
{%- if join_stage %}
  wire side_single = entry_data[SideW];
{%- else %}
  wire side_single = ~side_pair;
{%- endif %}
  reg have_q;
  reg [Ports*WordW-1:0] colour_q;
  wire complete = side_valid & jrsp_valid & (side_single | have_q);
  wire latch = side_valid & jrsp_valid & ~side_single & ~have_q;
  assign jrsp_ready = latch | (complete & freq_ready);
  assign side_ready = complete & freq_ready;

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      have_q <= 1'b0;
    end else if (latch) begin
      have_q <= 1'b1;
    end else if (side_ready) begin
      have_q <= 1'b0;
    end
  end

  always @(posedge clk_i) begin
    if (latch) colour_q <= jrsp_data;
  end
{%- else %}
  // No DXT1: every pass is one cache response (the pair bit stays 0).
  wire complete = side_valid & jrsp_valid;
  assign jrsp_ready = complete & freq_ready;
  assign side_ready = complete & freq_ready;
{%- endif %}

  wire [Lanes*FLaneW-1:0] f_lanes;
  genvar gi;
  genvar gk;
  generate
    for (gi = 0; gi < Lanes; gi = gi + 1) begin : g_join
      wire [SLaneW-1:0] sl = side_data[SideLanesLsb + gi*SLaneW +: SLaneW];
      wire [FLaneW-1:0] fl;
      for (gk = 0; gk < 4; gk = gk + 1) begin : g_texel
        wire [WordW-1:0] now = jrsp_data[(4*gi + gk)*WordW +: WordW];
        wire [TexW-1:0] tex;
        assign tex[FTexSubLsb +: SubW] = sl[SLaneSubsLsb + gk*SubW +: SubW];
{%- if dxt1 %}
        // A DXT1 pair: the colour words came first, the index words now.
        wire [WordW-1:0] first = colour_q[(4*gi + gk)*WordW +: WordW];
        assign tex[FTexWordLsb +: WordW] = side_pair ? first : now;
        assign tex[FTexAuxLsb +: WordW]  = side_pair ? now : {WordW{1'b0}};
{%- else %}
        assign tex[FTexWordLsb +: WordW] = now;
{%- endif %}
        assign fl[FLaneTexelsLsb + gk*TexW +: TexW] = tex;
      end
      assign fl[FLaneActiveLsb]     = sl[SLaneActiveLsb];
      assign fl[FLaneALsb +: WBits] = sl[SLaneALsb +: WBits];
      assign fl[FLaneBLsb +: WBits] = sl[SLaneBLsb +: WBits];
      assign f_lanes[gi*FLaneW +: FLaneW] = fl;
    end
  endgenerate

  // The filter request, by the filter's own table (iface::tex_filter).
  wire [FReqW-1:0] freq_data;
  assign freq_data[FReqLanesLsb +: Lanes*FLaneW]   = f_lanes;
  assign freq_data[FReqFormatLsb +: FormatW]       = side_data[SideFormatLsb +: FormatW];
  assign freq_data[FReqBlendsLsb +: Quads*BlendW]  = side_data[SideBlendsLsb +: Quads*BlendW];
  assign freq_data[FReqPassLsb +: PassCodeW]       = side_data[SidePassLsb +: PassCodeW];

  // The filter request's register (its ready is the filter's room flop, so the bubble's
  // load reads two flops), or the join straight into the filter.
  wire fin_valid;
  wire fin_ready;
  wire [FReqW-1:0] fin_data;
{%- if join_stage %}

  {{ bubble }} #(
    .Width (FReqW)
  ) u_filter_in (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (complete),
    .in_ready_o  (freq_ready),
    .in_data_i   (freq_data),
    .out_valid_o (fin_valid),
    .out_ready_i (fin_ready),
    .out_data_o  (fin_data)
  );
{%- else %}
  assign fin_valid  = complete;
  assign freq_ready = fin_ready;
  assign fin_data   = freq_data;
{%- endif %}

  {{ filter }} u_filter (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .req_valid_i (fin_valid),
    .req_ready_o (fin_ready),
    .req_data_i  (fin_data),
    .rsp_valid_o (rsp_valid_o),
    .rsp_ready_i (rsp_ready_i),
    .rsp_data_o  (rsp_data_o)
  );

endmodule
