{{ stamp }}
// {{ name }}: pixel map stage of the IPU (seed 000, main pipeline stage 5; glPixelMap with
// MAP_COLOR). For every channel whose bit is set in Maps (R, G, B, A = bits 0..3), while
// map_color_i is on, component c becomes entry round(c / 255 * (size - 1)) of its table
// (size_i holds size - 1 per channel); a table never loaded is GL's initial one-entry map
// of 0. The divide by 255 is the constant multiply (p * MulK + 2^(MulShift-1)) >> MulShift
// with p = c * (size - 1), which src/model/ipu.rs checks equals the exact rounding for
// every p. Tables: TableSize x 8 bits per channel and lane, written one entry a clock
// (we_i, wsel_i, waddr_i, wdata_i) while the pipeline is empty, read synchronously.
{%- if index %}
// Colour-index draws (index_i, GL's colour index lookup, MAP_COLOR or not): the index in
// the R byte is shifted by ishift_i (signed; right shifts drop bits), ioff_i added, and
// channel ch becomes entry (index & imask_i[ch]) of its I_TO_* table (bit ch of
// IndexMaps; imask_i holds size - 1, a power of two less one); channels without a
// generated or loaded I_TO_* map are 0 (GL's initial one-entry map of 0).
{%- endif %}
// Lanes outside a beat's mask stay 0.
// Latency: one register (the output, with the tables' read register); a beat a clock.
// Combinational paths: out_ready_i -> in_ready_o.
module {{ name }} #(
  parameter integer Lanes = {{ lanes }},
  parameter integer TableSize = {{ size }},
  // Which maps exist: bit 0 R->R, 1 G->G, 2 B->B, 3 A->A.
  parameter [3:0] Maps = 4'b{{ maps_bits }},
{%- if index %}
  // Which colour-index maps exist: bit 0 I->R, 1 I->G, 2 I->B, 3 I->A.
  parameter [3:0] IndexMaps = 4'b{{ imaps_bits }},
{%- endif %}
  // Beat: {% if multi %}{mask[Lanes], y, x, Lanes x RGBA8}{% else %}{y, x, RGBA8}{% endif %}.
  parameter integer BeatWidth = {{ beat_w }},
  // Derived, not for overriding: a table address. A parameter only because ports need it
  // and Verilog-2005 declares localparams after the port list.
  parameter integer AddrW = (TableSize > 1) ? $clog2(TableSize) : 1
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire map_color_i,
  // A channel whose map is not generated reads neither its size nor its loaded bit.
  input wire [4*AddrW-1:0] size_i,
  input wire [3:0] loaded_i,
{%- if index %}
  input wire index_i,
  input wire [4:0] ishift_i,
  input wire [AddrW-1:0] ioff_i,
  // A channel whose I_TO_* map is not generated reads neither its mask nor its loaded bit.
  input wire [4*AddrW-1:0] imask_i,
  input wire [3:0] iloaded_i,
{%- endif %}
  input wire we_i,
  // The map written: {I_TO_*, channel[1:0]}.
  input wire [2:0] wsel_i,
  input wire [AddrW-1:0] waddr_i,
  input wire [7:0] wdata_i,
  input wire in_valid_i,
  output wire in_ready_o,
  input wire [BeatWidth-1:0] in_data_i,
  output wire out_valid_o,
  input wire out_ready_i,
  output wire [BeatWidth-1:0] out_data_o,
  output wire busy_o
);

  localparam integer SizeW = AddrW;
  localparam integer MulShift = {{ shift }};
  localparam integer ProdW = 8 + SizeW;
  localparam integer WideW = ProdW + {{ k_bits }};
  localparam [WideW-1:0] MulK = {{ "{{" }}(WideW-{{ k_bits }}){1'b0}}, {{ k_bits }}'d{{ k }}};
  localparam [WideW-1:0] Half = {{ "{{" }}(WideW-MulShift){1'b0}}, 1'b1, {(MulShift-1){1'b0}}};
  localparam integer Meta = BeatWidth - 32 * Lanes;

  reg out_valid_q;
  reg [Meta-1:0] meta_q;
  wire load = in_valid_i & (~out_valid_q | out_ready_i);
  assign in_ready_o  = ~out_valid_q | out_ready_i;
  assign out_valid_o = out_valid_q;
  assign busy_o      = out_valid_q;
{%- if multi %}
  wire [Lanes-1:0] mask = meta_q[Meta-1:32];
{%- endif %}

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      out_valid_q <= 1'b0;
    end else begin
      out_valid_q <= load | (out_valid_q & ~out_ready_i);
    end
  end

  always @(posedge clk_i) begin
    if (load) begin
      meta_q <= in_data_i[BeatWidth-1:32*Lanes];
    end
  end
{%- if index %}

  // The beat is a colour-index draw's (constant through a draw: draws wait for the one
  // before to leave the unit).
  reg index_q;
  always @(posedge clk_i) begin
    if (load) begin
      index_q <= index_i;
    end
  end
  // Right shifts by 1..16 (a shift of -16..-1); 16 clears every index bit.
  wire [4:0] rshift = 5'd0 - ishift_i;
{%- endif %}
  assign out_data_o[BeatWidth-1:32*Lanes] = meta_q;

  genvar l, ch;
  generate
    for (l = 0; l < Lanes; l = l + 1) begin : g_lane
{%- if index %}
      // GL's index arithmetic on the index in R: only the low AddrW bits reach a table.
      wire [AddrW+7:0] ci = {{ "{{" }}AddrW{1'b0}}, in_data_i[32*l +: 8]};
      wire [AddrW+7:0] ci_shl = ci << ishift_i[3:0];
      wire [AddrW+7:0] ci_shr = ci >> rshift;
      wire [AddrW+7:0] ci_sh = ishift_i[4] ? ci_shr : ci_shl;
      wire unused_ci_sh;
      assign unused_ci_sh = ^ci_sh[AddrW+7:AddrW];
      wire [AddrW-1:0] ci_index = ci_sh[AddrW-1:0] + ioff_i;
{%- endif %}
      for (ch = 0; ch < 4; ch = ch + 1) begin : g_channel
        wire [7:0] c = in_data_i[32*l + 8*ch +: 8];
        wire [7:0] value;
        reg [7:0] raw_q;
        always @(posedge clk_i) begin
          if (load) begin
            raw_q <= c;
          end
        end
        if (Maps[ch]) begin : g_map
          localparam [2:0] Sel = ch;
          reg [7:0] table_q [0:TableSize-1];
          reg [7:0] entry_q;
          reg use_q;
          wire [ProdW-1:0] p = {{ "{{" }}SizeW{1'b0}}, c} * {8'd0, size_i[SizeW*ch +: SizeW]};
          // Only the bits from MulShift up form the index.
          wire [WideW-1:0] wide = {{ "{{" }}(WideW-ProdW){1'b0}}, p} * MulK + Half;
          wire unused_wide;
          assign unused_wide = ^wide;
          wire [AddrW-1:0] index = wide[MulShift +: AddrW];
          always @(posedge clk_i) begin
            if (we_i & (wsel_i == Sel)) begin
              table_q[waddr_i] <= wdata_i;
            end
          end
          always @(posedge clk_i) begin
            if (load) begin
              entry_q <= table_q[index];
              use_q   <= map_color_i;
            end
          end
          wire [7:0] mapped = loaded_i[ch] ? entry_q : 8'd0;
          assign value = use_q ? mapped : raw_q;
        end else begin : g_pass
          wire unused_size;
          assign unused_size = ^{size_i[SizeW*ch +: SizeW], loaded_i[ch]};
          assign value = raw_q;
        end
{%- if index %}
        wire [7:0] ivalue;
        if (IndexMaps[ch]) begin : g_index_map
          localparam [2:0] Sel = ch + 4;
          reg [7:0] itable_q [0:TableSize-1];
          reg [7:0] ientry_q;
          always @(posedge clk_i) begin
            if (we_i & (wsel_i == Sel)) begin
              itable_q[waddr_i] <= wdata_i;
            end
          end
          always @(posedge clk_i) begin
            if (load) begin
              ientry_q <= itable_q[ci_index & imask_i[AddrW*ch +: AddrW]];
            end
          end
          assign ivalue = iloaded_i[ch] ? ientry_q : 8'd0;
        end else begin : g_index_none
          wire unused_imask;
          assign unused_imask = ^{imask_i[AddrW*ch +: AddrW], iloaded_i[ch]};
          assign ivalue = 8'd0;
        end
        wire [7:0] result = index_q ? ivalue : value;
{%- else %}
        wire [7:0] result = value;
{%- endif %}
{%- if multi %}
        assign out_data_o[32*l + 8*ch +: 8] = mask[l] ? result : 8'd0;
{%- else %}
        assign out_data_o[32*l + 8*ch +: 8] = result;
{%- endif %}
      end
    end
  endgenerate

endmodule
