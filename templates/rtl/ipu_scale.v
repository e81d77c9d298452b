{{ stamp }}
// {{ name }}: pixel scale of one IPU lane (glPixelTransfer's c * scale): each 8-bit
// channel of rgba_i (c / 255) times its signed scale (ScaleWidth bits, 1 sign bit; the
// config's is S{{ sw - sf - 1 }}.{{ sf }}, value / 2^{{ sf }}). The exact product, ProdWidth bits signed per
// channel, goes to the bias stage, which adds the bias, rounds and clamps once (so the
// result is GL's c * scale + bias).
// scale_i: {A, B, G, R} scales; prod_o: {A, B, G, R} products.
// Latency 0 (combinational); four 8 x ScaleWidth-bit multipliers.
// Combinational paths: rgba_i, scale_i -> prod_o.
module {{ name }} #(
  parameter integer ScaleWidth = {{ sw }},
  // Derived, not for overriding: a product's width. A parameter only because a port
  // needs it and Verilog-2005 declares localparams after the port list.
  parameter integer ProdWidth = ScaleWidth + 9
) (
  input wire [31:0] rgba_i,
  input wire [4*ScaleWidth-1:0] scale_i,
  output wire [4*ProdWidth-1:0] prod_o
);

  genvar ch;
  generate
    for (ch = 0; ch < 4; ch = ch + 1) begin : g_channel
      // Zero-extended channel and sign-extended scale, both at the product's width.
      wire signed [ProdWidth-1:0] chan = {{ "{{" }}(ProdWidth-8){1'b0}}, rgba_i[8*ch +: 8]};
      wire signed [ProdWidth-1:0] scale = {{ "{{" }}(ProdWidth-ScaleWidth){scale_i[ScaleWidth*ch + ScaleWidth-1]}},
                                           scale_i[ScaleWidth*ch +: ScaleWidth]};
      assign prod_o[ProdWidth*ch +: ProdWidth] = chan * scale;
    end
  endgenerate

endmodule
