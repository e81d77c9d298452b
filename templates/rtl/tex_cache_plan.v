{{ stamp }}
// {{ name }}: the texture cache's read plan. The data stage reads a pass (texels the tag
// unit has placed in slots) from the banks in rounds, one word per bank a round. This
// works out, before the pass is queued, the round each texel's word is read in and how
// many rounds the pass takes, so that the data stage only compares a round counter.
//
// A bank's distinct words are read in the order they first appear in the pass: texel
// i's round counts the distinct words of its bank that first appear before its own word
// does. A pass takes as many rounds as its busiest bank has distinct words; texels that
// ask for one word share its round.
{%- if cls.on %}
// The data stage reads a lane's texels through one port per parity class of banks, so a
// round may read only one bank of a class for a lane. A pass in which a lane asks two
// banks of one class (not a footprint: a footprint's texels are in four classes) is
// planned as if each class were one bank: its rounds count a class's distinct words.
{%- endif %}
//
// Pipeline, valid/ready, one pass a clock, 2 clocks:
//   A  per pair of texels j < i: same word, same bank; per texel, whether it is the
//      first to ask for its word and, for each texel j before it, whether its own word
//      has appeared by j. Registered per texel: the earlier first texels of its bank
//      that come before its word's first appearance.
//   B  per texel, their count (a balanced adder tree): the texel's round.
// out_data_o: {{ plan_layout }}, texel 0's round lowest;
// more bit k: the pass takes more than k + 1 rounds (from B's registers: a compare and
// an OR per bit).
// Combinational paths: in_ready_o depends on out_ready_i (a stage takes when the next
// one does).
module {{ name }} #(
  // The pass and the planned pass, as the cache lays them out (the fields below assume
  // these widths: the cache passes its own).
  parameter integer PassW = {{ pass_w }},
  parameter integer PlanW = {{ plan_w }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire in_valid_i,
  output wire in_ready_o,
  input wire [PassW-1:0] in_data_i,
  output wire out_valid_o,
  input wire out_ready_i,
  output wire [PlanW-1:0] out_data_o
);

  localparam integer Ports = {{ ports }};
  localparam integer OffW = {{ off_w }};  // word offset in a line
  localparam integer SlotW = {{ slot_w }};
  localparam integer BankW = {{ bank_w }};
  localparam integer TexW = SlotW + OffW;  // a texel of a pass: {slot, off}
  localparam integer PassTexelsLsb = {{ pass_texels_lsb }};
  localparam integer PassMaskLsb = {{ pass_mask_lsb }};
  localparam integer RoundW = {{ round_w }};  // a texel's round, 0..Ports-1
  localparam integer CandW = {{ cand_w }};  // texels that may count towards a round: all but the last
{%- for f in plan_fields %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}

  // The bank of a word of a line (TexCache::bank_bit in src/config/tmu.rs).
{% include "rtl/tex_cache_bank_of.v" %}
{%- if cls.on %}

