{{ stamp }}
// {{ name }}: pixel scale of one IPU lane (glPixelTransfer's c * scale): each 8-bit
// channel of rgba_i (c / 255) times its signed scale (S{{ sw - sf - 1 }}.{{ sf }}, {{ sw }} bits: value / 2^{{ sf }}).
// The exact product, {{ pw }} bits signed per channel, goes to the bias stage, which adds
// the bias, rounds and clamps once (so the result is GL's c * scale + bias).
// scale_i: {A, B, G, R} scales; prod_o: {A, B, G, R} products.
// Latency 0 (combinational); four {{ pw }}-bit multipliers (8 x {{ sw }} significant bits).
// Combinational paths: rgba_i, scale_i -> prod_o.
module {{ name }} (
  input  wire [31:0] rgba_i,
  input  wire [{{ 4 * sw - 1 }}:0] scale_i,
  output wire [{{ 4 * pw - 1 }}:0] prod_o
);

  genvar ch;
  generate
    for (ch = 0; ch < 4; ch = ch + 1) begin : g_channel
      // Zero-extended channel and sign-extended scale, both at the product's width.
      wire signed [{{ pw - 1 }}:0] chan  = {{ "{{" }}{{ pw - 8 }}{1'b0}}, rgba_i[8*ch +: 8]};
      wire signed [{{ pw - 1 }}:0] scale = {{ "{{" }}{{ pw - sw }}{scale_i[{{ sw }}*ch + {{ sw - 1 }}]}}, scale_i[{{ sw }}*ch +: {{ sw }}]};
      assign prod_o[{{ pw }}*ch +: {{ pw }}] = chan * scale;
    end
  endgenerate

endmodule
