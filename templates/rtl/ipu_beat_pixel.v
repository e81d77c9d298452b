{#- Included by ipu_zoom.v (one lane) and ipu_conv.v: the pixel of lane sub_q of the input beat, and
    whether it is the beat's last. Needs multi, lanes, beat_w and meta. -#}
{%- if multi %}
  // The beat's mask is contiguous from lane 0: a pixel is its beat's last when the lane
  // above it is empty.
  wire [{{ lanes - 1 }}:0] mask_above = {1'b0, in_data_i[{{ beat_w - 1 }}:{{ meta + 33 }}]};
  wire last_in_beat = ~mask_above[sub_q];
  wire [31:0] in_pix = in_data_i[32*sub_q +: 32];
{%- else %}
  wire last_in_beat = 1'b1;
  wire [31:0] in_pix = in_data_i[31:0];
{%- endif %}
