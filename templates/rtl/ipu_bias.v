{{ stamp }}
// {{ name }}: pixel bias of one IPU lane (glPixelTransfer's + bias, then the clamp to
// [0, 1] and the rounding to 8 bits). Per channel, with the product p = c * S from the
// scale stage (fraction {{ sf }} bits) and the bias B (S{{ bw - bf - 1 }}.{{ bf }}, {{ bw }} bits), at a common
// fraction of {{ f }} bits:
//   X = (p << {{ p_shift }}) + (255 * B << {{ b_shift }}) + 2^{{ f - 1 }}
//   out = X < 0 ? 0 : min(X >> {{ f }}, 255)
// which is round(255 * (c / 255 * scale + bias)) clamped, halves up; exact for the stored
// scale and bias (src/model/ipu.rs is the same arithmetic).
// prod_i: {A, B, G, R} products; bias_i: {A, B, G, R} biases; rgba_o: {A, B, G, R}.
// Latency 0 (combinational); four {{ sumw }}-bit adders and clamps.
// Combinational paths: prod_i, bias_i -> rgba_o.
module {{ name }} (
  input  wire [{{ 4 * pw - 1 }}:0] prod_i,
  input  wire [{{ 4 * bw - 1 }}:0] bias_i,
  output wire [31:0] rgba_o
);

  genvar ch;
  generate
    for (ch = 0; ch < 4; ch = ch + 1) begin : g_channel
      wire signed [{{ sumw - 1 }}:0] prod = {{ "{{" }}{{ sumw - pw }}{prod_i[{{ pw }}*ch + {{ pw - 1 }}]}}, prod_i[{{ pw }}*ch +: {{ pw }}]};
      wire signed [{{ sumw - 1 }}:0] bias = {{ "{{" }}{{ sumw - bw }}{bias_i[{{ bw }}*ch + {{ bw - 1 }}]}}, bias_i[{{ bw }}*ch +: {{ bw }}]};
      wire signed [{{ sumw - 1 }}:0] bias255 = (bias <<< 8) - bias;
      // The bits below the rounding point are dropped by design.
      /* verilator lint_off UNUSEDSIGNAL */
      wire signed [{{ sumw - 1 }}:0] sum = (prod <<< {{ p_shift }}) + (bias255 <<< {{ b_shift }}) +
                                  {{ "{{" }}{{ sumw - f }}{1'b0}}, 1'b1, {{ "{" }}{{ f - 1 }}{1'b0}}};
      /* verilator lint_on UNUSEDSIGNAL */
      assign rgba_o[8*ch +: 8] = sum[{{ sumw - 1 }}] ? 8'd0 :
                                 (|sum[{{ sumw - 2 }}:{{ f + 8 }}]) ? 8'hff : sum[{{ f + 7 }}:{{ f }}];
    end
  endgenerate

endmodule
