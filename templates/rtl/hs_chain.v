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
{% for s in stages %}
  // {{ s.inst }}: {{ s.label }}
  wire {{ s.out_valid }};
  wire {{ s.out_ready }};
  wire [Width-1:0] {{ s.out_data }};
{%- if let Some(module) = s.module %}

  {{ module }} #(
    .Width (Width){% if let Some(depth) = s.depth %},
    .Depth ({{ depth }}){% endif %}
  ) {{ s.inst }} (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  ({{ s.in_valid }}),
    .in_ready_o  ({{ s.in_ready }}),
    .in_data_i   ({{ s.in_data }}),
    .out_valid_o ({{ s.out_valid }}),
    .out_ready_i ({{ s.out_ready }}),
    .out_data_o  ({{ s.out_data }})
  );
{%- else %}
  assign {{ s.out_valid }} = {{ s.in_valid }};
  assign {{ s.in_ready }} = {{ s.out_ready }};
  assign {{ s.out_data }} = {{ s.in_data }};
{%- endif %}
{% endfor %}
  assign out_valid_o = {{ last.out_valid }};
  assign {{ last.out_ready }} = out_ready_i;
  assign out_data_o  = {{ last.out_data }};

endmodule
