{{ stamp }}
// {{ name }}: floor(s * 2^k) of an fp32 s, as a 64-bit two's-complement integer, without
// a floating-point unit: the 24-bit mantissa is shifted by the exponent plus k. The same
// arithmetic as floor_shift_wrapping and floor_shift_saturating in
// src/model/tmu/coord.rs:
// - sat_i = 0 (repeat, mirrored repeat, LOD differences): the value modulo 2^64, exact
//   for every finite s; NaN and infinities give 0.
// - sat_i = 1 (clamp to edge, explicit LOD): saturated at +-2^62, where no texture
//   reaches; NaN gives 0, infinities saturate.
// - half_i = 1 subtracts h = 2^HalfLsb from the result (half a texel for bilinear
//   sampling) in the same carry chain.
// Combinational: a barrel shifter, an OR of the bits shifted out (a compare a bit) and
// one 64-bit carry chain.
module {{ name }} #(
  parameter integer KW = {{ kw }},  // bits of k
  parameter integer HalfLsb = 0
) (
  input wire [31:0] s_i,
  input wire [KW-1:0] k_i,
  input wire sat_i,
  input wire half_i,
  output wire [63:0] fixed_o
);

  localparam [63:0] SatPos = 64'h4000_0000_0000_0000;  //  2^62
  localparam [63:0] SatNeg = 64'hc000_0000_0000_0000;  // -2^62

  wire neg = s_i[31];
  wire [7:0] e = s_i[30:23];
  wire ones = (e == 8'hff);
  wire nan = ones & (s_i[22:0] != 23'd0);
  wire inf = ones & (s_i[22:0] == 23'd0);
  // Subnormals have no hidden bit and the exponent of e = 1.
  wire [23:0] mant = {(e != 8'd0), s_i[22:0]};
  wire [7:0] e1 = (e == 8'd0) ? 8'd1 : e;
  // s = mant * 2^(e1 - 150), so s * 2^k = mant * 2^sh.
  wire signed [10:0] sh = $signed({3'd0, e1}) - 11'sd150 + $signed({{ "{{" }}(11 - KW){1'b0}}, k_i});
  wire signed [10:0] nsh = -sh;
  wire left = ~sh[10];
  wire [63:0] m64 = {40'd0, mant};
  wire [63:0] mag  = left ? ((sh >= 11'sd64) ? 64'd0 : (m64 << sh[5:0]))
                          : ((nsh >= 11'sd64) ? 64'd0 : (m64 >> nsh[5:0]));
  // Bits shifted out below the binary point make a negative value floor one lower:
  // bit i of the mantissa is shifted out when i < nsh (a compare a bit, no carry).
  wire [23:0] low;
  genvar gb;
  generate
    for (gb = 0; gb < 24; gb = gb + 1) begin : g_low
      localparam signed [10:0] Bit = gb;
      assign low[gb] = (nsh > Bit);
    end
  endgenerate
  wire inexact = ~left & ((mant & low) != 24'd0);
  // value - h in one chain: mag + ~h + 1 for s >= 0; -mag - inexact - h =
  // ~(mag + (h - 1) + inexact) for s < 0. The carry-in rides on a low bit of 1.
  localparam [63:0] HalfV = 64'd1 << HalfLsb;
  wire [63:0] add_b = neg ? (half_i ? HalfV - 64'd1 : {64{1'b1}})
                          : (half_i ? ~HalfV : {64{1'b1}});
  wire carry_in = neg ? inexact : 1'b1;
  wire [64:0] sum = {mag, 1'b1} + {add_b, carry_in};
  wire unused_sum;
  assign unused_sum = sum[0];
  wire [63:0] value = neg ? ~sum[64:1] : sum[64:1];
  wire over = sat_i & (sh > 11'sd38);
  // The constant results, h subtracted.
  wire [63:0] zero_v = half_i ? (64'd0 - HalfV) : 64'd0;
  wire [63:0] sat_v = neg ? (half_i ? SatNeg - HalfV : SatNeg) : (half_i ? SatPos - HalfV : SatPos);

  assign fixed_o = nan ? zero_v
                 : inf ? (sat_i ? sat_v : zero_v)
                 : over ? sat_v
                 : value;

endmodule
