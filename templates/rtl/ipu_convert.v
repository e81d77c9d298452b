{{ stamp }}
// {{ name }}: format conversion of one IPU lane (seed 000, main pipeline stage 1): the
// pixel in the low bits of raw_i, in the DMA format fmt_i, becomes RGBA8 {A, B, G, R}.
// An n-bit channel is widened by bit replication (within 1 LSB of GL's
// round(c * 255 / (2^n - 1))); a missing alpha is 255, luminance feeds R, G and B; a
// colour index (ci8) goes to R, the rest 0.
// Formats generated: {% for f in formats %}{{ f.name }}{% if !loop.last %}, {% endif %}{% endfor %}; any other code gives 0.
// RawWidth is the widest enabled format's pixel ({{ raw_w }} bits): the enabled formats fix it.
// Latency 0 (combinational); no registers.
// Combinational paths: fmt_i, raw_i -> rgba_o.
module {{ name }} #(
  parameter integer RawWidth = {{ raw_w }}
) (
  input wire [2:0] fmt_i,
  input wire [RawWidth-1:0] raw_i,
  output reg [31:0] rgba_o
);
{% for f in formats %}
  localparam [2:0] {{ f.name }} = 3'd{{ f.code }};
{%- endfor %}

  always @(*) begin
    rgba_o = 32'd0;
    case (fmt_i)
{%- for f in formats %}
{%- match f.code %}
{%- when 0 %}
      {{ f.name }}: rgba_o = raw_i[31:0];
{%- when 1 %}
      {{ f.name }}: rgba_o = {raw_i[31:24], raw_i[7:0], raw_i[15:8], raw_i[23:16]};
{%- when 2 %}
      {{ f.name }}: rgba_o = {8'hff, raw_i[4:0], raw_i[4:2], raw_i[10:5], raw_i[10:9],
                             raw_i[15:11], raw_i[15:13]};
{%- when 3 %}
      {{ f.name }}: rgba_o = {raw_i[3:0], raw_i[3:0], raw_i[7:4], raw_i[7:4],
                             raw_i[11:8], raw_i[11:8], raw_i[15:12], raw_i[15:12]};
{%- when 4 %}
      {{ f.name }}: rgba_o = {{ "{{" }}8{raw_i[0]}}, raw_i[5:1], raw_i[5:3], raw_i[10:6], raw_i[10:8],
                             raw_i[15:11], raw_i[15:13]};
{%- when 5 %}
      {{ f.name }}: rgba_o = {8'hff, raw_i[7:0], raw_i[7:0], raw_i[7:0]};
{%- when 6 %}
      {{ f.name }}: rgba_o = {raw_i[15:8], raw_i[7:0], raw_i[7:0], raw_i[7:0]};
{%- else %}
      // A colour index: in R, for the map stage's I_TO_* lookups.
      {{ f.name }}: rgba_o = {24'd0, raw_i[7:0]};
{%- endmatch %}
{%- endfor %}
      default: rgba_o = 32'd0;
    endcase
  end

endmodule
