  // {{ r.inst }}: {{ r.label }} after {{ r.stage }}
{%- if r.declare %}
  wire {{ r.out_valid }};
  wire {{ r.out_ready }};
  wire [{{ r.width - 1 }}:0] {{ r.out_data }};
{%- endif %}
{%- if let Some(module) = r.module %}
  {{ module }} #(
    .Width ({{ r.width }}){% if let Some(depth) = r.depth %},
    .Depth ({{ depth }}){% endif %}
  ) {{ r.inst }} (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  ({{ r.in_valid }}),
    .in_ready_o  ({{ r.in_ready }}),
    .in_data_i   ({{ r.in_data }}),
    .out_valid_o ({{ r.out_valid }}),
    .out_ready_i ({{ r.out_ready }}),
    .out_data_o  ({{ r.out_data }})
  );
{%- else %}
  assign {{ r.out_valid }} = {{ r.in_valid }};
  assign {{ r.in_ready }} = {{ r.out_ready }};
  assign {{ r.out_data }} = {{ r.in_data }};
{%- endif %}