{% include "rtl/tex_cache_class_of.v" %}
  localparam integer LaneTexels = 4;  // a lane's texels: a 2x2 footprint
{%- endif %}

  // A texel's round: the count of its candidate bits.
  function [RoundW-1:0] round_of(input [CandW-1:0] c);
    round_of = {{ round_sum }};
  endfunction

  wire a_take;
  wire b_take;
  reg  a_valid_q;
  reg  b_valid_q;

  assign b_take      = !b_valid_q || out_ready_i;
  assign a_take      = !a_valid_q || b_take;
  assign in_ready_o  = a_take;
  assign out_valid_o = b_valid_q;

  // ---------------------------------------------------------------------------------
  // A: pairs of texels.
  wire [TexW-1:0]  word  [0:Ports-1];
  wire [BankW-1:0] bank  [0:Ports-1];
  wire [Ports-1:0] act   = in_data_i[PassMaskLsb +: Ports];
  wire [Ports-1:0] first;               // the first active texel to ask for its word
  wire             unused_first = first[Ports-1];  // no texel after the last counts it
  wire [Ports*Ports-1:0] cand;          // bit i * Ports + j: j counts towards i's round
{%- if cls.on %}
  wire [Ports*Ports-1:0] split;         // bit i * Ports + j, j < i in i's lane: one class, two banks
  wire by_class = |split;               // the pass's rounds count per class
{%- endif %}

  genvar gi;
  genvar gj;
  generate
    for (gi = 0; gi < Ports; gi = gi + 1) begin : g_tex
      assign word[gi] = in_data_i[PassTexelsLsb + (Ports - 1 - gi) * TexW +: TexW];
      assign bank[gi] = bank_of(word[gi][OffW-1:0]);
    end
    for (gi = 0; gi < Ports; gi = gi + 1) begin : g_row
      wire [Ports-1:0] same_word;  // bit j < i: active texel j asks for texel i's word
      for (gj = 0; gj < Ports; gj = gj + 1) begin : g_col
        if (gj < gi) begin : g_before
          wire seen = |same_word[gj:0];  // one of texels 0..j asks for texel i's word
          assign same_word[gj]       = act[gj] && word[gj] == word[gi];
{%- if cls.on %}
          wire same_class = class_of(bank[gj]) == class_of(bank[gi]);
          wire same_index = index_of(bank[gj]) == index_of(bank[gi]);
          assign cand[gi*Ports + gj]  = first[gj] && !seen && same_class && (same_index || by_class);
          assign split[gi*Ports + gj] = (gj / LaneTexels == gi / LaneTexels) && act[gi] && act[gj] && same_class && !same_index;
{%- else %}
          assign cand[gi*Ports + gj] = first[gj] && !seen && bank[gj] == bank[gi];
{%- endif %}
        end else begin : g_after
          assign same_word[gj]       = 1'b0;
          assign cand[gi*Ports + gj] = 1'b0;
{%- if cls.on %}
          assign split[gi*Ports + gj] = 1'b0;
{%- endif %}
        end
      end
      assign first[gi] = act[gi] && same_word == {Ports{1'b0}};
    end
  endgenerate

  // ---------------------------------------------------------------------------------
  // Registers: A holds the pass and each texel's candidates, B the pass and the rounds.
  reg [PassW-1:0]  a_pass_q;
  reg [CandW-1:0]  a_cand_q  [0:Ports-1];
  reg [PassW-1:0]  b_pass_q;
  reg [RoundW-1:0] b_round_q [0:Ports-1];

  always @(posedge clk_i{{ rst.edge }}) begin : b_ctrl
    if ({{ rst.active }}) begin
      a_valid_q <= 1'b0;
      b_valid_q <= 1'b0;
    end else begin
      if (a_take) begin
        a_valid_q <= in_valid_i;
      end
      if (b_take) begin
        b_valid_q <= a_valid_q;
      end
    end
  end

  // Datapath registers: no reset.
  always @(posedge clk_i) begin : b_data
    integer i;
    if (a_take) begin
      a_pass_q <= in_data_i;
      for (i = 0; i < Ports; i = i + 1) begin
        a_cand_q[i] <= cand[i*Ports +: CandW];
      end
    end
    if (b_take) begin
      b_pass_q <= a_pass_q;
      for (i = 0; i < Ports; i = i + 1) begin
        b_round_q[i] <= round_of(a_cand_q[i]);
      end
    end
  end

  // ---------------------------------------------------------------------------------
  // Out: the rounds and how many the pass takes (an inactive texel's round is not one).
  wire [Ports-1:0] b_act = b_pass_q[PassMaskLsb +: Ports];
  reg  [Ports-1:0] more;

  always @(*) begin : b_more
    integer i;
    integer k;
    more = {Ports{1'b0}};
    for (k = 0; k < Ports - 1; k = k + 1) begin
      for (i = 0; i < Ports; i = i + 1) begin
        if (b_act[i] && b_round_q[i] > k[RoundW-1:0]) begin
          more[k] = 1'b1;
        end
      end
    end
  end

  assign out_data_o[PlanPassLsb +: PassW] = b_pass_q;
  assign out_data_o[PlanMoreLsb +: Ports] = more;

  generate
    for (gi = 0; gi < Ports; gi = gi + 1) begin : g_out
      assign out_data_o[PlanRoundLsb + gi * RoundW +: RoundW] = b_round_q[gi];
    end
  endgenerate

endmodule
