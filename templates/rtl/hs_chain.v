{{ stamp }}
// {{ name }}: a chain of {{ stages.len() }} handshake registers carrying Width bits.
//
// Stages, input to output:
{%- for s in stages %}
//   {{ s.inst }}: {{ s.label }}
{%- endfor %}
// Latency {{ latency }} clock(s) when empty; holds up to {{ capacity }} item(s).
// Peak throughput {{ peak_rate }} item(s) per clock.
// Combinational paths: {{ comb_paths }}.
{%- if slices > 1 %}
// Datapath in {{ slices }} slices of {{ slice_width }} bits (g_slice), each with its own copy of every
// stage's control: an enable reaches a slice's bits, not all Width of them (two LUT levels
// and a net to every bit do not fit {{ slice_clock }};
// src/rtl/hs_chain.rs). The slices see the same valid and ready and the same reset, so
// they run in lockstep: in_ready_o and out_valid_o are slice 0's.
{%- endif %}
{#- One stage and the wires after it, as the chain or one slice of it sees them. -#}
{%- macro stage(s, dw, ind) %}
{{ ind }}  // {{ s.inst }}: {{ s.label }}
{{ ind }}  wire {{ s.out_valid }};
{{ ind }}  wire {{ s.out_ready }};
{{ ind }}  wire [{{ dw }}-1:0] {{ s.out_data }};
{%- if let Some(module) = s.module %}

{{ ind }}  {{ module }} #(
{{ ind }}    .Width ({{ dw }}){% if let Some(depth) = s.depth %},
{{ ind }}    .Depth ({{ depth }}){% endif %}
{{ ind }}  ) {{ s.inst }} (
{{ ind }}    .clk_i       (clk_i),
{{ ind }}    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
{{ ind }}    .in_valid_i  ({{ s.in_valid }}),
{{ ind }}    .in_ready_o  ({{ s.in_ready }}),
{{ ind }}    .in_data_i   ({{ s.in_data }}),
{{ ind }}    .out_valid_o ({{ s.out_valid }}),
{{ ind }}    .out_ready_i ({{ s.out_ready }}),
{{ ind }}    .out_data_o  ({{ s.out_data }})
{{ ind }}  );
{%- else %}
{{ ind }}  assign {{ s.out_valid }} = {{ s.in_valid }};
{{ ind }}  assign {{ s.in_ready }} = {{ s.out_ready }};
{{ ind }}  assign {{ s.out_data }} = {{ s.in_data }};
{%- endif %}
{%- endmacro %}
module {{ name }} #(
  parameter integer Width = {{ width }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire in_valid_i,
  output wire in_ready_o,
  input wire [Width-1:0] in_data_i,
  output wire out_valid_o,
  input wire out_ready_i,
  output wire [Width-1:0] out_data_o
);
{%- if !registered %}

  // Every stage is a bypass: clock and reset are kept so the unit's ports do not depend
  // on its stage kinds, and sink here unused.
  wire unused_clk_rst;
  assign unused_clk_rst = ^{clk_i, {{ rst.port }}};
{%- endif %}
{%- if slices > 1 %}

  // Slices: Width must stay a multiple of Slices.
  localparam integer Slices = {{ slices }};
  localparam integer SliceW = Width / Slices;
  wire [Slices-1:0] slice_in_ready;
  wire [Slices-1:0] slice_out_valid;
  genvar s;
  generate
    for (s = 0; s < Slices; s = s + 1) begin : g_slice
{%- for st in slice_stages %}
{% call stage(st, "SliceW", "    ") %}{% endcall %}
{%- endfor %}

      assign slice_out_valid[s] = {{ slice_last.out_valid }};
      assign {{ slice_last.out_ready }} = out_ready_i;
      assign out_data_o[s*SliceW +: SliceW] = {{ slice_last.out_data }};
    end
  endgenerate

  assign in_ready_o  = slice_in_ready[0];
  assign out_valid_o = slice_out_valid[0];
  // The other slices' copies equal slice 0's.
  wire unused_slice_ctl;
  assign unused_slice_ctl = ^{slice_in_ready[Slices-1:1], slice_out_valid[Slices-1:1]};
{%- else %}
{% for st in stages %}
{%- call stage(st, "Width", "") %}{% endcall %}
{% endfor %}
  assign out_valid_o = {{ last.out_valid }};
  assign {{ last.out_ready }} = out_ready_i;
  assign out_data_o  = {{ last.out_data }};
{%- endif %}

endmodule
