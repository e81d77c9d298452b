{{ stamp }}
// {{ name }}: pixel bias of one IPU lane (glPixelTransfer's + bias, then the clamp to
// [0, 1] and the rounding to 8 bits). Per channel, with the product p = c * S from the
// scale stage (ScaleFrac fraction bits) and the bias B (BiasWidth bits signed, BiasFrac
// fraction bits; the config's is S{{ bw - bf - 1 }}.{{ bf }}), at the common fraction Frac (here {{ f }}):
//   X = (p << (Frac - ScaleFrac)) + (255 * B << (Frac - BiasFrac)) + 2^(Frac - 1)
//   out = X < 0 ? 0 : min(X >> Frac, 255)
// which is round(255 * (c / 255 * scale + bias)) clamped, halves up; exact for the stored
// scale and bias (src/model/ipu.rs is the same arithmetic).
// prod_i: {A, B, G, R} products; bias_i: {A, B, G, R} biases; rgba_o: {A, B, G, R}.
// The bias term (255 * B << (Frac - BiasFrac)) + 2^(Frac - 1) is registered from bias_i
// (which changes only while the unit is empty, clocks before a draw's pixels reach here):
// one adder on the pixel path.
// The sum and the clamp meet at ports: sum_o is each channel's X from the rounding
// point up (X >> Frac, HiWidth bits, signed), sum_i what the clamp reads. The top joins
// them with a wire, or with a register where the clock's schedule asks for one.
// Latency 0 for prod_i (combinational), one clock for bias_i; four SumWidth-bit ({{ sumw }})
// adders and clamps.
// Combinational paths: prod_i -> sum_o, sum_i -> rgba_o.
module {{ name }} #(
  parameter integer ScaleFrac = {{ sf }},
  parameter integer BiasWidth = {{ bw }},
  parameter integer BiasFrac = {{ bf }},
  parameter integer ProdWidth = {{ pw }},
  // Derived, not for overriding: a sum's bits from the rounding point up. A parameter
  // only because ports need it and Verilog-2005 declares localparams after the port list.
  parameter integer HiWidth = {{ hiw }}
) (
  input wire clk_i,
  input wire [4*ProdWidth-1:0] prod_i,
  input wire [4*BiasWidth-1:0] bias_i,
  output wire [4*HiWidth-1:0] sum_o,
  input wire [4*HiWidth-1:0] sum_i,
  output wire [31:0] rgba_o
);

  localparam integer Frac = (ScaleFrac > BiasFrac) ? ScaleFrac : BiasFrac;
  localparam integer ProdWide = ProdWidth + Frac - ScaleFrac;
  localparam integer BiasWide = BiasWidth + 9 + Frac - BiasFrac;
  localparam integer SumWidth = ((ProdWide > BiasWide) ? ProdWide : BiasWide) + 2;

  genvar ch;
  generate
    for (ch = 0; ch < 4; ch = ch + 1) begin : g_channel
      wire signed [SumWidth-1:0] prod = {{ "{{" }}(SumWidth-ProdWidth){prod_i[ProdWidth*ch + ProdWidth-1]}},
                                         prod_i[ProdWidth*ch +: ProdWidth]};
      wire signed [SumWidth-1:0] bias = {{ "{{" }}(SumWidth-BiasWidth){bias_i[BiasWidth*ch + BiasWidth-1]}},
                                         bias_i[BiasWidth*ch +: BiasWidth]};
      wire signed [SumWidth-1:0] bias255 = (bias <<< 8) - bias;
      reg signed [SumWidth-1:0] term_q;
      always @(posedge clk_i) begin
        term_q <= (bias255 <<< (Frac - BiasFrac)) + {{ "{{" }}(SumWidth-Frac){1'b0}}, 1'b1, {(Frac-1){1'b0}}};
      end
      wire signed [SumWidth-1:0] sum = (prod <<< (Frac - ScaleFrac)) + term_q;
      // The bits below the rounding point are dropped by design.
      wire unused_sum;
      assign unused_sum = ^sum[Frac-1:0];
      assign sum_o[HiWidth*ch +: HiWidth] = sum[SumWidth-1:Frac];
      wire [HiWidth-1:0] hi = sum_i[HiWidth*ch +: HiWidth];
      assign rgba_o[8*ch +: 8] = hi[HiWidth-1] ? 8'd0 : (|hi[HiWidth-2:8]) ? 8'hff : hi[7:0];
    end
  endgenerate

endmodule
