{{ stamp }}
// {{ name }}: the texture cache's merge stage. A request's {{ ports }} texels fall on a few
// lines (a 2x2 footprint of 4x4 tiles touches at most four); the tag unit looks lines up,
// {{ tag_ports }} a clock, not texels. This folds each request onto its distinct lines, in the
// order of their first texels, and hands them to the tag unit in groups of {{ tag_ports }}: a
// request with more lines takes a clock a group. Beside each group goes a side word for
// the expand stage behind the tag unit: per texel, whether it is in the group, the tag
// port that looks its line up and its word offset in the line. src/model/tex_cache.rs
// looks lines up in the same order.
//
// Pipeline, valid/ready, one request a clock while it has at most {{ tag_ports }} lines:
//   eq     per pair of texels j < i: texel j is active and on texel i's line.
//   lead   per texel: whether it is its line's first active texel (it leads the line);
//          per pair j < i: texel j leads a line whose first texel comes before texel
//          i's line's.
//   count  per texel: the count of those, its line's rank among the request's lines;
//          the request's active texels and lines, and its last group.
//   emit   group g: tag port p takes the line ranked g * {{ tag_ports }} + p (an AND-OR over the
//          leaders); the group and its side word leave through a skid register.
// At {{ target_mhz }} MHz the schedule (iface::tex_cache::MergePipe) gives eq, lead and count
// {% if reg_eq %}a register{% else %}no register{% endif %}, {% if reg_lead %}a register{% else %}no register{% endif %} and {% if reg_count %}a register{% else %}no register{% endif %} after them.
// tag_data_o: the tag unit's request (rtl::tex_cache::tag_req_fields): {count, first,
//             inv, active[{{ tag_ports }}], word address[{{ tag_ports }}] x {{ aw }} bits}, port 0 lowest.
// side_data_o: {final, texel[{{ ports }}] x {in, lead, off}}, texel 0 lowest (side_fields).
// Combinational paths: none. in_ready_o is the first register's skid flop, the count
// the group loop reads is always registered (the schedule keeps that register at every
// clock), and out_valid_o and the data are the emit's skid's flops.
{%- import "rtl/hs_stage.v" as hs %}
module {{ name }} (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire in_valid_i,
  output wire in_ready_o,
  input wire [{{ req_w - 1 }}:0] in_data_i,
  output wire out_valid_o,
  input wire out_ready_i,
  output wire [{{ treq_w - 1 }}:0] tag_data_o,
  output wire [{{ side_w - 1 }}:0] side_data_o
);

  localparam integer Ports = {{ ports }};
  localparam integer TagPorts = {{ tag_ports }};
  localparam integer AddrW = {{ aw }};  // texel word address
  localparam integer OffW = {{ off_w }};  // word offset in a line
  localparam integer LineAddrW = {{ line_addr_w }};
  localparam integer CountW = {{ count_w }};
  localparam integer RankW = {{ rank_w }};  // a line's rank in its request, 0..Ports-1
  localparam integer LeadW = {{ lead_w }};  // a tag port in a group
  localparam integer GroupW = {{ group_w }};  // a group of a request
  localparam integer ReqW = {{ req_w }};
  localparam integer ReqActLsb = {{ req_act_lsb }};
  localparam integer ReqInvLsb = {{ req_inv_lsb }};
  localparam integer PairW = {{ pair_w }};  // pairs j < i, pair (i, j) at i * (i - 1) / 2 + j
  localparam integer TReqW = {{ treq_w }};
{%- for f in treq_fields %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer SideW = {{ side_w }};
  // The side word (rtl::tex_cache::side_fields and side_texel_fields).
{%- include "rtl/tex_cache_side.v" %}
  // The words between the stages, the request lowest: {eq, request}, {earlier, lead,
  // request}, {last group, active texels, ranks, lead, request}.
  localparam integer EW = PairW + ReqW;
  localparam integer LW = PairW + Ports + ReqW;
  localparam integer CW = GroupW + CountW + Ports * RankW + Ports + ReqW;
  localparam integer CLeadLsb = ReqW;
  localparam integer CRanksLsb = ReqW + Ports;
  localparam integer CNactLsb = CRanksLsb + Ports * RankW;
  localparam integer CLastLsb = CNactLsb + CountW;

  // Counts as balanced adder trees: a texel's earlier first uses (per texel, as many
  // bits as texels before it), the active texels and the lines.
{%- for r in rank_sums %}
  function [RankW-1:0] rank{{ r.0 }}(input [{{ r.0 - 1 }}:0] c);
    rank{{ r.0 }} = {{ r.2 }};
  endfunction
{%- endfor %}

  function [CountW-1:0] nact_of(input [Ports-1:0] a);
    nact_of = {{ nact_sum }};
  endfunction

  function [RankW:0] ndist_of(input [Ports-1:0] l);
    ndist_of = {{ ndist_sum }};
  endfunction

  genvar gi;
  genvar gj;

  // ---------------------------------------------------------------------------------
  // eq: the pairs' line compares.
  wire [PairW-1:0] eq;
  generate
    for (gi = 1; gi < Ports; gi = gi + 1) begin : g_eq_row
      for (gj = 0; gj < gi; gj = gj + 1) begin : g_eq
        assign eq[gi*(gi-1)/2 + gj] = in_data_i[ReqActLsb + gj] &&
            in_data_i[gj*AddrW + OffW +: LineAddrW] == in_data_i[gi*AddrW + OffW +: LineAddrW];
      end
    end
  endgenerate

  wire e_valid;
  wire e_ready;
  wire [EW-1:0] e_in = {eq, in_data_i};
  wire [EW-1:0] e_data;
{%- call hs::stage(reg_eq, "u_eq", "EW", "in_valid_i", "in_ready_o", "e_in", "e_valid", "e_ready", "e_data") %}{% endcall %}

  // ---------------------------------------------------------------------------------
  // lead: each texel's first use of its line, and the earlier first uses it counts.
  wire [ReqW-1:0] e_req = e_data[0 +: ReqW];
  wire [PairW-1:0] e_eq = e_data[ReqW +: PairW];
  wire [Ports-1:0] lead;
  wire [PairW-1:0] earlier;
  assign lead[0] = e_req[ReqActLsb] && !e_req[ReqInvLsb];
  generate
    for (gi = 1; gi < Ports; gi = gi + 1) begin : g_lead
      // Texel i's compares with every texel before it.
      wire [gi-1:0] row = e_eq[gi*(gi-1)/2 +: gi];
      assign lead[gi] = e_req[ReqActLsb + gi] && !e_req[ReqInvLsb] && row == {gi{1'b0}};
      for (gj = 0; gj < gi; gj = gj + 1) begin : g_earlier
        // Texel j leads a line, and no texel up to j is on texel i's line: texel i's
        // line first appears after texel j.
        assign earlier[gi*(gi-1)/2 + gj] = lead[gj] && row[gj:0] == {(gj+1){1'b0}};
      end
    end
  endgenerate

  wire l_valid;
  wire l_ready;
  wire [LW-1:0] l_in = {earlier, lead, e_req};
  wire [LW-1:0] l_data;
{%- call hs::stage(reg_lead, "u_lead", "LW", "e_valid", "e_ready", "l_in", "l_valid", "l_ready", "l_data") %}{% endcall %}

  // ---------------------------------------------------------------------------------
  // count: each line's rank, the request's active texels, lines and last group.
  wire [ReqW-1:0] l_req = l_data[0 +: ReqW];
  wire [Ports-1:0] l_lead = l_data[ReqW +: Ports];
  wire [PairW-1:0] l_earlier = l_data[ReqW + Ports +: PairW];
  wire [Ports*RankW-1:0] ranks;
  assign ranks[0 +: RankW] = {RankW{1'b0}};
{%- for r in rank_sums %}
  assign ranks[{{ r.0 }}*RankW +: RankW] = rank{{ r.0 }}(l_earlier[{{ r.1 }} +: {{ r.0 }}]);
{%- endfor %}
  wire [RankW:0] ndist = ndist_of(l_lead);
  wire [RankW:0] ndist_m1 = ndist - 1'b1;
  // A request with no line (an invalidate, or no active texel) is one group.
  wire [GroupW-1:0] last_group = (ndist == {(RankW+1){1'b0}}) ? {GroupW{1'b0}} : ndist_m1[RankW-1:LeadW];
  wire [CountW-1:0] nact = l_req[ReqInvLsb] ? {CountW{1'b0}} : nact_of(l_req[ReqActLsb +: Ports]);
  wire unused_ndist = ndist_m1[RankW] ^ (^ndist_m1[LeadW-1:0]);

  wire c_valid;
  wire c_ready;
  wire [CW-1:0] c_in = {last_group, nact, ranks, l_lead, l_req};
  wire [CW-1:0] c_data;
{%- call hs::stage(reg_count, "u_count", "CW", "l_valid", "l_ready", "c_in", "c_valid", "c_ready", "c_data") %}{% endcall %}

  // ---------------------------------------------------------------------------------
  // emit: one group a clock; the request moves on with its last.
  wire [ReqW-1:0] c_req = c_data[0 +: ReqW];
  wire [Ports-1:0] c_lead = c_data[CLeadLsb +: Ports];
  wire [CountW-1:0] c_nact = c_data[CNactLsb +: CountW];
  wire [GroupW-1:0] c_last = c_data[CLastLsb +: GroupW];
  reg [GroupW-1:0] group_q;
  wire o_ready;
  wire o_final = group_q == c_last;
  assign c_ready = o_ready && o_final;

  always @(posedge clk_i{{ rst.edge }}) begin : b_group
    if ({{ rst.active }}) begin
      group_q <= {GroupW{1'b0}};
    end else if (c_valid && o_ready) begin
      group_q <= o_final ? {GroupW{1'b0}} : group_q + 1'b1;
    end
  end

  wire [TReqW-1:0] t_word;
  wire [SideW-1:0] s_word;
  wire [TagPorts*AddrW-1:0] t_addrs;
  assign t_word[TReqAddrsLsb +: TagPorts*AddrW] = t_addrs;
  assign t_word[TReqInvLsb]   = c_req[ReqInvLsb];
  assign t_word[TReqFirstLsb] = group_q == {GroupW{1'b0}};
  assign t_word[TReqCountLsb +: CountW] = c_nact;
  assign s_word[SideFinalLsb] = o_final;

  genvar gp;
  generate
    for (gp = 0; gp < TagPorts; gp = gp + 1) begin : g_port
      localparam [LeadW-1:0] Port = gp;
      // The leader ranked {group, port}, one-hot (or none).
      wire [Ports-1:0] sel;
      reg [AddrW-1:0] addr;
      for (gi = 0; gi < Ports; gi = gi + 1) begin : g_sel
        assign sel[gi] = c_lead[gi] && c_data[CRanksLsb + gi*RankW +: RankW] == {group_q, Port};
      end
      always @(*) begin : b_pick
        integer i;
        addr = {AddrW{1'b0}};
        for (i = 0; i < Ports; i = i + 1) begin
          addr = addr | ({AddrW{sel[i]}} & c_req[i*AddrW +: AddrW]);
        end
      end
      assign t_addrs[gp*AddrW +: AddrW] = addr;
      assign t_word[TReqActLsb + gp] = |sel;
    end
    for (gi = 0; gi < Ports; gi = gi + 1) begin : g_side
      wire [RankW-1:0] rank = c_data[CRanksLsb + gi*RankW +: RankW];
      wire [SideTexW-1:0] st;
      assign st[SideTexOffLsb +: OffW]   = c_req[gi*AddrW +: OffW];
      assign st[SideTexLeadLsb +: LeadW] = rank[LeadW-1:0];
      assign st[SideTexInLsb] = c_req[ReqActLsb + gi] && !c_req[ReqInvLsb] && rank[RankW-1:LeadW] == group_q;
      assign s_word[SideTexelsLsb + gi*SideTexW +: SideTexW] = st;
    end
  endgenerate

  {{ skid }} #(
    .Width (SideW + TReqW)
  ) u_out (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (c_valid),
    .in_ready_o  (o_ready),
    .in_data_i   ({s_word, t_word}),
    .out_valid_o (out_valid_o),
    .out_ready_i (out_ready_i),
    .out_data_o  ({side_data_o, tag_data_o})
  );

endmodule
