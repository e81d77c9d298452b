{#- Shared by templates that schedule their stages (`import`ed, not rendered alone): a
   stage's skid register (the including template's `skid` module, its `rst` and clock), or
   wires where the schedule merges the stage with the next. -#}
{%- macro stage(on, inst, w, in_valid, in_ready, in_data, out_valid, out_ready, out_data) %}
{%- if on %}

  {{ skid }} #(
    .Width ({{ w }})
  ) {{ inst }} (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  ({{ in_valid }}),
    .in_ready_o  ({{ in_ready }}),
    .in_data_i   ({{ in_data }}),
    .out_valid_o ({{ out_valid }}),
    .out_ready_i ({{ out_ready }}),
    .out_data_o  ({{ out_data }})
  );
{%- else %}

  // No register here at {{ target_mhz }} MHz ({{ inst }}): this stage shares the next one's clock.
  assign {{ out_valid }} = {{ in_valid }};
  assign {{ in_ready }} = {{ out_ready }};
  assign {{ out_data }} = {{ in_data }};
{%- endif %}
{%- endmacro %}
